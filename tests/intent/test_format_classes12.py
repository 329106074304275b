"""Session 12's classes, from heldout16 and heldout17's misses (read once they became learning splits): a plain
chart word taking back a named kind, a graph word next to who-with-whom, a named pie kept round, a ranking in a
bare reading, and English paraphrases of a timeline, a table, a network and a chart that open with a polite lead.
Each asserts what tier 1 claims; where it should stay unsure (a question, a false friend), that it does."""

from __future__ import annotations

import pytest

from groundsearch.query.intent.directives import read_directive

from .readings import reading as _read
from .readings import reads_as

test_a_plain_chart_word_refused_later_takes_back_the_named_kind = reads_as(
    ("default", None, True),
    "A pie chart of papers per venue — actually no, forget the chart, just list the venues with their counts.",
    "a donut of releases by registry... actually no, scrap that, just list the counts",
    "bar chart of versions per product. hmm, scratch it, a sentence is enough",
)


def test_a_named_kind_refused_later_still_leaves_the_other_kind_asked():
    # "not bars" refuses bars only: the pie named before it stands
    assert _read("a pie chart of the registries, not bars") == ("chart", "pie", True)


test_a_graph_word_beside_who_with_whom_is_a_network = reads_as(
    ("graph", None, True),
    "grpah of who coauthored with yoav goldberg",
    "Show me a graph of co-authorship among the Self-RAG and CRAG authors.",
    "graph showing which agent frameworks integrate with which vector stores",
    "Draw a graph of which papers cite the original ReAct paper.",
    "graph of who has worked with whom on the retrieval papers",
)


@pytest.mark.parametrize("q, kind", [
    ("graph the number of papers that cite ReAct per year", "line"),
    ("draw me a graph of the most cited papers", "ranked-bar"),
    ("graph of papers per venue", "bar"),
])
def test_counted_or_ranked_pairs_stay_a_chart(q, kind):
    assert _read(q) == ("chart", kind, True)


def test_a_named_pie_is_refined_only_into_another_round_cut():
    assert _read("each registry's share of releases as slices of one circle")[:2] == ("chart", "pie")
    assert _read("a pie chart with a hole in the middle, releases per registry")[:2] == ("chart", "donut")


def test_a_bare_bar_chart_of_a_ranking_is_the_ranked_bar():
    d = read_directive("Horizontal bar chart ranking agent frameworks by total releases.")
    assert (d.format, d.chart_subtype) == ("chart", "ranked-bar")


def test_a_share_said_as_a_fraction_is_a_pie():
    d = read_directive("maybe something visual that shows what fraction of releases each registry accounts for?")
    assert (d.format, d.chart_subtype) == ("chart", "pie")


def test_a_timeline_showing_when_each_item_appeared_is_asked_not_a_date_question():
    q = "Could you lay out the key RAG papers in chronological order from 2020 onward, showing when each one appeared?"
    assert _read(q) == ("timeline", None, True)
    # a real when-question after the timeline word still asks for the date
    q = "the timeline of the v2 migration: when does v1 stop working?"
    assert read_directive(q).format == "default"


@pytest.mark.parametrize("q, fmt", [
    ("which deps changed version overnight? line them up in the order they happened", "timeline"),
    ("okay um can you put the last ten releases one after another with dates so i can see the gaps", "timeline"),
    ("can u like line up all the model drops in order w/ dates lol", "timeline"),
    ("Could you arrange the retrieval papers in a grid (title, first author, section)?", "table"),
    ("Redo it with one row per version and columns for date and summary.", "table"),
    ("could you map out who has worked with whom on the agent papers?", "graph"),
    ("map the landscape of agent frameworks and the stores they support", "graph"),
    ("show me a picture of the monthly counts over time", "chart"),
])
def test_paraphrases_opened_by_a_verb_after_a_polite_lead_are_asked(q, fmt):
    d = read_directive(q)
    assert (d.format, d.evidence, d.sure) == (fmt, "paraphrase-used", True), q


@pytest.mark.parametrize("q", [
    "What shipped between 1.7 and 1.9, in the order it shipped, with dates?",
    "which of these agent frameworks talk to which vector databases?",
    "something I can sort by date and paste into a sheet, please",
])
def test_paraphrases_without_a_wish_verb_are_the_classifiers_to_decide(q):
    d = read_directive(q)
    assert d.format == "default" and not d.sure and d.candidates, q


test_false_friends_of_the_new_paraphrases_ask_for_nothing = reads_as(
    ("default", None, True),
    "line up the interview panel for next week",
    "I need a sheet of paper template for the release notes",
    "what happened in the order of events at the keynote?",
)


@pytest.mark.parametrize("q", [
    "who works with whom at Acme?",
    "Can you explain row by row what this config does?",
    "one after another the upgrades failed, why?",
])
def test_false_friends_tier1_cannot_tell_are_never_claimed_sure(q):
    d = read_directive(q)
    assert not (d.sure and d.format != "default"), q


def test_a_stacked_area_and_a_line_over_time_are_named_kinds():
    assert _read("Stacked area would work best here: releases per month, stacked by registry.") == ("chart", "area", True)
    assert _read("Forget the bar chart from before; show it as a line over time instead.") == ("chart", "line", True)
