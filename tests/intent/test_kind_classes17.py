"""Chart-kind classes heldout24/25 showed the kind step missing (session 17), each tested on sentences written
here, not the splits': a chart of no named kind whose count runs along a time axis is a line even where the
classifier chose bars (per month, per year, since a year, over the years, in the nine languages), and a
periodic report is no time axis; any superlative first ("tallest first", "most popular first") ranks the bars,
a date first ("newest first") does not; a kind the schema has no name for stays ``other`` with the user's words
when a German chart word follows its name with a hyphen ("Lollipop-Diagramm") or a Romance one precedes it
("gráfico de mancuernas", dumbbells), instead of the near kind the classifier picks (ranked bar, tornado)."""

from __future__ import annotations

import pytest

from groundsearch.query.intent.directives import fold, read_directive
from groundsearch.query.intent.kinds import over_time, ranks

from .test_kind_classes import _chart, _step

_BARS = {"bar": 6.0, "line": 1.0}  # a classifier sure of plain bars


@pytest.mark.parametrize(
    "query",
    [
        "could you chart how many libraries shipped a release each month since March?",
        "a visual of the number of preprints per year, for the grant proposal",
        "een grafiek met het aantal papers per jaar",
        "ein Diagramm: wie viele Pakete pro Monat veröffentlicht wurden",
        "un graphique du nombre de versions par mois",
        "muéstrame en un gráfico cuántos modelos salieron cada año",
        "fammi un grafico dei rilasci al mese",
        "visualise the downloads over the years",
        "chart the paper count since 2021",
        "chart the releases between 2019 and 2024",
        "plot how the package count moved week over week",
        "请用图表显示每月的发布数量",
        "月ごとのリリース数をグラフにして",
    ],
)
def test_a_count_along_a_time_axis_is_a_line_where_the_classifier_chose_bars(query):
    assert over_time(fold(query))
    out, notes = _step(_BARS).refine(query, _chart("bar", None))
    assert out.chart_subtype == "line" and out.chart_requested is None and not notes


@pytest.mark.parametrize(
    "query",
    [
        "chart the releases per vendor in 2024",
        "a visual of how many papers each lab published this year",
        "for the quarterly board report, chart the releases per registry",
        "draw the number of models per organisation",
    ],
)
def test_a_count_per_category_stays_bars(query):
    assert not over_time(fold(query))
    assert _step(_BARS).refine(query, _chart("bar", None))[0].chart_subtype == "bar"


def test_a_named_kind_or_a_refused_line_is_not_turned_into_a_line():
    step = _step(_BARS)
    # plain bars named: refined among the bar-shaped kinds only
    assert step.refine("a bar chart of releases per month", _chart("bar", "bar chart"))[0].chart_subtype == "bar"
    # a line refused: the bars asked instead stand
    assert step.refine("no line chart this time, show the releases per month",
                       _chart("bar", None))[0].chart_subtype == "bar"


@pytest.mark.parametrize(
    "query",
    [
        "turn the download counts per package into something visual, tallest first",
        "chart the labs by model count, most prolific first",
        "graph the frameworks, the busiest ones first",
        "montre en graphique les publications par conférence, du plus grand nombre au plus petit",
    ],
)
def test_any_superlative_first_ranks_the_bars(query):
    assert ranks(fold(query))
    step = _step({"bar": 6.0, "ranked-bar": 1.0})
    assert step.refine(query, _chart("bar", None))[0].chart_subtype == "ranked-bar"


@pytest.mark.parametrize("query", ["chart the releases per vendor, newest first", "plot the papers, latest first",
                                   "chart the venues, the biggest first"])
def test_a_date_first_orders_nothing_by_count(query):
    # "newest"/"latest" order by date; "the biggest first" is the orderings' own entry (ranks, kept)
    assert ranks(fold(query)) == ("biggest" in query)


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ("Ein Lollipop-Diagramm der Downloads der fünf größten Pakete", "Lollipop-Diagramm"),
        ("Zeig mir ein Hantel-Diagramm der Ränge 2022 und 2024", "Hantel-Diagramm"),
        ("Un gráfico de mancuernas con las descargas de 2022 y 2024", "gráfico de mancuernas"),
        ("Um gráfico de halteres com as versões de 2022 e 2024", "gráfico de halteres"),
        ("Un grafico a manubri dei rilasci 2022 contro 2024", "grafico a manubri"),
    ],
)
def test_a_kind_the_schema_has_no_name_for_stays_other_with_the_users_words(query, said):
    d = read_directive(query)
    assert (d.format, d.chart_subtype, d.requested) == ("chart", "other", said)
    # the kind step keeps it: no near kind (a tornado, a ranked bar) is guessed for it
    step = _step({"tornado": 6.0, "ranked-bar": 5.0})
    assert step.refine(query, _chart("other", said))[0].chart_subtype == "other"
