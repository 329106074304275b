"""Session 15 (learn18): heldout20/21's format misses read as classes once they became learning splits."""

from __future__ import annotations

import json
from dataclasses import replace
from importlib import resources

import numpy as np
import pytest

from groundsearch.query.intent.directives import read_directive
from groundsearch.query.intent.format_model import FORMATS, TRAINING_FILES, examples, load_calibration, restrict, training_rows
from groundsearch.query.intent.format_step import FormatStep, refused

from .readings import format_read, reads_as, reads_each


class Fixed:
    def __init__(self, probs: dict[str, float]) -> None:
        self.p = np.array([probs.get(f, 0.0) for f in FORMATS]) + 1e-6

    def predict(self, query, candidates=()):
        return restrict(self.p / self.p.sum(), candidates)


@pytest.mark.parametrize(("query", "shape"), [
    ("Make me a timeline of the releases — scrap that, just tell me the newest version.", "timeline"),
    ("A bar chart of downloads per month, actually no, just say which month was busiest.", "chart"),
    ("Start with a table of the rerankers; no wait, forget it, name the best one in a sentence.", "table"),
])
def test_a_shape_taken_back_is_never_put_back_by_the_classifier(query, shape):
    """heldout21's "a pie chart … — actually no, just a list" and "a network … — no wait, scrap that": tier 1 reads
    the retraction (default, refused), the classifier reads the shape's words and put the shape back (the refused
    override). A retracted shape now counts as refused, as a named refusal does."""
    d = read_directive(query)
    assert (d.format, d.evidence) == ("default", "refused") and shape in refused(d)
    cal = replace(load_calibration(), overrides={"refused": 0.5})
    decision, _ = FormatStep(lambda: Fixed({shape: 0.99, "default": 0.01}), cal).decide(query, d)
    assert (decision.format, decision.tier) == ("default", "rules")


def test_a_retraction_refuses_only_the_shapes_it_takes_back():
    q = "A pie chart of the registries — actually no, never mind, just tell me the count."
    d = read_directive(q)
    assert refused(d) == {"chart"}
    cal = replace(load_calibration(), overrides={"refused": 0.5})
    decision, _ = FormatStep(lambda: Fixed({"table": 0.99, "default": 0.01}), cal).decide(q, d)
    assert (decision.format, decision.tier) == ("table", "classifier")  # a shape it never named stays open


def test_the_format_examples_are_trained_on_and_are_no_split_row():
    rows = examples()
    assert len(rows) >= 30 and {r["format"] for r in rows} == set(FORMATS)
    trained = {r["query"] for r in training_rows()}
    assert all(r["query"] in trained for r in rows)
    data = resources.files("groundsearch.evaluation") / "data"
    split_queries = {json.loads(line)["query"].casefold() for name in TRAINING_FILES
                     for line in (data / name).read_text("utf-8").splitlines() if line.strip()}
    assert not [r for r in rows if r["query"].casefold() in split_queries]


def _shape_and_sure(q: str) -> tuple[str, bool]:
    """The shape tier 1 reads in ``q`` and whether it is sure; unsure, the first shape it offers the classifier."""
    d = read_directive(q)
    return (d.format if d.sure else (d.candidates[0] if d.candidates else d.format)), d.sure


test_shape_words_tier_one_now_reads = reads_each([
    # a request written as data: the value of a presentation key beside the ask key is the wish
    ('{"ask": "every mistral release", "view": "chronological, with dates"}', "timeline", True),
    ('{"query": "papers per venue", "format": "table"}', "table", True),
    # the shape word with its vowels dropped
    ("cn u do a tbl of the reranker releases w/ dates", "table", False),
    ("tbl pls: model, size, licence", "table", True),
    ("quick chrt of papers per venue pls", "chart", True),
    # the chart word as Belarusian, Bulgarian and Serbian spell it
    ("Пакажыце, калі ласка, дыяграму выпускаў па месяцах.", "chart", True),
    ("Покажете ми диаграма на статиите по години.", "chart", True),
    ("Направи дијаграм издања по месецима.", "chart", True),
], by=_shape_and_sure)


test_a_config_snippet_or_a_refused_shape_asks_for_nothing = reads_as(
    "default",
    '```json {"format": "chart"} ``` that snippet is stale; in plain words, what changed in the SDK?',
    'please print {"view": "table"} whatever my question: what is a reranker',
    'The docs say "format: table" is the default. Is that still true?',
    "Без диаграми, моля: само колко версии има?",
    by=format_read,
)


def test_the_kind_of_a_bar_chart_in_belarusian_and_bulgarian():
    assert read_directive("Зрабіце слупковую дыяграму артыкулаў па канферэнцыях.").chart_subtype == "bar"
    assert read_directive("Направете стълбовидна диаграма на версиите.").chart_subtype == "bar"


test_a_drawing_word_whose_object_is_the_node_link_look_draws_a_network = reads_each([
    ("which services call which? draw it for me, boxes and arrows", "graph"),
    ("Visualise the SDKs and what they depend on as nodes and edges.", "graph"),
    ("draw the monthly release counts, one bar per month", "chart"),
    ("plot the number of arrows in each figure per paper", "chart"),
], by=format_read)
