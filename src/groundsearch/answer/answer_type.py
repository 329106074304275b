"""What kind of span a question asks for, and the spans of that kind in a sentence. Pure; patterns, not NER.

A factoid question announces its answer's type in its first words ("who", "when", "how many", "where",
"which country"); a sentence that answers it holds a span of that type the question does not already
contain. That is what lets an extractive answer open with a one-line answer, tell an answer-bearing
sentence from one that merely shares the topic (the basis of abstention), and notice two sources that
give different values for the same thing (a conflict).

Types: ``person`` (people and organisations: capitalised names — "who" is asked of both), ``place``,
``date``, ``number``, ``entity`` (any other name: "which film", "what company"), ``yesno`` and
``choice`` (comparisons: both compared names must be covered), ``other`` (how/why/what-is: no span).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Literal

from ..store.text import analyze

__all__ = ["SPAN_TYPES", "AnswerType", "answer_spans", "choices", "date_key", "date_keys", "expected_type"]

AnswerType = Literal["person", "place", "date", "number", "version", "licence", "entity", "yesno", "choice", "other"]
# the types whose answer is a span of the sentence (the rest are answered by whole sentences)
SPAN_TYPES: frozenset[str] = frozenset({"person", "place", "date", "number", "version", "licence", "entity"})

_MONTH = (r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?"
          r"|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?")
_DATE = re.compile(
    rf"\b(?:{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}"  # September 20, 2019
    rf"|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH},?\s+\d{{4}}"  # 20 September 2019
    rf"|{_MONTH}\s+\d{{4}}"  # September 2019
    r"|\d{4}-\d{2}-\d{2}"
    r"|(?:1[0-9]|20)\d{2}s?)\b"  # 1994, the 1990s
)
_MONTH_NUMBER = {m: i for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov",
                                             "dec"), start=1)}
_DAY_MONTH_YEAR = re.compile(rf"^(?:(?P<m1>{_MONTH})\s+(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<y1>\d{{4}})"
                             rf"|(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m2>{_MONTH}),?\s+(?P<y2>\d{{4}})"
                             rf"|(?P<m3>{_MONTH})\s+(?P<y3>\d{{4}})"
                             r"|(?P<y4>\d{4})-(?P<m4>\d{2})-(?P<d4>\d{2}))$")
_NUMBER_WORDS = ("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
                 "seventeen eighteen nineteen twenty thirty forty fifty hundred thousand").split()
_NUMBER = re.compile(
    r"(?<![\w.])(?:[$€£]\s?)?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?:\s+(?:million|billion|trillion|thousand))?"
    r"|(?<![\w.])(?:[$€£]\s?)?\d+(?:\.\d+)?%?(?:\s+(?:million|billion|trillion|thousand))?"
    rf"|\b(?:{'|'.join(_NUMBER_WORDS)})\b",
    re.IGNORECASE,
)
# A run of capitalised words, with the lower-case joiners names carry ("Bank of England", "Ludwig van
# Beethoven"), or a dotted abbreviation ("U.S."). Sentence-initial words are filtered by the caller.
_NAME = re.compile(
    r"(?:[A-Z]\.){2,}"
    # a model or package name written in lower case, in joined parts ("all-MiniLM-L6-v2", "gpt-4o"); kept
    # only when a part mixes letters with digits or capitals (_CODE_NAME), so "state-of-the-art" is none
    r"|\b[a-z][a-z0-9]*(?:[-.][A-Za-z0-9]+)+\b"
    r"|\b[A-Z][\w'’&-]*[\w](?:\s+(?:(?:of|de|da|del|van|von|la|le|di|du|the|and|&)\s+)?[A-Z][\w'’&-]*[\w])*"
)
_CODE_NAME = re.compile(r"[a-z][0-9]|[0-9][a-z]|[A-Z]")
_NOT_NAMES = {"the", "a", "an", "this", "that", "these", "those", "it", "its", "in", "on", "at", "for", "but", "and",
              "if", "when", "while", "after", "before", "since", "during", "however", "also", "he", "she", "they",
              "his", "her", "their", "we", "our", "there", "as", "by", "from", "with", "of", "to", "i", "you", "so"}
_STARTERS = {"what", "who", "when", "where", "why", "how", "which", "here", "some", "many", "most", "other", "each",
             "every", "all", "both", "despite", "according", "although", "once", "now", "then", "today", "find",
             "see", "get", "read", "watch", "learn", "one", "two", "three", "no", "yes", "not", "only", "more",
             "after", "before", "because", "until", "unlike", "like", "with", "without", "over", "under", "about"}
_MONTH_NAMES = re.compile(rf"^{_MONTH}$")
# Capitalised words that name no one: days, times, and demonyms used as adjectives ("the Austrian writer")
_NOT_ANSWERS = re.compile(r"^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|Today|Yesterday|Tomorrow|"
                          r"Season|Episode|Chapter|Part|Eastern|Western|Pacific Time|Eastern Time|Read|See|Click|Get)$")
# Titles written capitalised before a name: the name after the last of them is the person
_ROLE = re.compile(r"^(?:CEO|CFO|CTO|COO|President|Chairman|Chairwoman|Chair|Director|Founder|Co-founder|QB|Coach|"
                   r"Minister|Senator|Governor|Mayor|Judge|Prime|General|Commissioner|Chancellor)$")
# People named by whom they belong to: the name before them says whose they are, not who acted
_AFFILIATES = re.compile(r"\s+(?:employees?|staff(?:ers)?|executives?|engineers?|officials?|fans?|users?|workers?|"
                         r"researchers?|spokes(?:person|man|woman)|insiders?|veterans?|alumni|customers?|"
                         r"shareholders?|investors?)\b")
# A capitalised word joined to lower-case parts is an adjective: "Oscar-winning", "Thirteen-year-old", "Paris-based"
_HYPHEN_ADJECTIVE = re.compile(r"^[A-Z][\w'’]*(?:-[a-z]+)+$")
_DEMONYM = re.compile(r"^[A-Z][a-z]+(?:ian|ish|ese|ean|an|ic|i)$")
_PLACE_CUE = re.compile(r"\b(?:in|at|from|near|to|of)\s+$")
_ORG_SUFFIX = re.compile(r"\b(?:Inc|Corp|Corporation|Company|Ltd|LLC|Group|University|Association|Party|Club|"
                         r"Records|Studios|Bank|Agency|Council|Institute|League|Committee|Foundation)\b")

# A licence is asked for by name in any spelling (licence, license, Lizenz, licencia) and answered by an
# identifier (SPDX's families), not by whatever capitalised name sits near the word.
_LICENCE_Q = re.compile(r"\blicen[cs]\w*|\blizenz\w*|\blicencia\w*", re.IGNORECASE)
_LICENCE = re.compile(
    r"(?<![\w-])(?:Apache(?:-|\s+License,?\s+(?:Version\s+)?)2\.0|MIT|ISC|Unlicense|Zlib|BSD-[1-4]-Clause"
    r"|(?:A|L)?GPL-?[1-3]\.0(?:-only|-or-later|\+)?|MPL-?[12]\.[01]|EPL-?[12]\.0|CC0-1\.0"
    r"|CC-BY(?:-SA|-NC|-ND)*-[1-4]\.0)(?![\w-])")
# "which version", "¿qué versión", "welche Version": a dotted release number (1.5.7, 0.8, 1.0.0b261022)
_VERSION_Q = re.compile(r"\bversi(?:on|ón)s?\b", re.IGNORECASE)
_VERSION = re.compile(r"(?<![\w.])v?\d+(?:\.\d+){1,3}(?:[-.]?(?:a|b|rc|dev|post)\d*)?(?![\w.]*\w)")
# A question about a setting or a measure asks for its number, whatever its wh-word: "what damping", "which
# port", "what HTTP status", "the relevance gate threshold", "default RRF k?"
_MEASURES = (r"port|status(?:\s+code)?|exit\s+code|damping|weight|threshold|k1?|b|limit|size|timeout|penalty|"
             r"score|cosine|factor|ratio|rate|dimensions?|ef|depth|constant")
_MEASURE_Q = re.compile(rf"^(?:what|which)(?:'s|\s+(?:is|are|was))?\s+(?:the\s+)?(?:default\s+)?(?:[\w.-]+\s+){{0,3}}?"
                        rf"(?:{_MEASURES})\b(?!\s+(?:of|for)\s+(?:a|an|the)?\s*\w+\s+(?:is|are)\b)|"
                        rf"^default\s+(?:[\w.-]+\s+){{0,2}}(?:{_MEASURES})\b", re.IGNORECASE)
# "What does X store its keyword index in?", "Where does X keep its records?": the answer is the thing that
# holds them (a system, a file), never the method that scores or searches what it holds
_STORE_Q = re.compile(r"\b(?:stor(?:e|es|ed)|keeps?|kept|holds?|persists?|saves?)\s+(?:its|their|the|all)?\s*"
                      r"(?P<object>[\w-]+(?:\s+[\w-]+)?)\s*(?:in)?\s*\??$", re.IGNORECASE)
# retrieval methods and scoring functions as this field names them: how an index is searched, not where
_METHODS = frozenset({"bm25", "hnsw", "rrf", "wand", "maxscore", "ppr", "mmr", "tf-idf", "tfidf", "rocchio", "hyde",
                      "prf", "ann", "knn", "cosine", "block-max"})
_ADJECTIVE = re.compile(r"(?:ed|al|ive|ous|ic|able|ible|ful|less|ing|est|er|ly)$")
_FILE = re.compile(r"\b[\w-]+\.(?:sqlite3?|db|json|jsonl|parquet|lance|csv|log)\b")

_PLACE_NOUNS = r"country|city|state|province|town|county|region|continent|island|nation|location|venue|capital"
_PERSON_NOUNS = (r"person|man|woman|player|president|ceo|founder|author|actor|actress|singer|artist|director|"
                 r"company|team|organi[sz]ation|band|group|club|party|university|firm")
_YESNO = re.compile(r"^(?:is|are|was|were|does|do|did|can|could|has|have|had|will|would|should)\b", re.IGNORECASE)


def expected_type(question: str) -> AnswerType:
    """The answer type a question asks for, from its wording alone."""
    q = " ".join(question.casefold().split())
    if re.search(r"\b(?:vs\.?|versus|compared? (?:to|with)|difference between)\b", q) or (
            re.match(r"^(?:which|who|what)\b", q) and re.search(r"\b\w+ or \w+", q)):
        return "choice"
    if _YESNO.match(q):
        return "yesno"
    if _LICENCE_Q.search(q):
        return "licence"
    if _VERSION_Q.search(q):
        return "version"
    if _MEASURE_Q.search(q):
        return "number"
    if stored_object(q) is not None:
        return "entity"  # the thing that holds it, named (see _holders), wherever it is
    if re.search(r"\bhow (?:many|much)\b|\bwhat (?:number|percentage|amount|is the population)\b|\bhow (?:old|long|"
                 r"far|tall|big)\b|\bwhat (?:is|was|were|are) (?:the |\w+'s )?(?:revenue|price|cost|value|worth|salary|budget|"
                 r"net worth|profit|income)\b", q):
        return "number"
    if re.search(r"^when\b|\bwhen (?:was|were|did|does|is)\b|\bwhat (?:year|date|day|month|decade|century)\b|"
                 r"\bwhat is the (?:date|day|year)\b|\b(?:premiere|release|air|opening) date\b|"
                 r"\bwhich (?:year|date|day|month)\b|\bin what year\b|\b(?:release|launch) date\b", q):
        return "date"
    if re.search(rf"^where\b|\bwhere (?:was|were|did|does|is)\b|\b(?:which|what) (?:{_PLACE_NOUNS})\b|\blocation$", q):
        return "place"
    if re.search(rf"^(?:who|whom|whose)\b|\b(?:who|whom|whose)\b|\b(?:which|what) (?:{_PERSON_NOUNS})\b", q):
        return "person"
    if re.match(r"^(?:which|what)\b", q) and not re.match(r"^what (?:is|are|was|were) (?:a|an|the)?\s*\w+\??$", q) \
            and not re.search(r"\b(?:how|why|mean|means|definition)\b", q):
        return "entity"
    return "other"


def date_key(span: str) -> str | None:
    """A date span as ``YYYY-MM-DD`` (or ``YYYY-MM``) whatever its spelling — "5 January 2020", "Jan. 5,
    2020" and "2020-01-05" are one date — or None for anything else, a bare year included."""
    m = _DAY_MONTH_YEAR.match(span.strip())
    if not m:
        return None
    g = m.groupdict()
    year = g["y1"] or g["y2"] or g["y3"] or g["y4"]
    month_word = g["m1"] or g["m2"] or g["m3"]
    month = _MONTH_NUMBER[month_word[:3].casefold()] if month_word else int(g["m4"])
    day = g["d1"] or g["d2"] or g["d4"]
    return f"{year}-{month:02d}-{int(day):02d}" if day else f"{year}-{month:02d}"


def date_keys(text: str) -> set[str]:
    """The :func:`date_key` of every date ``text`` spells out."""
    return {k for k in (date_key(m.group(0)) for m in _DATE.finditer(text)) if k}


def _names(sentence: str, ordinary: Collection[str] = ()) -> list[tuple[int, str]]:
    """Capitalised runs of ``sentence`` that name someone or something. ``ordinary``: words the page also
    writes in lower case — one of them opening a sentence ("Settings come from …", "The Championship will
    next be played …", "Voters chose …") is capitalised for its place, not for being a name."""
    out = []
    for m in _NAME.finditer(sentence):
        if m.group(0)[:1].islower() and not _CODE_NAME.search(m.group(0)):
            continue  # "state-of-the-art", "keyword.py", "mid-2020": joined words, not a model's name
        if m.start() and sentence[m.start() - 1] in "#@":
            continue  # "#NobelPrize", "@wojespn": a tag or a handle, not a name in the claim
        words = m.group(0).split()
        while words and (words[0].casefold() in _NOT_NAMES or _HYPHEN_ADJECTIVE.match(words[0])):
            words = words[1:]  # "The Beatles" keeps its article only mid-name; "Oscar-winning" describes
        roles = [i for i, w in enumerate(words) if _ROLE.match(w)]
        if roles and roles[-1] + 1 < len(words):  # "Alphabet and Google CEO Sundar Pichai": the person
            words = words[roles[-1] + 1:]
        if not words or _MONTH_NAMES.match(words[0]) or _NOT_ANSWERS.match(" ".join(words)):
            continue
        start = m.start() + m.group(0).find(words[0])
        after = sentence[start + len(" ".join(words)):]
        if len(words) == 1 and _DEMONYM.match(words[0]) and re.match(r"\s+[a-z]", after):
            continue  # "the Austrian writer": an adjective, not the answer
        if start == 0 and len(words) == 1 and (words[0].casefold() in _STARTERS or re.search(r"(?:ed|ing|ly)$", words[0])):
            continue  # "Founded in 2015 ...", "Here is ...": how a sentence starts, not a name
        if sentence[:start].strip().casefold() in ("", "the", "a", "an") and len(words) == 1 \
                and words[0].casefold() in ordinary:  # "The Stage ..." opens the sentence as much as "Stage ..."
            continue
        if len(words) == 1 and re.search(r"(?:^|\s)an?\s+$", sentence[:start], re.IGNORECASE) and re.match(r"\s+[a-z]", after):
            continue  # "an Oscar winner", "a US firm": a name used to describe a noun, not the answer
        if _AFFILIATES.match(after):
            continue  # "two former Yahoo employees", "Apple engineers": whose people they are, not the actor
        out.append((start, " ".join(words)))
    return out


def _in_question(span: str, question_folded: str) -> bool:
    """Half or more of the span's words (stemmed) are the question's own: the question's entity, restated
    ("21st Century Fox's" for "20th Century Fox"), not its answer."""
    words = [w for w in analyze(re.sub(r"['’]s\b", "", span)) if w not in _NOT_NAMES]
    asked = set(analyze(question_folded))
    return bool(words) and 2 * sum(1 for w in words if w in asked) >= len(words)


def _date_in_question(span: str, question: str, question_folded: str) -> bool:
    """A date the question states itself: the same day or month however spelled; a bare year (or decade) by
    its words. Not by words for a full date: "May" is a stop word, so "May 5, 2020" would read as half the
    question's for "the Golden Globe Awards 2020" and a rival date of a counterfactual source would vanish
    (RGB en_fact tune: two conflicts missed this way)."""
    key = date_key(span)
    if key is None:
        return _in_question(span, question_folded)
    # month names are matched capitalised (lower-case "may" is a verb); a question typed in lower case still names its date
    return key in date_keys(question) or key in date_keys(question.title())


# An embedded post's byline, "— Adrian Wojnarowski (@wojespn) June 20, 2020": the date it was posted, not a date
# it reports (RGB en_fact tune: the 2020 NBA Draft's negatives-only page stated that tweet's date as the draft's).
_POSTED = re.compile(r"\(@\w+\)\s*$")


def answer_spans(sentence: str, atype: AnswerType, question: str, ordinary: Collection[str] = ()) -> list[str]:
    """Spans of ``sentence`` of type ``atype`` that the question does not already contain, best first
    (for places, names after "in"/"at"/"from" first; for people, names that are not organisations first
    only in order of appearance — "who" is asked of both). ``ordinary``: see :func:`_names`."""
    folded = question.casefold()
    if atype == "licence":
        return list(dict.fromkeys(m.group(0) for m in _LICENCE.finditer(sentence)))
    if atype == "version":
        return [m.group(0) for m in _VERSION.finditer(sentence) if not _in_question(m.group(0), folded)]
    if atype == "date":
        spans = [m.group(0) for m in _DATE.finditer(sentence) if not _POSTED.search(sentence[:m.start()])]
        return [s for s in spans if not _date_in_question(s, question, folded)]
    if atype == "number":
        dates = [m.span() for m in _DATE.finditer(sentence) if re.search(r"[A-Za-z]", m.group(0))]
        found = [m for m in _NUMBER.finditer(sentence)
                 if not any(a <= m.start() < b for a, b in dates) and not re.fullmatch(r"(?:1[5-9]|20)\d{2}", m.group(0))]
        if _MEASURE_Q.search(" ".join(folded.split())):
            found = [m for m in found if _labelled_number(sentence, m, folded)]
        return [m.group(0) for m in found if not _in_question(m.group(0), folded)]
    if atype in ("person", "place", "entity"):
        found = [(start, name) for start, name in _names(sentence, ordinary) if not _in_question(name, folded)]
        if atype == "place":
            if re.match(r"^\s*where\b|.*\blocation\b", folded):  # "where": the name after "in"/"at" first
                found.sort(key=lambda p: (not _PLACE_CUE.search(sentence[:p[0]]), p[0]))
            # "Tampa, Florida": a city and its state read as one place
            merged = []
            for start, name in found:
                tail = sentence[start + len(name):]
                nxt = re.match(r",\s+([A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)", tail)
                merged.append(f"{name}, {nxt.group(1)}" if nxt else name)
            return _outermost(merged)
        held = stored_object(question)
        if held is not None:
            return _outermost(_holders(sentence, held, folded, [name for _, name in found]))
        return _outermost([name for _, name in found])
    return []


def _labelled_number(sentence: str, m: re.Match[str], folded: str) -> bool:
    """A setting's value sits next to its name: "damping 0.5", "flagged 50", "RRF k = 60", "(pool_size,
    default 4)". A number two words or more from every word of the question is some other count ("holds 2
    connections", "so one click") — for a question about a setting, not its answer."""
    asked = set(analyze(folded)) - {"default"}
    before = re.findall(r"[\w.-]+", sentence[:m.start()])[-2:]
    after = re.findall(r"[\w.-]+", sentence[m.end():])[:1]
    return any(set(analyze(w)) & asked for w in (*before, *after))


def stored_object(question: str) -> list[str] | None:
    """The words of what a "where is X kept" question asks about ("keyword index"), or None for another
    question."""
    m = _STORE_Q.search(" ".join(question.split()))
    if not m or not re.match(r"^(?:what|where|which|in what|in which)\b", question.strip(), re.IGNORECASE):
        return None
    return m.group("object").casefold().split()


def _holders(sentence: str, held: list[str], folded: str, names: list[str]) -> list[str]:
    """The spans that can hold ``held`` (the question's object): names that are not methods (tantivy holds a
    keyword index; BM25 is how it scores), lower-case system names written as the object's modifier ("a
    tantivy BM25 index", "the keyword index (tantivy)") and file names after "in"."""
    head = re.escape(held[-1].rstrip("s"))
    found = [(sentence.find(n), n) for n in names if n.casefold() not in _METHODS]
    for m in re.finditer(rf"\b([a-z][\w-]*[a-z0-9])\s+(?:[\w-]+\s+)?{head}s?\b", sentence):
        word = m.group(1)
        if (word.casefold() not in _NOT_NAMES and word.casefold() not in _METHODS and not _ADJECTIVE.search(word)
                and not word.startswith("per-") and not _in_question(word, folded)):
            found.append((m.start(1), word))
    for m in re.finditer(rf"\b{head}s?\s*\(([a-z][\w.-]*)\)", sentence):
        found.append((m.start(1), m.group(1)))
    files = [(m.start(1), m.group(1)) for m in re.finditer(rf"\bin\s+({_FILE.pattern})", sentence)]
    # a file named after what it holds ("telemetry.sqlite" for telemetry records) still names the holder
    return [n for _, n in sorted([*(f for f in found if not _in_question(f[1], folded)), *files])]


def _outermost(spans: list[str]) -> list[str]:
    """Distinct spans, dropping any that only repeat part of an earlier one ("Florida" after "Tampa, Florida")."""
    out: list[str] = []
    for span in dict.fromkeys(spans):
        if not any(span in kept for kept in out):
            out.append(span)
    return out


def choices(question: str) -> list[str]:
    """The compared names of a comparison ("X vs Y", "X or Y", "between X and Y"), as written."""
    m = re.search(r"([\w.+#-]+(?:\s+[A-Z][\w.+#-]*)*)\s+(?:vs\.?|versus|or|and|compared (?:to|with))\s+"
                  r"([\w.+#-]+(?:\s+[A-Z][\w.+#-]*)*)", question)
    if not m:
        return []
    out = []
    for side in (m.group(1), m.group(2)):
        words = side.split()
        while len(words) > 1 and words[0][:1].islower():
            words = words[1:]  # "compare LangChain" → "LangChain"
        out.append(" ".join(words))
    return out
