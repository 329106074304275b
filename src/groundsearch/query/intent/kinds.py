"""The chart kind of a request that does not use the product's name for it: described by its look ("bars cut
into segments", "bands flowing from … to …", "circles sized by …"), or named with a word the lexicon does not
know ("a lollipop plot", "Geigendiagramm", "バイオリンプロット").

A described kind is read as that kind, so the response draws it or downgrades it naming it. An unknown name in
front of a chart word is ``other`` with the user's own words: the response then says which kind was asked and
why it shows another, instead of a bar chart with no note. Pure and fast; the rules are :mod:`.looks`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from functools import lru_cache

from ...types import ChartSubtype
from . import looks
from .unread_words import UNREAD_KIND_NAMES

__all__ = ["as_asked", "as_line", "over_time", "described", "katakana_kinds", "misspelt", "named", "open_compound",
           "open_kind_start", "ranking_cue", "ranks", "shares", "unread_candidates", "unread_named"]

# pictographs ("🍕") are matched like CJK: as they are, with no word boundary around them
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\U0001F300-\U0001FAFF]")
MAX_WORDS = 64  # Intent.chart_requested max_length
_WORD = re.compile(r"[^\W\d_]+")
MAX_SAID = 40  # room for the user's words beside the kind's name


def _group(entries: Sequence[str]) -> re.Pattern[str]:
    latin = [e for e in entries if not _CJK.search(e)]
    cjk = [re.escape(e) for e in entries if _CJK.search(e)]
    return re.compile("|".join(([r"\b(?:" + "|".join(latin) + ")"] if latin else []) + cjk))


@lru_cache(maxsize=1)
def _compiled() -> tuple[tuple[re.Pattern[str], ...], tuple[tuple[str, bool, tuple[int, ...]], ...],
                         tuple[tuple[frozenset[str], tuple[str, ...]] | None, ...]]:
    """Each distinct group compiled once (bars, sized, … recur across rules, and each is searched at most once
    per request); group 0 is the bars."""
    index: dict[int, int] = {id(looks.BARS): 0}
    raw: list[tuple[str, ...]] = [looks.BARS]
    rules = []
    for kind, charted, groups in looks.LOOKS:
        for g in groups:
            if id(g) not in index:
                index[id(g)] = len(raw)
                raw.append(g)
        rules.append((kind, charted, tuple(index[id(g)] for g in groups)))
    return tuple(_group(g) for g in raw), tuple(rules), tuple(_openings(g) for g in raw)


_LEAD_GROUP = re.compile(r"^\(\?:([^()]*)\)")
_META = re.compile(r"[\\()\[\]|.^$+*?{]")


def _openings(entries: Sequence[str]) -> tuple[frozenset[str], tuple[str, ...]] | None:
    """The first three letters (two, for a two-letter word) each Latin entry must start with, and the CJK entries, so a group no word of the
    request opens can be skipped without running its pattern; None when some entry opens with a pattern."""
    heads: set[str] = set()
    for e in entries:
        if _CJK.search(e):
            continue
        lead = _LEAD_GROUP.match(e)
        for alt in lead.group(1).split("|") if lead else (e,):
            m = _META.search(alt)
            fixed = alt if m is None else alt[: m.start() - (1 if alt[m.start()] in "?*{" else 0)]
            head = fixed[:3] if fixed[:3].isalpha() and len(fixed) >= 3 else fixed[:2]
            if len(head) < 2 or not head.isalpha():
                return None
            heads.add(head)
    return frozenset(heads), tuple(e for e in entries if _CJK.search(e))


def described(text: str, folded: str, *, charted: bool) -> tuple[ChartSubtype, str] | None:
    """The kind whose look the request describes, and the user's words for it (``text`` and ``folded`` align
    character for character). ``charted``: the request already asks for a chart, so the rules that need one
    may speak; bars named anywhere count ("barras desde el inicio …")."""
    rx, rules, openings = _compiled()
    found: dict[int, tuple[int, int] | None] = {}
    words = _WORD.findall(folded)
    heads = {w[:3] for w in words} | {w[:2] for w in words}

    def span(i: int) -> tuple[int, int] | None:
        if i not in found:
            opening = openings[i]
            if opening is not None and not (opening[0] & heads) and not any(c in folded for c in opening[1]):
                found[i] = None
            else:
                m = rx[i].search(folded)
                found[i] = m.span() if m else None
        return found[i]

    charted = charted or span(0) is not None  # group 0 is BARS
    for kind, needs_chart, groups in rules:
        if needs_chart and not charted:
            continue
        spans = []
        for i in groups:
            sp = span(i)
            if sp is None:
                break
            spans.append(sp)
        else:
            lo, hi = min(s for s, _ in spans), max(e for _, e in spans)
            if hi - lo > MAX_SAID:  # a description spread over the request: its two nearest parts name it
                near = sorted(spans)
                pairs = [(b[1] - a[0], a[0], b[1]) for a, b in zip(near, near[1:], strict=False) if b[1] - a[0] <= MAX_SAID]
                lo, hi = min(pairs)[1:] if pairs else spans[0]
            return kind, text[lo:hi]  # type: ignore[return-value]
    return None


# The product's name of each kind, said back with the user's description ("Sankey diagram ("bands flowing")")
# so a downgrade names the kind asked for, not only the words that described it.
NAMES = {"stacked-bar": "stacked bar chart", "ranked-bar": "ranked bar chart", "sankey": "Sankey diagram",
         "waterfall": "waterfall chart", "gantt": "Gantt chart", "bubble": "bubble chart", "treemap": "treemap",
         "heatmap": "heatmap", "funnel": "funnel chart", "histogram": "histogram", "radar": "radar chart",
         "pie": "pie chart", "scatter": "scatter plot", "donut": "donut chart", "tornado": "tornado diagram",
         "venn": "Venn diagram", "box": "box plot", "word-cloud": "word cloud", "choropleth": "choropleth map",
         "sunburst": "sunburst chart", "area": "area chart", "line": "line chart", "bar": "bar chart"}


def as_asked(kind: str, words: str) -> str:
    """A described kind as the response names it: the kind's name, then the user's words for it."""
    name = NAMES.get(kind, kind)
    room = MAX_WORDS - len(name) - 4
    said = words if len(words) <= room else words[: max(room - 1, 0)].rstrip() + "…"
    return f'{name} ("{said}")' if said else name


def named(kind: str | None, said: str | None) -> str:
    """How a response names the kind asked: the user's words, behind the kind's own name when they do not say it
    already ("bubble chart ("gráfico com bolhas")"), so a downgrade says which kind it could not draw in words
    every reader knows, and the user still sees their own."""
    if not said:
        return kind or "other"
    if kind in (None, "other"):
        return said
    folded = said.casefold()
    if any(n in folded for n in (kind, kind.replace("-", " "), NAMES.get(kind, kind).casefold())):
        return said
    return as_asked(kind, said)


# ... and the German / Dutch chart words a name stands in front of, hyphenated or not ("Lollipop-Diagramm",
# "een lollipop grafiek"); the Romance ones take their name after ("gráfico de mancuernas": OTHER_KIND_NOUNS)
_OPEN_NOUNS = frozenset("chart charts plot plots diagram diagrams diagramm diagramme grafiek grafik".split())
_VERB_OBJECTS = frozenset("the them it this these those all each every my our your their some any".split())
# ... or a question word: "could the bot chart how many releases …", "plot which venues grew" — a chart word
# followed by a clause is a verb, and the word in front of it its subject, never a kind's name.
_CLAUSE_OPENERS = frozenset("how what which where when who whether why".split())
MAX_NAME_TOKENS = 3


# Abstract nouns name what a chart is about ("an adoption chart", "a cadence chart", "a retrieval chart"); the
# names of chart kinds are things one can see (lollipop, violin, candlestick, fishbone, slope, hive).
_ABSTRACT = re.compile(r"(?:tion|sion|ment|ance|ence|ity|ness|ics|ism|ship|ing|ogy|(?<!radi)(?<!spir)(?<!di)al)$")


def _named(tok: str, said: str, stop: Collection[str]) -> bool:
    """``tok`` (folded) may name a kind: ``said`` is how the user wrote it, and an acronym or a CamelCase name
    ("ICLR", "LangChain") is the data, not a kind; a capitalised word ("Voronoi") may be either."""
    if not tok.isalpha() or len(tok) < 3 or tok in stop or tok in looks.NOT_KINDS or _ABSTRACT.search(tok):
        return False
    return not (said.isupper() or any(c.isupper() for c in said[1:]))


def open_kind_start(tokens: Sequence[str], said: Sequence[str], start: int, end: int, floor: int,
                    stop: Collection[str]) -> int | None:
    """Where a kind name the lexicon lacks begins, in front of the bare chart word ``tokens[start:end]``
    ("stem and leaf plot", "hive plot"), or None. ``floor``: the first token no earlier match holds;
    ``said``: the tokens as the user wrote them; ``stop``: the reader's articles, verbs and prepositions, which
    never name a kind."""
    if end - start != 1 or tokens[start] not in _OPEN_NOUNS:
        return None
    if end < len(tokens) and (tokens[end] in _VERB_OBJECTS or tokens[end] in _CLAUSE_OPENERS):
        return None  # "plot the releases", "chart them": a verb, not a noun with a name in front
    first = None
    j = start - 1
    while j >= floor and start - j <= MAX_NAME_TOKENS + 1:
        if _named(tokens[j], said[j], stop):
            first = j
        elif not (tokens[j] == "and" and first == j + 1 and j > floor and _named(tokens[j - 1], said[j - 1], stop)):
            break
        j -= 1
    return first


_GLUED = ("diagramme", "diagramm", "diagram", "grafiek", "grafik", "chart", "plot")


def open_compound(word: str) -> str | None:
    """A German / Dutch / English compound of an unknown qualifier and a chart word names a kind outside the
    product's ("Geigendiagramm", "vioolplot", "flowchart": ``chart:other``); a qualifier that says what is
    shown is a chart of no named kind ("Jahresdiagramm": ``chart``)."""
    for suffix in _GLUED:
        if word.endswith(suffix):
            head = word[: -len(suffix)]
            if len(head) < 4 or not head.isalpha():
                return None
            return "chart" if head in looks.NOT_KINDS or head.startswith(looks.NOT_KIND_STEMS) else "chart:other"
    return None


_KATAKANA_KIND = re.compile(r"([\u30a1-\u30f6\u30fc]{2,})(チャート|グラフ|プロット|ダイアグラム|図)")
_NOT_KIND_KATAKANA = ("データ", "トレンド", "サマリー", "リリース", "ランキング", "シンプル", "カラー", "インタラクティブ",
                      "ペーパー", "プロダクト", "パッケージ", "ネットワーク")


def katakana_kinds(folded: str, known: Collection[str]) -> list[tuple[int, int]]:
    """Spans of "<katakana name><chart word>" whose name is no kind the lexicon knows ("バイオリンプロット")."""
    out = []
    for m in _KATAKANA_KIND.finditer(folded):
        if m.group(1) in _NOT_KIND_KATAKANA or any(k in m.group() for k in known):
            continue
        out.append(m.span())
    return out


# One ranking lexicon, which both steps read. The orderings (``_RANKS``, read by :func:`ranks`):
# a request that puts its categories in order asks for the ranked bar, with or without "top N": "rank them",
# "ranking the frameworks by releases", "most to least", "biggest first", "in order of", "leaderboard", in the nine
# languages. Stronger than the house convention's cues ("the most cited", "the biggest venues"), which a ranking
# may or may not follow, so a kind the lexicon reads from these words stands against the classifier.
_RANKS = re.compile(
    r"\b(?:rank(?:s|ed|ing)? (?:them|the|these|those|all|each|every|it|by|(?:[\w']+ ){1,3}(?:by|from|according))|"
    # ... "rank" alone as a verb only ("… and rank", "please rank"): "pinecone vs chroma popularity rank" plots a
    # rank, and compares two
    r"(?:^|(?:and|then|please|pls|plz|to|you|u) |, )rank(?= *(?:$|[,.;:!?)\u2014\u2013]| (?:visually|please|for me|in a|as a|on a)\b))|"
    r"(?:ranked|ranking|ranks)(?= *(?:$|[,.;:!?)\u2014\u2013]| (?:visually|please|for me|in a|as a|on a)\b))|"
    r"(?:a|the) ranking of|leaderboard|league table|pecking order|"
    r"(?:most|highest|biggest|largest|longest|more) (?:to|down to) (?:least|fewest|lowest|smallest|shortest|less)|"
    r"(?:biggest|largest|highest|most|longest|top) (?:ones? )?first|"
    # any superlative first ("tallest first", "most popular first", "the busiest ones first"), not a date's
    r"(?!(?:latest|newest|earliest|oldest|last)\b)\w{2,}est (?:ones? |bars? )?first|"
    r"most (?!recent\b)\w+ (?:ones? )?first|"
    r"(?:from|by) (?:the )?(?:biggest|largest|highest|most) (?:to|down to)|"
    r"in (?:descending )?order(?: of (?:size|count|number|releases|papers|how many|volume|popularity|activity))?"
    r"(?= *(?:$|[,.;:!?)\u2014\u2013]| of\b| by\b| from\b| please\b))|"
    r"(?:sorted|ordered|sort(?: them)?|order(?: them)?) (?:by (?:how many|count|number|size|volume|total)|"
    r"(?:from )?(?:most|biggest|largest|highest)|descending)|descending|"
    # Spanish, Portuguese
    r"de mayor a menor|del (?:mas|que mas) (?:al|a) (?:menos|que menos)|ordena\w* de mayor|clasificacion|"
    r"en orden descendente|(?:haz|hazme) un ranking|do maior (?:para|ao) o menor|em ordem decrescente|"
    r"ranqueie\w*|classificacao|"
    # French
    r"du plus (?:grand|gros|eleve|long)(?: nombre)? au plus (?:petit|faible|bas|court)|par ordre decroissant|"
    r"class(?:e|ez|er|es)(?: les)?(?: [\w']+){0,3} (?:par|selon)|classement|palmares|"
    # German
    r"vom (?:grossten|großten|hochsten|meisten) zum (?:kleinsten|niedrigsten|wenigsten)|absteigend\w*|"
    r"rangliste|rangfolge|sortiert nach|der grosse nach|der große nach|"
    # Italian
    r"dal (?:piu grande|maggiore|piu alto) al (?:piu piccolo|minore|piu basso)|in ordine decrescente|"
    r"classifica\w*|graduatoria|"
    # Dutch
    r"van (?:groot|hoog|veel) naar (?:klein|laag|weinig)|aflopend|ranglijst|rangschik\w*|gerangschikt)\b|"
    r"排名|排行|从高到低|从多到少|从大到小|降序|ランキング|順位|多い順|大きい順|高い順|降順")
# ... and words that hold "rank" without ranking anything: the people of an organisation, research topics.
_NOT_RANKS = re.compile(r"\b(?:rank and file|learning to rank|low rank|reciprocal rank|rank fusion|re ?rank\w*|"
                        r"rank \d|rank one|full rank)\b")
# A ranking drawn along a time axis is a line of ranks ("how the ranking changed month by month").
_TIME_AXIS = re.compile(
    r"\b(?:over time|per (?:month|week|quarter|day|year)|each (?:month|week|quarter|year)|every (?:month|week|year)|"
    r"monthly|weekly|quarterly|yearly|by (?:month|week|quarter|year)|month by month|year by year|year over year|"
    r"changed?|changes|evolv\w*|evolution|trend\w*|over the (?:years|months|weeks)|por mes|por ano|par mois|par an|"
    r"pro (?:monat|jahr)|per (?:maand|jaar|mese|anno)|nel tempo|au fil du temps|ao longo do tempo|im zeitverlauf)\b|"
    r"每月|随时间|月ごと|推移")


def ranks(folded: str) -> bool:
    """The request (folded) orders its categories by how many each has, and along no time axis: the ranked bar.
    A chart of ranks over time is a line; "rank and file" or "learning to rank" rank nothing."""
    text = _NOT_RANKS.sub(" ", folded)
    return bool(_RANKS.search(text)) and not _TIME_AXIS.search(text)


# ... and the superlatives a ranking may or may not follow ("the most cited", "the biggest venues", "top 10", "les 5
# plus cités"): with the orderings, the house convention's cue for a ranked bar (:func:`ranking_cue`), which the
# format step reads, and too weak to stand against the classifier.
_SUPERLATIVES = re.compile(
    r"\b(?:top \d+|top (?:five|ten|twenty)|ranked|ranking|rankings|biggest|largest|"
    # "most cited", not "most of them are from 2024" nor "the most recent"
    r"most (?!of\b|in\b|likely\b|recent\w*|important\w*|probably\b|people\b|days\b)\w+|"
    r"sorted by how|ordered by how|clasifica|meistzitierten|mas citados|plus cites|piu citati|mais citados|"
    r"meest geciteerde|"
    # sorted from the most down, the N first of something, in the nine languages
    r"classant|classes? par|les \d+ (?:plus|premiers|premieres|meilleur\w*)|"
    r"clasificando|ordenad[oa]s? (?:de mayor|del mas|de la mas|de mais|do maior|da maior)|"
    r"(?:los|las) \d+ (?:mas|principales|mejores)|orden descendente|"
    r"sortiert (?:nach|vom|von)|(?:die|den) \d+ (?:beliebtest|meist|grosst|haufigst|best)\w*|"
    r"ordinat[eiao] (?:dalla|dal|per)|(?:i|le) \d+ (?:piu|principali|migliori)|"
    r"classificando|(?:os|as) \d+ (?:mais|principais|melhores)|"
    r"gesorteerd (?:op|van)|de \d+ (?:meest|populairste|grootste|beste))\b|"
    r"上位|前\d+|前(?:十|五|二十)(?:名|个|位)|長い順")


def ranking_cue(folded: str) -> bool:
    """The request (folded) orders its categories (:func:`ranks`, along a time axis too) or names the top of them:
    a chart of it is the house's ranked bar where nothing else names the kind."""
    return bool(_SUPERLATIVES.search(folded) or _RANKS.search(_NOT_RANKS.sub(" ", folded)))


# A chart asked for "as a line" names the line chart without the word chart: "show it as a line over time instead".
_AS_LINE = re.compile(
    r"\b(?:as|with|in the form of) (?:a |one |single |simple |smooth )*(?:line|lines|curve|curves)\b"
    r"(?! (?:items?|by line|breaks?|of (?:text|code|prose))\b)|\blines? (?:over|across|through) time\b|"
    r"\b(?:como|come) (?:una |uma )?(?:linea|linha|curva)\b|\bals (?:eine |een )?(?:linie|kurve|lijn|curve)\b|"
    r"\b(?:sous forme de|en) (?:une )?courbe\b")


def as_line(folded: str) -> bool:
    """The request asks for its chart drawn as a line ("as a line over time", "como una línea")."""
    return bool(_AS_LINE.search(folded))


# A count along a time axis: the line the convention gives a chart of no named kind (data README) — per month,
# year, week, over time, since a year, between two years, a trend, growth, in the nine languages. The kind step
# reads it where the classifier chose plain bars (:func:`.kind_model.settled`): the classifier, reading the
# whole request, turned "how many packages were released each month since July" and "papers counted per year"
# into bars. A periodic report or meeting ("the quarterly grant report") is no time axis.
_OVER_TIME = re.compile(
    r"\b(?:over time|across time|through time|over the (?:years|months|weeks|quarters|decades?|past|last)|"
    r"(?:per|each|every|by) (?:month|week|quarter|day|year|decade)|"
    r"(?:month|week|quarter|year|day)s? (?:over|on|to|by|after) (?:month|week|quarter|year|day)|"
    r"monthly|weekly|quarterly|yearly|annually|daily|over (?:19|20)\d\d|since (?:19|20)\d\d|"
    r"(?:from|between) (?:19|20)\d\d (?:to|and|through|until|till) (?:19|20)\d\d|"
    r"trends?|growth|grew|evolv\w*|evolution|in the (?:last|past) (?:\w+ )?(?:years|months|weeks)|"
    # Spanish, Portuguese
    r"(?:por|cada) (?:mes|ano|semana|dia|trimestre)|(?:al|ao) (?:mes|ano)|mensual\w*|semanal\w*|mensa(?:l|is)|"
    r"a lo largo (?:del tiempo|de los anos)|ao longo (?:do tempo|dos anos)|(?:desde|depuis|seit|sinds|dal) (?:19|20)\d\d|"
    r"evolucao|evolucion|tendencia\w*|crecimiento|crescimento|"
    # French
    r"(?:par|chaque) (?:mois|an|annee|semaine|jour|trimestre)|mensuel\w*|hebdomadaire\w*|"
    r"au fil (?:du temps|des (?:ans|annees|mois))|tendance\w*|croissance|"
    # German
    r"(?:pro|je) (?:monat|jahr|woche|tag|quartal)|monatlich\w*|jahrlich\w*|wochentlich\w*|im (?:zeit)?verlauf|"
    r"uber (?:die|den) (?:zeit|jahre|monate|zeitraum)|entwicklung|wachstum|"
    # Italian
    r"(?:al|per|ogni) (?:mese|anno|settimana|giorno|trimestre)|all'anno|mensil\w*|settimanal\w*|"
    r"nel tempo|negli anni|nel corso (?:del tempo|degli anni)|evoluzione|tendenz\w*|crescita|"
    # Dutch
    r"(?:per|elke|iedere) (?:maand|jaar|week|dag|kwartaal)|maandelijks\w*|jaarlijks\w*|wekelijks\w*|"
    r"door de (?:tijd|jaren)|in de loop (?:der|van de) (?:tijd|jaren)|verloop|ontwikkeling|groei)\b|"
    r"每月|每年|每周|每季|按月|按年|按周|逐月|逐年|随时间|随着时间|趋势|历年|月ごと|年ごと|週ごと|月別|年別|毎月|毎年|推移|時系列|経年")
_PERIODIC = re.compile(r"\b(?:monthly|weekly|quarterly|yearly|annual|daily) (?:grant |board |team |status |product )?"
                       r"(?:report|review|meeting|update|newsletter|call|sync|deck|planning|all hands)s?\b")


def over_time(folded: str) -> bool:
    """The request (folded) counts along a time axis: per month, over the years, since 2023, a trend."""
    return bool(_OVER_TIME.search(_PERIODIC.sub(" ", folded)))


# The part each category is of a whole: a pie, where nothing else names the kind ("what fraction of releases each
# registry accounts for"). Read only where no time axis is, since a share per month is a stacked or area chart.
_SHARES = re.compile(
    r"\b(?:what (?:fraction|share|percentage|proportion|part)|(?:fraction|fractions|percentage|percentages|"
    r"proportion|proportions|share|shares) of (?:the )?(?:total|whole|all)|"
    r"(?:que|qual) (?:fraccion|porcentaje|proporcion|parte|porcentagem|fracao)|"
    r"quelle (?:part|proportion|fraction)|part (?:de|du) (?:chaque|total)|welche[nr]? anteil|anteil (?:an|am|jede)|"
    r"quale (?:quota|percentuale|frazione|parte)|welk (?:aandeel|deel|percentage)|"
    # the parts of one whole, said as such: "as parts of one whole", "how much of … belongs to each"
    r"parts? of (?:one|a|the) (?:whole|total)|(?:slices?|pieces?|cuts?) of (?:one|a|the) (?:whole|total|pie)|"
    r"how much of (?:[\w']+ ){1,8}(?:belongs to|goes to|comes from|is from) each|"
    r"partes de (?:un|um) todo|parties d(?:'| )?un (?:tout|ensemble)|teile (?:eines|des) ganzen|"
    r"parti di un (?:tutto|intero)|delen van (?:een|het) geheel)\b|占比|所占|比例|割合|シェア")


def shares(folded: str) -> bool:
    """The request asks what part of a whole each category is, along no time axis."""
    return bool(_SHARES.search(folded)) and not _TIME_AXIS.search(folded)


# Bar, pie and line named in a script tier 1 reads no kind names of: ``unread_words.UNREAD_KIND_NAMES``, matched
# as substrings with zero-width joiners dropped (Sinhala writes "ප්‍ර" with one, or not).
_JOINERS = str.maketrans("", "", "\u200c\u200d")


def _indic_fold() -> dict[int, str]:
    """The nine Indic scripts share one layout (each a block of 128 with the letters at the same places), so a
    name read in one is read in all: every letter as its Devanagari twin, with what spellings of one loan word
    differ in dropped (the virama, which Punjabi leaves out of "ਚਾਰਟ"; the nukta; long and short i and u; the
    joiners). Assamese ৰ and ৱ are the Bengali block's r and w; Malayalam's chillus are consonants."""
    table: dict[int, str] = {}
    for base in range(0x980, 0xD80, 0x80):  # Bengali, Gurmukhi, Gujarati, Odia, Tamil, Telugu, Kannada, Malayalam
        for off in range(0x80):
            table[base + off] = chr(0x900 + off)
    table.update({0x9F0: "र", 0x9F1: "व", 0xA70: "ं", 0xA71: "", 0xD7A: "ण", 0xD7B: "न", 0xD7C: "र", 0xD7D: "ल",
                  0xD7E: "ळ", 0xD7F: "क", 0x200C: "", 0x200D: ""})
    for base in range(0x900, 0xD80, 0x80):  # the folds above, in every block, Devanagari's own included
        for off, to in ((0x4D, ""), (0x3C, ""), (0x08, "इ"), (0x40, "ि"), (0x0A, "उ"), (0x42, "ु")):
            table[base + off] = to
    return table


_INDIC = str.maketrans(_indic_fold())
_INDIC_SCRIPT = re.compile(r"[\u0900-\u0d7f]")


@lru_cache(maxsize=2)
def _unread_names(fold: Callable[[str], str]) -> tuple[tuple[ChartSubtype, re.Pattern[str]], ...]:
    return tuple((kind, re.compile("|".join(re.escape(fold(n).translate(_JOINERS)) for n in names)))
                 for kind, names in UNREAD_KIND_NAMES.items())


@lru_cache(maxsize=1)
def _indic_names() -> tuple[tuple[ChartSubtype, re.Pattern[str]], ...]:
    """Every Indic-script name of a kind the lexicon knows (Hindi, Bengali and the unread scripts' names), in the
    Devanagari they fold to."""
    from . import lexicon, morphology

    names: dict[str, set[str]] = {}
    sources = [lexicon.KINDS, lexicon.MORE_LANGUAGES, morphology.INFLECTED,
               {f"chart:{k}": v for k, v in UNREAD_KIND_NAMES.items()}]
    for source in sources:
        for key, surfaces in source.items():
            if key.startswith("chart:") and key != "chart:other":
                names.setdefault(key.split(":", 1)[1], set()).update(
                    s.translate(_INDIC) for s in surfaces if _INDIC_SCRIPT.search(s))
    return tuple((kind, re.compile("|".join(map(re.escape, sorted(ns)))))  # type: ignore[misc]
                 for kind, ns in names.items() if ns)


def unread_named(folded: str, fold: Callable[[str], str]) -> ChartSubtype | None:
    """The one kind the request (``folded`` by ``fold``, the reader's folding, which the names get too) names in a
    language tier 1 reads no kind names of ("គំនូសតាងរង្វង់", a pie; "ପାଇ ଚାର୍ଟ", Odia, by the Indic names), or
    None: none named, or two ("પાઇ ચાર્ટ નહીં, બાર ચાર્ટમાં": which one is refused tier 1 cannot tell)."""
    text = folded.translate(_JOINERS)
    found = {kind for kind, rx in _unread_names(fold) if rx.search(text)}
    if _INDIC_SCRIPT.search(text):
        indic = text.translate(_INDIC)
        found |= {kind for kind, rx in _indic_names() if rx.search(indic)}
    return found.pop() if len(found) == 1 else None


def unread_candidates(candidates: tuple[str, ...], evidence: str, query: str,
                      fold: Callable[[str], str]) -> tuple[str, ...]:
    """What the format classifier chooses among (with none): tier 1's ``candidates``, or, where it found no format
    word at all in a language it cannot read (``evidence`` "unread"), a chart when :func:`unread_named` reads a
    kind's name there. So the format step reads a kind's name through the same fold as the kind step: one named
    in any of the nine Indic scripts by the names known in the others (heldout21's Assamese "পাই চাৰ্টত" had been
    read as a table), and a Cyrillic one (Belarusian "слупкавую") only here, where tier 1 read no format word of
    its own: where it read a chart word with Russian's grammar ("график", "диаграма"), that sure wish stands, so
    the Cyrillic names stay out of ``unread_words.UNREAD_WORDS``. Two kinds named (one refused, tier 1 cannot tell
    which) are no chart. ``fold``: the reader's folding, as for :func:`unread_named`."""
    if evidence == "unread" and not candidates and unread_named(fold(query), fold) is not None:
        return ("chart",)
    return candidates

# A kind's name misspelt past one edit, read as a kind outside the schema ("donught chart", "bocks plot",
# "wattefall chart"): tier 1 forgives one edit of a lexicon word, and a name it does not know in front of a chart
# word is ``other`` with the user's words. The name is compared with the kinds' own names (the lexicon's, in the
# nine languages) by how it sounds in English spelling (``_sound``: "bocks" and "box", "donught" and "donut" sound
# alike) and then by edits: one for a name of five sounds or fewer, two for a longer one, the first letter the
# same. Never a name the lexicon reads as a kind outside the schema ("dot plot" is not a misspelt "box plot",
# "violine" not a misspelt anything).
_CHART_NOUNS = frozenset("""chart charts plot plots diagram diagrams graph graphs map maps grafico grafica graphique
    diagramme diagramm diagrama diagramma grafik grafiek de en a da di del van""".split())
_SOUNDS = ((re.compile(r"gh"), ""), (re.compile(r"ph"), "f"), (re.compile(r"ck|q|c(?![eiy])"), "k"),
           (re.compile(r"x"), "ks"), (re.compile(r"y"), "i"), (re.compile(r"z"), "s"), (re.compile(r"(.)\1+"), r"\1"),
           (re.compile(r"(?<=.{3})e$"), ""))
_MIN_SAID = 4  # a name of fewer sounds is never read as misspelt
_MIN_NEAR, _MIN_FAR = 7, 9  # a name's sounds from which one edit, and two, are forgiven


def _sound(name: str) -> str:
    for rx, to in _SOUNDS:
        name = rx.sub(to, name)
    return name


def _edits(a: str, b: str, most: int) -> int:
    """Optimal string alignment distance of ``a`` and ``b``, or ``most + 1`` when it is larger."""
    if abs(len(a) - len(b)) > most:
        return most + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
        if min(prev) > most:
            return most + 1
    return prev[-1]


def _name_of(words: str) -> str:
    """A kind's name without its chart word: "donught chart" -> "donught", "grafico de barras" -> "barras"."""
    return "".join(w for w in _WORD.findall(words) if w not in _CHART_NOUNS)


@lru_cache(maxsize=1)
def _known_names() -> tuple[tuple[str, ChartSubtype], ...]:
    from . import lexicon  # the lexicon imports nothing of this module

    out: dict[str, ChartSubtype] = {}
    for key, surfaces in lexicon.KINDS.items():
        if not key.startswith("chart:") or key == "chart:other":
            continue
        for s in surfaces:
            name = _name_of(s.casefold())
            if len(name) >= 3 and name.isascii():
                out.setdefault(_sound(name), key.split(":", 1)[1])  # type: ignore[arg-type]
    return tuple(out.items())


@lru_cache(maxsize=1)
def _other_names() -> frozenset[str]:
    from . import lexicon

    names = [*lexicon.KINDS.get("chart:other", ()), *looks.OTHER_KINDS, *looks.OTHER_KIND_NOUNS]
    return frozenset(_sound(_name_of(n.casefold())) for n in names if n.isascii())


def misspelt(words: str) -> ChartSubtype | None:
    """The kind whose name ``words`` (a kind outside the schema, as the user wrote it) misspells, or None."""
    name = _name_of(words.casefold())
    if len(name) < 3 or not name.isascii() or not name.isalpha():
        return None
    said = _sound(name)
    if len(said) < _MIN_SAID or said in _other_names():
        return None
    best: tuple[int, ChartSubtype] | None = None
    for known, kind in _known_names():
        if known[0] != said[0]:
            continue
        short = min(len(known), len(said))
        most = 0 if short < _MIN_NEAR else 1 if short < _MIN_FAR else 2
        d = _edits(said, known, most)
        if d <= most and (best is None or d < best[0]):
            best = (d, kind)
    return best[1] if best else None
