"""A format word conceded or given a reason against, then a plain ask ("tables never print well for us, so just
tell me …", "I'd usually want a chart, but for now just say …"): the wish is taken back, as by "scratch that"."""

from __future__ import annotations

import pytest

from groundsearch.query.intent.directives import read_directive


@pytest.mark.parametrize(
    "query",
    [
        "Timelines always get cropped in our wiki, so just tell me when mlflow 2.0 came out.",
        "I'd usually ask for a chart here, but for now just say which venue has the most papers.",
        "Tables never render in my email client, so just write a sentence on the newest pymc release.",
        "I know a graph would look nice, but just answer this: who wrote the most reranker papers?",
        "My manager loves bar charts. Anyway, how many vllm releases were there in 2024?",
    ],
)
def test_a_conceded_format_then_a_plain_ask_is_refused(query):
    got = read_directive(query)
    assert (got.format, got.sure, got.evidence) == ("default", True, "refused"), got


@pytest.mark.parametrize(
    ("query", "fmt"),
    [
        # the pivot leads to the format itself: still the wish
        ("no prose, so just give me a table of the pymc releases", "table"),
        ("I know it's late, but just draw a chart of releases per month", "chart"),
        # a plain ask before the format word is no concession of it
        ("just tell me which releases matter, as a timeline", "timeline"),
    ],
)
def test_a_pivot_to_the_format_or_before_it_keeps_the_wish(query, fmt):
    assert read_directive(query).format == fmt


@pytest.mark.parametrize(
    "query",
    [
        "not a timeline, I meant a grid: products down the side, quarters across the top",
        "skip the chart; one row per release with version and date, please",
        "forget the diagram, lay the versions out with the headers version, date and notes",
    ],
)
def test_a_refusal_then_a_described_shape_leaves_the_shape_to_the_classifier(query):
    got = read_directive(query)
    assert (got.sure, got.evidence) == (False, "paraphrase") and "table" in got.candidates, got
    assert not {"chart", "timeline"} & set(got.candidates), got


def test_a_refusal_with_no_shape_after_it_stays_sure():
    got = read_directive("no chart, just tell me the count of releases down the years")
    assert (got.format, got.sure) == ("default", True), got


@pytest.mark.parametrize(
    "query",
    [
        "Pie charts drive our CFO mad, but that's a story for another day. Which registry has the most releases?",
        "Heatmaps are overrated in my view, but I digress: which venue has the most agent papers?",
        "tables in slack look awful, but that's beside the point. who wrote the ColBERT paper?",
    ],
)
def test_a_format_word_in_an_aside_closed_before_the_ask_is_refused(query):
    got = read_directive(query)
    assert (got.format, got.sure) == ("default", True), got


def test_an_aside_before_the_format_word_keeps_the_wish():
    assert read_directive("but that's a story for another day. Show the releases as a table").format == "table"


@pytest.mark.parametrize(
    ("query", "fmt"),
    [
        ("Skip the prose; a timeline of the mlflow versions works better for my deck.", "timeline"),
        ("honestly a pie chart of the venues would work better for the report", "chart"),
    ],
)
def test_a_format_that_works_better_for_something_is_the_wish(query, fmt):
    assert read_directive(query).format == fmt


def test_which_format_is_better_for_something_stays_a_question():
    assert read_directive("is a line chart better for release counts than a bar chart?").format == "default"
