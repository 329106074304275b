"""Format directives: use, mention and refusal of format words in nine languages, typos, and tier 1 abstaining."""

from __future__ import annotations

import time

import pytest

from groundsearch.query.intent.directives import fold, read_directive


def d(q):
    return read_directive(q)


@pytest.mark.parametrize(
    ("query", "fmt", "subtype"),
    [
        ("list the agent releases as a table", "table", None),
        ("las versiones nuevas en una tabla, por favor", "table", None),
        ("les sorties récentes sous forme de tableau", "table", None),
        ("bitte die Paper als Tabelle", "table", None),
        ("as versões recentes numa tabela", "table", None),
        ("le versioni nuove in una tabella", "table", None),
        ("de nieuwe versies in een tabel", "table", None),
        ("请用表格展示新版本", "table", None),
        ("新しいバージョンを表にまとめてください", "table", None),
        ("ring chart of the venues", "chart", "donut"),
        ("gráfico de barras apiladas por mes", "chart", "stacked-bar"),
        ("Kreisdiagramm nach Registry", "chart", "pie"),
        ("taartgrafiek per registry", "chart", "pie"),
        ("grafico a torta per rivista", "chart", "pie"),
        ("按月的论文折线图", "chart", "line"),
        ("論文の円グラフ", "chart", "pie"),
        ("tijdlijn van alle releases", "timeline", None),
        ("Zeitstrahl aller Releases", "timeline", None),
        ("sankeydiagramm der Abschnitte", "chart", "sankey"),
        ("a chart of papers per month", "chart", "line"),
        ("top 5 products as a chart", "chart", "ranked-bar"),
        ("graph of how the vector stores relate to each other", "graph", None),
    ],
)
def test_used_words_in_every_language(query, fmt, subtype):
    got = d(query)
    assert (got.format, got.chart_subtype, got.sure, got.evidence) == (fmt, subtype, True, "used")


@pytest.mark.parametrize(
    ("query", "subtype"),
    [("tabel of releases", None), ("piechrat of venues", "pie"), ("histogrm of ranks", "histogram"),
     ("scattreplot of ranks", "scatter"), ("heat map by weekday", "heatmap"), ("wordcloud of titles", "word-cloud")],
)
def test_one_typo_or_a_split_word_still_reads(query, subtype):
    got = d(query)
    assert got.format == ("chart" if subtype else "table") and got.chart_subtype == subtype


@pytest.mark.parametrize("query", ["stable releases of langchain", "chat about the papers", "a course on RAG",
                                   "the latest donor report", "label noise papers"])
def test_real_words_near_a_format_word_are_not_typos(query):
    assert d(query).format == "default"


@pytest.mark.parametrize(("query", "fmt"), [
    ("make me slides about the RAG papers", "default"), ("summarise the langchain releases, sliced by month", "default"),
    ("papers about pilots of retrieval agents", "default"), ("open slots in the release plan?", "default"),
    ("a timeline of the langchain releases for my slides", "timeline")])
def test_words_one_edit_from_a_kind_name_are_not_that_kind(query, fmt):
    """"slides" is one edit from "slices" (a pie): "a timeline … for my slides" came back as a pie chart."""
    got = d(query)
    assert got.format == fmt and got.chart_subtype is None


@pytest.mark.parametrize(
    "query",
    ["no tables, tell me what shipped", "sin gráficos por favor, solo texto", "pas de tableau pour ça",
     "ohne Tabelle, nur Text", "sem tabela por favor", "niente grafici, solo testo", "geen tabel alsjeblieft",
     "不要图表，直接回答", "グラフはいらない、説明だけ", "no charts or tables, prose only"],
)
def test_refused_formats_give_no_format(query):
    got = d(query)
    assert (got.format, got.evidence, got.sure) == ("default", "refused", True)


def test_a_refused_verb_refuses_its_object():
    # found on the held-out split after its figures were recorded (bench-intent.md), fixed afterwards
    assert d("please don't make a table of it").evidence == "refused"
    assert d("no pie, use a bar chart").chart_subtype == "bar"


def test_a_refusal_ends_at_the_clause_and_the_next_wish_counts():
    assert (d("not a pie, a bar chart of venues").chart_subtype) == "bar"
    assert d("no table — put it on a timeline").format == "timeline"


@pytest.mark.parametrize(
    "query",
    ["table of contents of the ingest guide", "graph neural networks for ranking", "what is a waterfall chart",
     "how do I add a table to the settings", "papers on tabular data augmentation", "was ist ein Kreisdiagramm?",
     "qu'est-ce qu'un histogramme ?", "什么是热力图？", "ヒストグラムとは", "when should I use a pie chart"],
)
def test_mentioned_formats_are_topics_not_wishes(query):
    got = d(query)
    assert got.format == "default" and got.evidence == "mentioned" and got.sure


@pytest.mark.parametrize(("query", "subtype"), [("grafico a settori delle riviste", "pie"),
                                              ("diagramme en bulles des revues", "bubble"),
                                              ("gráfica de embudo de artículos", "funnel")])
def test_a_chart_word_of_a_kind_noun_names_that_kind(query, subtype):
    got = d(query)
    assert (got.format, got.chart_subtype) == ("chart", subtype) and " " in got.requested


def test_named_kinds_keep_the_users_words_and_unknown_kinds_are_other():
    got = d("violin plot of release gaps")
    assert (got.format, got.chart_subtype, got.requested) == ("chart", "other", "violin plot")
    assert d("diagrama de Gantt de las versiones").requested == "diagrama de Gantt"


def test_unsure_readings_abstain_with_candidates():
    para = d("one row per product please")
    assert not para.sure and para.evidence == "paraphrase" and "table" in para.candidates
    bare = d("does ingest keep tables from pdfs")  # a question about tables, or a wish? tier 2 decides
    assert not bare.sure and bare.candidates == ("table",)
    assert d("what is new in langchain").evidence == "none"


@pytest.mark.parametrize(
    ("query", "fmt"),
    [
        # one row per thing, singular, outside English (heldout12 missed three such: "una riga per ogni articolo")
        ("necesito una fila por producto y su última versión", "table"),
        ("fais-moi une ligne par auteur avec ses articles", "table"),
        ("bitte pro Paket eine Zeile pro Version", "table"),
        ("quero uma linha por produto, com a data", "table"),
        # the node-link shape described with no graph word (heldout12: "each author one circle, and lines when")
        ("the packages as nodes, one per package, cited together or not", "graph"),
        ("I want a web of which authors share papers", "graph"),
        # oldest-to-newest described with no timeline word (heldout12: "the first one at the start and the newest")
        ("the pymc releases from oldest to newest with their dates", "timeline"),
        ("las versiones del más antiguo al más reciente", "timeline"),
    ],
)
def test_described_shapes_make_tier_1_abstain_with_their_format(query, fmt):
    got = d(query)
    assert not got.sure and got.evidence == "paraphrase" and fmt in got.candidates, (got.evidence, got.candidates)


def test_fold_keeps_one_character_per_character():
    for text in ("Gráfico de Dispersão", "Säulendiagramm", "ŁÓDŹ-style chart", "表にまとめて"):
        assert len(fold(text)) == len(" ".join(text.split()))


def test_tier_one_is_fast():
    """Microseconds per request; the bench (tests/intent/bench_intent.py) measures p99 on a quiet machine."""
    queries = ["muéstrame los últimos lanzamientos en una tabla", "what is a tornado diagram",
               "最新のリリースを表にまとめて", "stacked bar chart of releases per month"] * 50
    d(queries[0])
    started = time.process_time()
    for q in queries:
        d(q)
    assert (time.process_time() - started) / len(queries) < 0.005  # generous: CPU time, shared machine


@pytest.mark.parametrize(
    ("query", "fmt", "subtype"),
    [
        # misses of the third held-out split (so no longer blind rows), each a general reading
        ("top 10 products by popularity, as a bar chart", "chart", "ranked-bar"),
        ("make a cross-tab of section vs venue", "table", None),
        ("a dependency graph of the llama-index packages", "graph", None),
        ("diagrama de rede das ligações entre os artigos", "graph", None),
        ("muéstrame las conexiones entre los artículos de recuperación", "graph", None),
        ("slope graph comparing popularity ranks in august vs october", "chart", "other"),
        ("parallel sets chart of section, venue and year", "chart", "other"),
        ("knowledge graph papers for retrieval augmentation", "default", None),
        ("don't bother with a chart, which venue has the most papers?", "default", None),
        ("hoe maak ik een tabel in de configuratie?", "default", None),
        ("come faccio una tabella nella configurazione?", "default", None),
        ("how are LangChain, LlamaIndex and Haystack related — show the connections", "graph", None),
        ("which papers are related to RAG?", "default", None),
    ],
)
def test_heldout3_readings(query, fmt, subtype):
    got = d(query)
    assert (got.format, got.chart_subtype) == (fmt, subtype)


def test_a_timeline_word_followed_by_a_when_question_asks_for_a_date():
    assert d("the timeline of the v2 migration: when does v1 stop working?").format == "default"
    assert d("the timeline for deprecating v1 — when will it stop working?").format == "default"
    # the question before the word, or a wish after it, leaves the timeline asked for
    assert d("when did LLaMA come out? show a timeline").format == "timeline"
    assert d("what happened when, for the reranking papers? timeline please").format == "timeline"
    assert d("timeline of the LLaMA papers").format == "timeline"


def test_a_timeline_for_doing_something_is_a_schedule_unless_a_verb_asks_for_one():
    assert d("the timeline for deprecating the v2 endpoints").format == "default"
    assert d("what's the timeline for removing the old config keys").format == "default"
    assert d("make a timeline for tracking the agent releases").format == "timeline"
    assert d("the timeline of the reranker releases").format == "timeline"


@pytest.mark.parametrize(
    ("query", "fmt"),
    [
        ("stell die neuen Releases tabellarisch dar", "table"),
        ("stellt die SIGIR-Paper als Zeitleiste dar", "timeline"),
        ("liste die Agent-Releases tabellarisch auf", "table"),
        ("fass die RAG-Paper tabellarisch zusammen", "table"),
        ("stell die Releases pro Monat grafisch dar", "chart"),
        ("Paper über grafisch ontwerp", "default"),
    ],
)
def test_german_verbs_split_around_their_object_put_the_format_word_to_use(query, fmt):
    got = d(query)
    assert got.format == fmt and got.sure


@pytest.mark.parametrize(
    ("query", "fmt", "subtype"),
    [
        # a correction: what follows it is the wish
        ("a bar chart of releases per month, actually make it a line chart", "chart", "line"),
        ("gráfico de barras por sede, mejor dicho un gráfico circular", "chart", "pie"),
        ("pie chart of the venues", "chart", "pie"),
        # ranking verbs and ranking words in other languages
        ("rank the products by how many releases they had, as bars", "chart", "ranked-bar"),
        ("classement des produits par nombre de versions en diagramme en barres", "chart", "ranked-bar"),
        ("bar chart of popularity rank per product", "chart", "bar"),
        # a network by its other names, and relation words in every language
        ("the venues and authors as a node-link diagram", "graph", None),
        ("las relaciones entre autores como grafo", "graph", None),
        ("zeig die Verbindungen zwischen den Autoren als Graph", "graph", None),
        # a qualifier glued to a format noun
        ("eine Vergleichstabelle der Reranker-Releases", "table", None),
        ("maak een overzichtstabel van de papers", "table", None),
        ("Hashtabelle in der Doku", "default", None),
        ("ohne Tabelle, nur Text", "default", None),
        # what a chart kind is for, asked in Chinese and Japanese
        ("饼图有什么用？", "default", None),
        ("ヒートマップの読み方を教えて", "default", None),
        # a schedule is not a timeline
        ("is there a migration timeline for the old config keys?", "default", None),
        ("timeline of the migration guides", "timeline", None),
    ],
)
def test_heldout4_error_classes(query, fmt, subtype):
    got = d(query)
    assert (got.format, got.chart_subtype) == (fmt, subtype)


# Classes of the final blind split's misses (heldout5, read after its one measurement), each checked on sentences
# of our own rather than its rows: modal requests, want-verbs inside a refusal, impersonal and CJK how-to
# questions, CJK "into a table" verbs, a network word glued to a chart word, more named kinds, and no typo
# reading across two real words.
@pytest.mark.parametrize(
    ("query", "fmt", "subtype"),
    [
        ("kannst du die Releases tabellarisch auflisten?", "table", None),
        ("pourrais-tu mettre les papiers ICLR dans un tableau ?", "table", None),
        ("eu não quero gráfico, só a lista dos autores", "default", None),
        ("non voglio una tabella, dimmi solo chi ha scritto BERT", "default", None),
        ("come si fa una tabella in Excel?", "default", None),
        ("¿cómo se hace un gráfico en Excel?", "default", None),
        ("如何在Word里插入表格", "default", None),
        ("把这些版本整理成表", "table", None),
        ("netwerkgrafiek van de auteurs", "graph", None),
        ("waffle chart of releases per registry", "chart", "other"),
        ("dumbbell plot of papers 2023 vs 2024", "chart", "other"),
        ("could you like plot the releases per month as a bar chart", "chart", "bar"),
    ],
)
def test_heldout5_classes(query, fmt, subtype):
    d = read_directive(query)
    assert (d.format, d.chart_subtype) == (fmt, subtype), d


# Session 4's known misses, as classes on sentences of our own: a capability question about the product is not
# a wish (the user expects to be told whether it can, not a chart of nothing in particular); a surface
# preposition with an indefinite article lays the list on the format ("su una linea temporale" — "su" is also
# "about", but not before "una"); a typo of a graph word next to a relation is a network.
@pytest.mark.parametrize(
    ("query", "fmt", "subtype"),
    [
        ("can the app draw sankey diagrams?", "default", None),
        ("does the search page support pie charts?", "default", None),
        ("can you make treemaps?", "default", None),
        ("can it draw donut charts? if yes, one of releases per vendor", "chart", "donut"),
        ("can you draw a heatmap of papers per venue per year?", "chart", "heatmap"),
        ("can the page show the releases as a table?", "table", None),
        ("le release di PyTorch su una linea temporale", "timeline", None),
        ("les versions de PyTorch sur une frise chronologique", "timeline", None),
        ("articoli su reti neurali a grafo", None, None),  # "su" without an article: about
        ("a grpah of how the vendors link to each other", "graph", None),
    ],
)
def test_session4_classes(query, fmt, subtype):
    d = read_directive(query)
    if fmt is None:
        assert d.format == "default" or not d.sure, d
    else:  # and sure: tier 1 claims these, the classifier is not needed
        assert (d.format, d.chart_subtype, d.sure) == (fmt, subtype, True), d


# Classes of heldout6's misses (read after its blind measurement), on sentences of our own: a chart kind
# described by its look instead of named; a spreadsheet tool as the wished format ("in Excel"), but not in a
# how-to; chart emoji; more kind words (Kuchendiagramm, barre in pila, a singular "barra"); a timeline that is the
# subject of a clause; a refusal reaching across "anything fancy like"; knowledge-graph QA and graph theory as
# topics; counts per year are a line.
@pytest.mark.parametrize(
    ("query", "fmt", "subtype"),
    [
        ("bars pointing both directions: vendors 2025 against 2026", "chart", "tornado"),
        ("a pie with a hole in the centre, papers per section", "chart", "donut"),
        ("nested rectangles for the releases of each vendor", "chart", "treemap"),
        ("a spiderweb comparing the three labs", "chart", "radar"),
        ("overlapping circles of authors in ACL and NAACL", "chart", "venn"),
        ("releases per quarter with the vendors stacked", "chart", "stacked-bar"),
        ("stars per month as boxes with whiskers", "chart", "box"),
        ("lines filled underneath for downloads over time", "chart", "area"),
        ("un gráfico con círculos que se superponen de autores", "chart", "venn"),
        ("the team lead needs the release list in Excel", "table", None),
        ("how do I freeze a row in Excel?", "default", None),
        ("如何在Excel里合并单元格", "default", None),
        ("📈 downloads per week", "chart", "line"),
        ("Tortengrafik der Releases je Anbieter", "chart", "pie"),
        ("grafica de barra de artículos por venue", "chart", "bar"),
        ("our release timeline is tight — which paper matters most?", "default", None),
        ("I don't want anything fancy like a table, only the author names", "default", None),
        ("knowledge graph completion papers from ACL", "default", None),
        ("libros de teoría de grafos", "default", None),
        ("chart the releases by year", "chart", "line"),
    ],
)
def test_heldout6_classes(query, fmt, subtype):
    d = read_directive(query)
    assert (d.format, d.chart_subtype) == (fmt, subtype), d
