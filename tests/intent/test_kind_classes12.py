"""Chart-kind classes heldout16/17 showed the kind step missing (session 12), each tested on sentences written here,
not the splits': a ranking said without "top" makes bars (named or the house's) a ranked bar the classifier cannot
take back, and its false friends stay bars or lines; a chart asked for "as a line" is a line; the part of a whole
each category is a pie; a refused kind is never the classifier's answer; one circle cut into slices is a pie, not
a bubble; a stacked area is an area chart; kind names of Kazakh, Macedonian, Irish and Uzbek."""

from __future__ import annotations

import pytest

from groundsearch.query.intent.directives import fold, read_directive
from groundsearch.query.intent.kind_model import KindStep, choices, refused_kinds, standing
from groundsearch.query.intent.kinds import ranks

from .test_kind_classes import _chart, _step


@pytest.mark.parametrize(
    "query",
    [
        "which vendors put out the most releases? rank them visually",
        "show the venues by paper count, biggest first",
        "a chart of the registries, most to least releases",
        "papers per venue from biggest to smallest as a picture",
        "horizontal bar chart ranking the vector databases by releases",
        "which labs shipped most often last year - rank them",
        "the frameworks in order of how many releases they had, as a chart",
        "a leaderboard of the authors by papers",
        "ordena los proveedores de mayor a menor en un gráfico",
        "classez les éditeurs par nombre de versions dans un graphique",
        "die Anbieter absteigend nach Releases als Diagramm",
        "i fornitori in ordine decrescente di rilasci, in un grafico",
        "de leveranciers van groot naar klein in een grafiek",
        "按发布数量给厂商排名，用图表展示",
        "ベンダーをリリース数の多い順にグラフで",
    ],
)
def test_a_ranking_without_top_makes_bars_a_ranked_bar_the_classifier_cannot_take_back(query):
    step = _step({"bar": 5.0, "line": 4.0})  # a classifier sure of plain bars, or of a line
    for decision in (_chart("bar", None), _chart("ranked-bar", None), _chart("bar", "bar chart")):
        out, notes = step.refine(query, decision)
        assert out.chart_subtype == "ranked-bar" and not notes
        assert out.chart_requested == decision.chart_requested  # the user's words are kept
    assert not step.asked(_chart("bar", None), query)  # settled by the rule: the classifier is not consulted


@pytest.mark.parametrize(
    "query",
    [
        "a chart of the rank and file papers per venue",  # the people of an organisation
        "bar chart of learning to rank papers per venue",  # a research topic
        "a chart of reciprocal rank fusion papers per year",
        "chart how the ranking of the vendors changed month by month",  # ranks over time: a line of ranks
        "bar chart of papers per venue",
        "the most cited papers per venue as a bar chart",  # a superlative is no ordering
    ],
)
def test_false_friends_of_a_ranking_order_nothing(query):
    assert not ranks(fold(query))
    assert standing(query, _chart("bar", "bar chart")) is None


@pytest.mark.parametrize("decision", [_chart("pie", "pie chart"), _chart("line", None), _chart("bar", None, tier="llm"),
                                      _chart("ranked-bar", 'ranked bar chart ("longest first")')])
def test_a_ranking_leaves_other_kinds_and_tier_3_alone(decision):
    assert standing("rank the vendors by releases, biggest first", decision) is None


def test_a_chart_asked_for_as_a_line_is_a_line():
    step = _step({"bar": 5.0})
    query = "never mind the bar chart I asked for, show it as a line over time instead"
    assert step.refine(query, _chart("bar", None))[0].chart_subtype == "line"
    assert step.refine("the releases per month, drawn as a single line", _chart("line", None))[0].chart_subtype == "line"
    # a named kind stands: "as a line" there says how its marks are joined, not which kind
    assert standing("a bar chart with the average as a line", _chart("bar", "bar chart")) is None


def test_the_part_of_a_whole_each_category_is_is_a_pie_unless_a_time_axis_is_asked():
    step = _step({"bar": 5.0})
    assert step.refine("a picture of what share of the releases each registry has", _chart("bar", None))[
        0].chart_subtype == "pie"
    assert standing("what share of the releases each registry has, per month", _chart("bar", None)) is None
    assert standing("what share of the releases each registry has", _chart("bar", "bar chart")) is None  # named bars


def test_a_refused_kind_is_never_the_classifiers_answer():
    query = "forget the bar chart from before, a chart of the releases per month instead"
    assert refused_kinds(query) == {"bar"}
    assert _step({"bar": 5.0, "line": 1.0}).refine(query, _chart("line", None))[0].chart_subtype == "line"
    assert choices((), ("bar", "line"), frozenset()) == ()  # nothing refused: every kind, as before
    assert choices(("bar", "ranked-bar"), ("bar", "ranked-bar", "line"), frozenset({"bar"})) == ("ranked-bar",)


def test_without_a_classifier_the_rules_still_settle_a_ranking():
    assert KindStep(None).refine("rank them visually", _chart("bar", None))[0].chart_subtype == "ranked-bar"


@pytest.mark.parametrize(
    ("query", "kind"),
    [
        ("the registries' shares of this year's releases as slices of one circle", "pie"),
        ("a circle cut into slices, one per venue", "pie"),
        ("circles sized by the number of papers per venue", "bubble"),  # sized, not cut: still a bubble
        ("stacked area would be best: papers per year, stacked by topic", "area"),
        ("a stacked bar chart of papers per year by topic", "stacked-bar"),
    ],
)
def test_one_circle_cut_into_slices_is_a_pie_and_a_stacked_area_an_area_chart(query, kind):
    d = read_directive(query)
    assert (d.format, d.chart_subtype) == ("chart", kind)


@pytest.mark.parametrize(
    ("query", "kind"),
    [
        ("Айлар бойынша мақалалар санын бағаналы диаграммамен көрсетіңіз", "bar"),  # Kazakh
        ("Мақалалар санын сызықтық диаграммамен көрсетіңіз", "line"),
        ("Прикажи ги трудовите по година во линиски графикон", "line"),  # Macedonian
        ("Taispeáin na páipéir in aghaidh na bliana i gcairt bharra", "bar"),  # Irish (lenited after "i")
        ("Déan graf líne de na páipéir in aghaidh na bliana", "line"),
        ("Maqolalar sonini ustunli diagrammada ko'rsating", "bar"),  # Uzbek
        ("Maqolalar sonini yillar bo'yicha chiziqli grafikda ko'rsating", "line"),
    ],
)
def test_kind_names_of_languages_the_lexicon_has_no_grammar_for(query, kind):
    d = read_directive(query)
    assert (d.format, d.chart_subtype) == ("chart", kind)


def test_the_kind_examples_are_charts_of_named_kinds_written_apart_from_every_split():
    import json
    from importlib import resources
    from typing import get_args

    from groundsearch.query.intent.kind_model import EXAMPLES, training_files
    from groundsearch.types import ChartSubtype

    rows = [json.loads(line) for line in
            (resources.files("groundsearch.query.intent") / EXAMPLES).read_text("utf-8").splitlines() if line.strip()]
    assert rows and all(r["format"] == "chart" and r["chart_subtype"] in get_args(ChartSubtype) for r in rows)
    data = resources.files("groundsearch.evaluation") / "data"
    split_requests = {json.loads(line)["query"].casefold() for name in training_files()
                      for line in (data / name).read_text("utf-8").splitlines() if line.strip()}
    assert not split_requests & {r["query"].casefold() for r in rows}
