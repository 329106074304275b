"""Session 10's classes, from heldout13's misses (read once it became a learning split): a format word inside
quotation marks that name a thing, "drop the X" as a refusal, and a classifier that reads a refused word as a wish."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from groundsearch.errors import EmbeddingFailed
from groundsearch.query.intent.directives import read_directive
from groundsearch.query.intent.format_model import FORMATS, load_calibration, restrict
from groundsearch.query.intent.format_step import FormatStep, refused


class FixedClassifier:
    def __init__(self, probs: dict[str, float]) -> None:
        self.p = np.array([probs.get(f, 0.0) for f in FORMATS]) + 1e-6

    def predict(self, query, candidates=()):
        if not len(self.p):
            raise EmbeddingFailed("never")
        return restrict(self.p / self.p.sum(), candidates)


@pytest.mark.parametrize(
    "query",
    [
        'Is the book "A Short Timeline of Search Engines" in the corpus?',  # a title
        "Who wrote 'The Pie Chart Problem'?",
        "what does the 'table export' setting do?",  # a setting
        "the changelog says “fixed chart legend” — which version was that?",  # a quoted label, curly quotes
        "Quelle version dit « graphique corrigé » dans ses notes ?",
    ],
)
def test_a_format_word_inside_quotes_that_name_a_thing_is_a_mention(query):
    got = read_directive(query)
    assert (got.format, got.sure) == ("default", True) and got.evidence in ("mentioned", "refused"), got


@pytest.mark.parametrize(
    ("query", "fmt"),
    [
        # a quoted request is the user's own: five words or more, not a title
        ('my lead asked "could you put the pymc releases in a table" — please do', "table"),
        # a quoted refusal stays one, and the wish outside the quotes counts
        ('the client said "no charts" so list the venues as a table', "table"),
        # no quotation marks: an apostrophe is not one
        ("show the authors' papers as a table", "table"),
    ],
)
def test_a_quoted_request_or_refusal_keeps_its_reading(query, fmt):
    got = read_directive(query)
    assert got.format == fmt and got.evidence == "used", got


@pytest.mark.parametrize(
    "query",
    [
        "Drop the chart and tell me which venue has the most papers.",
        "ditch the table, one sentence is enough: when was pymc 5 released?",
        "get rid of the timeline and just give me the latest version",
    ],
)
def test_drop_the_x_refuses_it(query):
    got = read_directive(query)
    assert (got.format, got.evidence) == ("default", "refused"), got


def test_drop_with_an_object_between_is_no_refusal():
    got = read_directive("drop the results into a table")
    assert (got.format, got.evidence) == ("table", "used"), got


def test_the_classifier_never_overrules_tier_one_towards_a_format_the_request_refuses():
    q = "Please don't draw a network; give me a plain table of who co-wrote with whom."
    d = read_directive(q)
    assert (d.format, d.evidence) == ("table", "used") and "graph" in refused(d)
    cal = replace(load_calibration(), overrides={"used": 0.5})
    decision, _ = FormatStep(lambda: FixedClassifier({"graph": 0.95, "table": 0.05}), cal).decide(q, d)
    assert (decision.format, decision.tier) == ("table", "rules")
    # since session 11 a named table is traded for no other shape either (format_step.may_replace); the refusal
    # still guards the one trade left, a chart for a network
    decision, _ = FormatStep(lambda: FixedClassifier({"timeline": 0.95, "table": 0.05}), cal).decide(q, d)
    assert (decision.format, decision.tier) == ("table", "rules")
    q = "Don't draw a network; a bar chart of papers per venue."
    d = read_directive(q)
    assert (d.format, d.evidence) == ("chart", "used") and "graph" in refused(d)
    decision, _ = FormatStep(lambda: FixedClassifier({"graph": 0.95, "chart": 0.05}), cal).decide(q, d)
    assert (decision.format, decision.tier) == ("chart", "rules")


@pytest.mark.parametrize(
    ("query", "fmt"),
    [
        # a pivot or a header row described with no table word
        ("counts with venues down the side and years across the top", "table"),
        ("every release with version, date and registry under their own headings", "table"),
        # each item placed at its date on one axis, with no timeline word
        ("the langchain versions, each pinned to its date", "timeline"),
        ("all products on one dated strip", "timeline"),
        # a dependency diagram with no graph word
        ("which packages depend on which, please", "graph"),
        ("the products as boxes with arrows for each dependency", "graph"),
    ],
)
def test_session10_shapes_described_without_a_format_word_point_to_their_format(query, fmt):
    got = read_directive(query)
    assert got.evidence in ("paraphrase", "paraphrase-used"), got
    assert fmt in got.candidates or (got.sure and got.format == fmt), got


@pytest.mark.parametrize(
    "query",
    [
        "give me a chart of releases; actually drop the chart, one line is enough",
        "a timeline please. On second thought skip the timeline and tell me the first release date",
        "Put the venues in a table... no, no table, just name the biggest one",
    ],
)
def test_a_word_refused_later_by_the_same_word_takes_the_wish_back(query):
    got = read_directive(query)
    assert (got.format, got.evidence, got.sure) == ("default", "refused", True), got


def test_a_later_refusal_of_another_kind_leaves_the_wish():
    got = read_directive("draw a chart, but no pie charts")
    assert (got.format, got.evidence) == ("chart", "used"), got
    got = read_directive("no chart: put the releases in a table")
    assert (got.format, got.evidence) == ("table", "used"), got


@pytest.mark.parametrize("query", ["quick viz of the papers per venue pls", "need a dataviz of releases by registry"])
def test_viz_is_a_chart_word(query):
    assert read_directive(query).format == "chart"


def test_via_is_no_typo_of_viz():
    assert read_directive("send the papers via the API").format == "default"
