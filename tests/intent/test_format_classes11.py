"""Session 11's classes, from heldout14 and heldout15's misses (read once they became learning splits): where the
classifier may trade tier 1's format for another shape, and which shapes it may choose among when tier 1 is unsure.
Each rule is mirrored in ``format_training`` so the leave-one-split-out study measures the step users get."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from groundsearch.evaluation.format_training import _overrules
from groundsearch.query.intent.directives import read_directive
from groundsearch.query.intent.format_model import FORMATS, load_calibration
from groundsearch.query.intent.format_step import FormatStep, may_replace, widened

from .test_format_step import FixedClassifier


def _decide(q: str, probs: dict[str, float], **overrides: float):
    cal = replace(load_calibration(), overrides=overrides)
    return FormatStep(lambda: FixedClassifier(probs), cal).decide(q, read_directive(q))[0]


def test_a_named_table_or_timeline_is_never_traded_for_another_shape():
    # the topic ("top 20", "popularity rank") read as the shape: a ranked chart for a table asked by name
    for q, other in (("Table of the top 20 products by popularity rank.", "chart"),
                     ("tabel of all crates.io releases with popularity rank under 500", "chart"),
                     ("Keine Zeitleiste — lieber eine Tabelle der llama-index-Versionen mit Datum.", "timeline")):
        assert read_directive(q).format == "table"
        decision = _decide(q, {other: 0.98, "table": 0.02}, used=0.85)
        assert (decision.format, decision.tier) == ("table", "rules"), q


def test_a_named_format_may_still_be_overruled_towards_none_and_a_chart_towards_a_network():
    q = "I skimmed the guide, the section on tables too: which embedder does it ship with?"
    assert _decide(q, {"default": 0.97, "table": 0.03}, used=0.85).format == "default"
    q = "I want to look the relations between products and authors like a spider web, who is touching who."
    assert read_directive(q).format == "chart"
    assert _decide(q, {"graph": 0.99, "chart": 0.01}, used=0.85).format == "graph"
    assert may_replace("default", "timeline") and may_replace("graph", "chart")
    assert not may_replace("table", "chart") and not may_replace("timeline", "table")


def test_the_study_mirrors_the_step():
    p = np.array([{"chart": 0.98}.get(f, 0.005) for f in FORMATS])
    assert not _overrules("table", p, 0.85, False)
    assert _overrules("default", p, 0.85, False)


def test_an_unsure_chart_word_lets_the_classifier_choose_a_network():
    # Albanian "graf" (the lexicon reads a chart word, unsure in a language it has no grammar for)
    q = "Më trego një graf të lidhjeve midis langchain, llama-index dhe organizatave që shfaqen bashkë me to."
    d = read_directive(q)
    assert not d.sure and d.candidates == ("chart",)
    decision = _decide(q, {"graph": 0.9, "chart": 0.05, "default": 0.05})
    assert (decision.format, decision.chart_subtype, decision.tier) == ("graph", None, "classifier")
    q = "As a librarian I'd like to see which organisations and people are tied to vllm, drawn as dots with lines."
    assert not read_directive(q).sure and "chart" in read_directive(q).candidates
    assert _decide(q, {"graph": 0.9, "chart": 0.1}).format == "graph"


def test_an_unsure_network_word_is_not_widened_to_a_chart():
    # "boxes with arrows" is a network's shape, never a chart's
    assert widened(("graph",)) == ("graph",) and widened(("chart",)) == ("chart", "graph") and widened(()) == ()
    q = "Which products depend on which? Sketch it as boxes with arrows."
    assert read_directive(q).candidates == ("graph",)
    assert _decide(q, {"chart": 0.6, "graph": 0.3, "default": 0.1}).format == "graph"


def test_an_answer_asked_for_in_words_is_a_sure_refusal_of_every_shape():
    # heldout12: "in prose only" was read as a chart and "in a single sentence ... the date of" as a timeline by a
    # classifier asked about a sure "no format word" reading
    for q in ("Please answer in prose only. Which venues appear in the paper collection, and roughly how many "
              "papers does each have?",
              "For the record, please state in a single sentence the date of the earliest pymc release in the corpus.",
              "summarise the changes in llama-index 0.10, just in words please",
              "Dime en una frase cuántas versiones de pymc salieron en 2023",
              "sag mir in einem Satz, wie viele Releases es gab"):
        d = read_directive(q)
        assert (d.format, d.evidence, d.sure) == ("default", "refused", True), q
        assert _decide(q, {"chart": 0.62, "timeline": 0.3, "default": 0.08}, none=0.5, refused=0.95).format == "default"


def test_words_about_prose_leave_a_named_format_its_wish():
    for q, want in (("instead of prose, a table of the papers", "table"),
                    ("histogram of release-note length in words, bins of 50", "chart"),
                    ("which authors are linked through shared papers? I'd like the network, not a paragraph", "graph")):
        assert read_directive(q).format == want, q
    assert read_directive("product, version and date for each release, one per line").evidence == "none"
