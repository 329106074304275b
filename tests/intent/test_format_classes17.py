"""Session 17 (learn22): heldout24/25's format misses read as classes once they became learning splits."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from groundsearch.evaluation.format_training import decide_blind
from groundsearch.query.intent.directives import read_directive
from groundsearch.query.intent.format_model import FORMATS, load_calibration, restrict
from groundsearch.query.intent.format_step import FormatStep, asks_after, asks_nothing, described_shape


class Fixed:
    """A classifier that reads every request the same way (``none``: as the shipped one, whether none is a choice)."""

    def __init__(self, probs: dict[str, float]) -> None:
        p = np.array([probs.get(f, 0.0) for f in FORMATS]) + 1e-6
        self.p = p / p.sum()

    def predict(self, query, candidates=(), none=True):
        return restrict(self.p, candidates, none)


# Tables and timelines described, never named, in requests that are not questions (written for this test).
DESCRIBED = [
    ("every vector database release this month with its version and date, one per row", "table"),
    ("the rerankers we index, side by side with licence and size", "table"),
    ("las versiones de Ollama del 2025: una fila por versión, con la fecha y los cambios", "table"),
    ("as versões do Weaviate, uma linha por versão, com data e resumo", "table"),
    ("jede Version von LangChain eine Zeile pro Version mit dem Datum", "table"),
    ("the Mistral model launches in the order they happened, please", "timeline"),
    ("les sorties de Mistral du plus ancien au plus récent, avec leur date", "timeline"),
    ("die Releases von Chroma in der Reihenfolge, in der sie erschienen, mit Datum", "timeline"),
    ("le release di pgvector dal più vecchio al più recente, con la data", "timeline"),
    ("de versies van Qdrant van oud naar nieuw, met datum", "timeline"),
]


@pytest.mark.parametrize(("query", "shape"), DESCRIBED)
def test_a_described_table_or_timeline_is_never_traded_for_none(query, shape):
    """heldout17/21's "every open-weight release with vendor, version and date, one per row", "… one per row, w/
    date + summary. no prose.", heldout's "matrix of frameworks vs features": tier 1 reads the description (unsure,
    the paraphrase), and the classifier, choosing between the shape and none, chose none — a silent drop. No
    learning row of such a request wants none, so the classifier now chooses the shape described."""
    d = read_directive(query)
    assert (d.sure, d.evidence, d.candidates, d.question) == (False, "paraphrase", (shape,), False)
    assert described_shape(d)
    step = FormatStep(lambda: Fixed({"default": 0.9, shape: 0.1}), load_calibration())
    decision, _ = step.decide(query, d)
    assert (decision.format, decision.tier) == (shape, "classifier")
    # stated with the shape's probability beside none, not a renormalised certainty
    assert decision.confidence == step.calibration.classifier_confidence(0.1)


@pytest.mark.parametrize("query", [
    "how many rows of the config file have columns?",  # a question's paraphrase: the rows may be the topic
    "who works with whom at the company on the RAG papers",  # a network described: 15 learning rows wanted none
])
def test_a_question_or_a_network_described_may_still_become_none(query):
    d = read_directive(query)
    assert (d.sure, d.evidence) == (False, "paraphrase") and not described_shape(d)
    (shape,) = d.candidates
    decision, _ = FormatStep(lambda: Fixed({"default": 0.9, shape: 0.1}), load_calibration()).decide(query, d)
    assert decision.format == "default"


def test_the_study_meets_a_described_shape_as_the_format_step_does():
    """format_training's leave-one-split-out study decides the blind readings with the same rule."""
    row = {"query": "x", "format": "default", "subtype": None, "sure": False, "evidence": "paraphrase",
           "candidates": ["timeline"], "question": False, "holds": False, "asks": False,
           "p": np.array([0.9 if f == "default" else 0.1 if f == "timeline" else 0.0 for f in FORMATS])}
    assert decide_blind(row, {}, True)[0] == "timeline"
    assert decide_blind({**row, "question": True}, {}, True)[0] == "default"
    assert decide_blind({**row, "candidates": ["graph"]}, {}, True)[0] == "default"


# A question naming the topic, then a request for its shape (written for this test).
ASKED_THEN_SHOWN = [
    "Wer arbeitet mit wem an den Qwen-Papern? Zeichne es als Punkte mit Strichen dazwischen.",
    "Welke modellen bouwen op elkaar voort? Teken het als bolletjes met pijlen.",
    "Quels laboratoires travaillent ensemble ? Dessine-le avec des points reliés par des traits.",
    "¿Qué bibliotecas dependen de cuáles? Dibújalo con puntos unidos por flechas.",
]


@pytest.mark.parametrize("query", ASKED_THEN_SHOWN)
def test_a_question_followed_by_a_request_is_no_direct_question(query):
    """heldout24's "Wer zitiert wen? Zeig die Zitierbeziehungen … als Punkte mit Verbindungslinien." and "Welke
    bibliotheken hangen van elkaar af? Teken het als bolletjes met pijlen ertussen.", heldout25's "Welche Labore
    arbeiten mit welchen zusammen? Zeichne es als Punkte …": tier 1 reads no format word (sure, none) and the
    request opens as a question, so the classifier, reading a network at 0.96-0.99, was never asked. A question
    followed by more is no direct question: the classifier may overrule tier 1's none there."""
    d = read_directive(query)
    assert (d.format, d.evidence, d.sure, d.question) == ("default", "none", True, True)
    assert asks_after(query) and not asks_nothing(d.evidence, d.question, query)
    cal = replace(load_calibration(), overrides={"none": 0.5})
    decision, _ = FormatStep(lambda: Fixed({"graph": 0.9, "default": 0.1}), cal).decide(query, d)
    assert (decision.format, decision.tier) == ("graph", "classifier")


@pytest.mark.parametrize("query", [
    "What is the popularity rank of LangChain?",
    "Wer hat das Paper geschrieben? Und wann?",  # two questions
    "Which version is newest?? ok",  # too little after the mark
])
def test_a_direct_question_still_asks_for_nothing(query):
    d = read_directive(query)
    assert (d.evidence, d.sure, d.question) == ("none", True, True) and not asks_after(query)
    cal = replace(load_calibration(), overrides={"none": 0.5})
    decision, _ = FormatStep(lambda: Fixed({"chart": 0.9, "default": 0.1}), cal).decide(query, d)
    assert (decision.format, decision.tier) == ("default", "rules")



def test_a_typo_between_two_lexicon_words_reads_the_same_in_every_process():
    """heldout24's "Draw a graff of which authors co-wrote …" read as a graph in one process and a chart in
    another: "graff" is one edit from two lexicon words of different kinds, and tier 1 walked a set of them in
    hash order. Eight hash seeds, one reading (on main 2e42c80: graph under seeds 1, 2, 7, chart under the rest)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    import groundsearch

    root = str(Path(groundsearch.__file__).resolve().parents[1])  # the tree under test, in the child too
    code = ("from groundsearch.query.intent.directives import read_directive\n"
            "print(read_directive('a graff of which labs publish together').format)")
    seen = set()
    for seed in range(1, 9):
        env = {**os.environ, "PYTHONHASHSEED": str(seed), "PYTHONPATH": root}
        seen.add(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                check=True).stdout.strip())
    assert len(seen) == 1


@pytest.mark.parametrize("query", [
    "skip the chart - a table of the rerankers with their licences is fine",
    "no timeline - a table of the Gemma versions will do",
    "sin gráfico - una tabla de las versiones de Ollama, por favor",
    "pas de graphique - un tableau des versions de Mistral",
    "kein Diagramm - eine Tabelle der Qdrant-Versionen reicht",
])
def test_a_spaced_hyphen_is_a_dash_that_ends_the_refusal(query):
    """heldout25's "skip the graph - a table of the Phi-3 authors and their affiliations is fine": the ASCII dash
    was no clause break, so the refusal ran over the table and tier 1 read a sure refusal of both (a silent drop).
    With "—" it read the table; a hyphen between spaces after a word now reads as that dash."""
    d = read_directive(query)
    assert (d.format, d.evidence, d.sure) == ("table", "used", True)
    assert read_directive(query.replace(" - ", " — ")).format == "table"


@pytest.mark.parametrize(("query", "want"), [
    ("no chart - just tell me the newest version", ("default", "refused")),  # nothing asked after the dash
    ("releases 2022 - 2024 as a table", ("table", "used")),  # a range keeps its hyphen
])
def test_a_spaced_hyphen_changes_nothing_else(query, want):
    d = read_directive(query)
    assert (d.format, d.evidence) == want


@pytest.mark.parametrize(("query", "shape"), [
    ("papers per venue, drawn rather than tabulated", "chart"),
    ("releases per month, drawn, not in a table", "chart"),
    ("one row per release, not a chart", "table"),
    ("une ligne par version, pas un graphique", "table"),
    ("eine Zeile pro Version statt einer Grafik", "table"),
    ("una fila por versión, no un gráfico", "table"),
    ("the Gemma releases in the order they happened rather than in a table", "timeline"),
])
def test_a_shape_described_against_a_refused_format_is_the_wish(query, shape):
    """heldout15's "papers per venue, drawn rather than tabulated" (the shape-versus-prose family): tier 1 read only
    the refused table, a sure refusal, and answered in prose (a silent drop). A shape described right before
    "rather than" / "not" / "statt" and the refused word is the wish, set against the refusal: the classifier may
    say which format, never none."""
    d = read_directive(query)
    assert (d.format, d.evidence, d.sure, d.framed) == (shape, "paraphrase-used", True, True)
    cal = replace(load_calibration(), overrides={"paraphrase-used": 0.5})
    decision, _ = FormatStep(lambda: Fixed({"default": 0.9, shape: 0.1}), cal).decide(query, d)
    assert decision.format == shape


@pytest.mark.parametrize("query", [
    "Give me the venues as prose, not a table",  # prose set against the table: nothing drawn
    "Honestly I don't need it drawn as a network. Who are Jason Weston's usual co-authors?",  # drawn, refused
    "the rows of the config, not a chart",  # the rows are the topic, far from the connector
])
def test_prose_or_a_refused_drawing_stays_a_refusal(query):
    d = read_directive(query)
    assert (d.format, d.evidence, d.sure) == ("default", "refused", True)


@pytest.mark.parametrize("query", [
    "the Gemma releases, earliest -> latest, with dates",
    "the Llama versions first ⟶ last",
    "every Qdrant release, oldest → newest",
])
def test_an_arrow_for_to_in_an_order_described_is_a_timeline(query):
    """heldout24's "🗓️ view of the Qwen releases, oldest → newest, one mark per release date": the arrow stood for
    "to", so "oldest to newest" went unread (sure, none) and the classifier drew a chart. An order phrase's "to"
    may be an arrow; the timeline paraphrase is then never traded for none (described_shape)."""
    d = read_directive(query)
    assert (d.evidence, d.sure, d.candidates) == ("paraphrase", False, ("timeline",))
    decision, _ = FormatStep(lambda: Fixed({"chart": 0.6, "default": 0.3, "timeline": 0.1}),
                             load_calibration()).decide(query, d)
    assert decision.format == "timeline"


def test_a_funnel_of_arrows_is_still_a_funnel():
    d = read_directive("funnel: all papers → arxiv → cited")
    assert (d.format, d.chart_subtype, d.sure) == ("chart", "funnel", True)


@pytest.mark.parametrize("query", [
    "Incolonnami le release di Chroma: versione, data, novità.",
    "le versioni di pgvector, ben incolonnate con la data",
])
def test_italian_incolonnare_describes_a_table(query):
    """heldout24's "Incolonna i comandi della CLI: nome, cosa fa, un esempio." and heldout23's "… tutto ben
    incolonnato": Italian's verb for setting out in columns holds the column word inside it, so tier 1 read no
    format word and the classifier chose none. Now a table paraphrase, never traded for none."""
    d = read_directive(query)
    assert (d.evidence, d.sure, d.candidates) == ("paraphrase", False, ("table",))
    decision, _ = FormatStep(lambda: Fixed({"default": 0.7, "table": 0.3}), load_calibration()).decide(query, d)
    assert decision.format == "table"
