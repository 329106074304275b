"""Chart kinds the product has no word for, or that a request describes instead of naming, in nine languages.

Sentences of our own (other wordings and languages than any labelled split): a kind described by its look is
that kind; a kind named with a word the lexicon does not know ("<word> plot", "Geigendiagramm",
"バイオリンプロット") is ``other`` with the user's words, so the response can downgrade it out loud; a data
noun or an adjective in front of a chart word is not a kind; a named bar over time stays a bar.
"""

from __future__ import annotations

import pytest

from groundsearch.query.intent.directives import fold, read_directive
from groundsearch.query.intent.format_step import FormatStep
from groundsearch.query.intent.kinds import NAMES

from .test_format_step import FixedClassifier


@pytest.mark.parametrize(
    ("query", "subtype"),
    [
        # stacked: bars cut into parts
        ("each bar cut into coloured pieces by product, releases per month", "stacked-bar"),
        ("bars divided into segments for every vendor, papers per year", "stacked-bar"),
        ("barras divididas en segmentos por venue, artículos por año", "stacked-bar"),
        ("Balken in farbige Abschnitte unterteilt, Releases pro Monat nach Produkt", "stacked-bar"),
        # sankey: bands or streams whose width is a count, from one thing to another
        ("a diagram where ribbons run from each product to its month, thicker for more releases", "sankey"),
        ("thick streams flowing from vendors into years", "sankey"),
        ("un graphique avec des flux des sections vers les venues, largeur = nombre d'articles", "sankey"),
        ("Bänder, die von den Abschnitten zu den Venues fließen", "sankey"),
        # waterfall: a running total stepping up and down
        ("a chart that begins with the total and shows every rise and fall as a step", "waterfall"),
        ("un gráfico que parte del total y muestra cada subida y bajada", "waterfall"),
        # gantt: bars from a start to an end on a time axis
        ("horizontal bars over a time axis for each product", "gantt"),
        ("a bar per package from the month it began to the month it ended", "gantt"),
        ("barras desde el inicio hasta el fin de cada producto", "gantt"),
        # bubble: circles sized by a value
        ("circles sized by popularity for each product", "bubble"),
        ("dots whose size is the number of releases, one per month", "bubble"),
        ("bolle grandi quanto il numero di release per mese", "bubble"),
        ("用气泡大小表示每个月的发布数量", "bubble"),
        # treemap, heatmap, funnel, histogram, radar, ranked bars
        ("tiles sized by how many releases each vendor has", "treemap"),
        ("a grid where darker cells mean more papers, venue against year", "heatmap"),
        ("a chart narrowing stage by stage from submitted to accepted papers", "funnel"),
        ("a chart of popularity ranks grouped into bins", "histogram"),
        ("a chart with one spoke per criterion for each lab", "radar"),
        ("bars sorted from longest to shortest, releases per vendor", "ranked-bar"),
        # the same shapes in other languages, and bars on a time axis read as a timeline word
        ("un graphique où les barres partent du total et montent ou descendent", "waterfall"),
        ("un gráfico con barras que empiezan donde termina la anterior", "waterfall"),
        ("des barres horizontales sur un axe du temps, du début à la fin de chaque paquet", "gantt"),
        ("Kreise, die sich überschneiden, für Autoren in beiden Venues", "venn"),
        ("cirkels die overlappen voor auteurs in beide venues", "venn"),
        ("um gráfico com faixas que fluem das seções para as venues", "sankey"),
        ("bolle proporzionali al numero di release per mese", "bubble"),
        ("a map of the world coloured by where the authors are", "choropleth"),
        ("a chart where the words get bigger the more often they appear in titles", "word-cloud"),
        ("a mirrored bar chart of 2023 against 2024 per section", "tornado"),
        ("a pie with layers: venue inside, year outside", "sunburst"),
        ("a chart of the median and quartiles of popularity per product", "box"),
        ("a line with the area under it shaded, releases over time", "area"),
        ("concentric circles: venue inside, year outside", "sunburst"),
        ("a chart shaped like a spider's web comparing sections", "radar"),
        ("percentages in a circle for each venue", "pie"),
        ("dots connected by lines, releases per month", "line"),
        ("a line for each venue over the years", "line"),
        ("das Diagramm mit den Kästen und Antennen für die Popularität pro Monat", "box"),
        ("bars that go left for 2023 and right for 2024", "tornado"),
        ("el de los círculos que se solapan: autores de SIGIR y EMNLP", "venn"),
        ("上から下へだんだん狭くなるグラフ", "funnel"),
    ],
)
def test_a_kind_described_by_its_look_is_that_kind(query, subtype):
    d = read_directive(query)
    assert (d.format, d.chart_subtype, d.sure) == ("chart", subtype, True), d
    # named back as the kind, with the user's own words for it: 'Sankey diagram ("ribbons run")'
    name, _, said = d.requested.partition(' ("')
    assert name == NAMES[subtype] and said.endswith('")') and fold(said[:-2]) in fold(query), d.requested


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ("a lollipop plot of papers per venue", "lollipop plot"),
        ("a spaghetti plot of releases per product", "spaghetti plot"),
        ("draw a stem and leaf chart of the popularity ranks", "stem and leaf"),
        ("fishbone diagram of the failure causes", "fishbone diagram"),
        ("a Voronoi diagram of the venues", "Voronoi diagram"),
        ("a burndown chart of open issues", "burndown chart"),
        ("can you make a hive plot of the co-authors", "hive plot"),
        ("a flowchart of the ingest steps", "flowchart"),
        ("Geigendiagramm der Popularität pro Produkt", "Geigendiagramm"),
        ("vioolplot van de populariteit per product", "vioolplot"),
        ("gráfico de velas de los lanzamientos por mes", "gráfico de velas"),
        ("diagramme en violon de la popularité", "diagramme en violon"),
        ("grafico a candele delle release", "grafico a candele"),
        ("diagrama de caule e folhas da popularidade", "diagrama de caule"),
        ("小提琴图：各产品的热度", "小提琴图"),
        ("バイオリンプロットで製品ごとの人気度", "バイオリンプロット"),
        ("ローソク足チャートでリリース数を見たい", "ローソク足"),
    ],
)
def test_a_kind_with_no_name_in_the_product_is_other_with_the_users_words(query, words):
    d = read_directive(query)
    assert (d.format, d.chart_subtype) == ("chart", "other"), d
    assert d.requested is not None and fold(words) in fold(d.requested), d


@pytest.mark.parametrize(
    "query",
    [
        "a quick chart of papers per venue",
        "the venue chart please",
        "a comparison chart of 2023 vs 2024 papers",
        "a monthly release chart",
        "a popularity chart of the products",
        "a simple plot of releases by year",
        "an adoption chart of agent frameworks",
        "a release cadence chart for LangChain",
        "the ICLR chart please",
        "a LangChain chart",
        "could you plot the releases per month",
        "let me plot them per venue",
        "Jahresdiagramm der Papers",
        "un gráfico de lanzamientos por mes",
        "人気度のグラフ",
    ],
)
def test_an_adjective_or_a_data_noun_before_a_chart_word_is_not_a_kind(query):
    d = read_directive(query)
    assert d.format == "chart" and d.chart_subtype != "other", d


@pytest.mark.parametrize(
    "query",
    [
        "papers on stacked generalization",
        "how does data flow from the crawler to the index?",
        "which product started and stopped releasing in 2024?",
        "what is the total and how big was each increase?",
        "papers about bubble detection in financial markets",
        "papers about maps coloured by region",
        "what is the area under the curve of the reranker?",
    ],
)
def test_look_words_without_a_chart_are_not_a_chart(query):
    assert read_directive(query).format == "default", read_directive(query)


@pytest.mark.parametrize(
    ("query", "subtype"),
    [
        ("grafico de dispesion de fecha contra popularidad", "scatter"),
        ("diagramme en secteur des venues", "pie"),
        ("gráfico de burbuja por mes", "bubble"),
        ("Stapeldiagramm der Releases pro Monat nach Produkt", "stacked-bar"),  # a German name, not a typo
        ("grafico a tortaa delle venue", "pie"),
        ("gráfico de barras apilado por año", "stacked-bar"),
    ],
)
def test_a_typo_in_a_kind_noun_or_a_glued_kind_name_still_names_the_kind(query, subtype):
    assert read_directive(query).chart_subtype == subtype


@pytest.mark.parametrize(
    ("query", "subtype"),
    [
        ("a bar chart of releases per month, most of them are from langchain", "bar"),
        ("show the papers per year as a bar chart — I think most of them are from 2024", "bar"),
        ("top 5 vendors by number of releases as a bar chart", "ranked-bar"),
    ],
)
def test_a_named_bar_ranks_only_when_the_request_ranks(query, subtype):
    assert read_directive(query).chart_subtype == subtype


def test_a_timeline_without_bars_stays_a_timeline():
    for q in ("a timeline of the releases from start to end of 2024", "timeline of each package's releases"):
        assert read_directive(q).format == "timeline", q


def test_the_classifier_path_reads_the_kind_from_its_look_too():
    # no chart word, so tier 1 is sure of no format; a classifier that overrules it to a chart must still give the
    # kind the request describes, not the house default for "a chart"
    from groundsearch.query.intent.directives import kind_from_text

    q = "start from the total and show each increase and decrease as a step"
    assert read_directive(q).format == "default"
    assert kind_from_text(q)[0] == "waterfall"
    step = FormatStep(lambda: FixedClassifier({"chart": 0.99, "default": 0.01}))
    decision, _ = step.decide(q, read_directive(q))
    assert (decision.format, decision.chart_subtype) == ("chart", "waterfall"), decision
    assert decision.chart_requested and decision.chart_requested.startswith("waterfall chart")
