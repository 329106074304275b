"""The narration prompt stays bounded and focused, and a model's own "not found" reads as the no-answer notice."""

from __future__ import annotations

from groundsearch.answer.extractive import NO_ANSWER
from groundsearch.answer.synthesize import (LLM_EVIDENCE, LLM_EVIDENCE_CHARS, LLM_PASSAGE_CHARS, evidence_block,
                                            passage_window, synthesize)
from groundsearch.models.fake import ScriptedLLM
from groundsearch.types import Intent

from .helpers import SPECS, doc

FILLER = "Filler sentence about nothing in particular number {n}. "
LONG = "".join(FILLER.format(n=i) for i in range(20)) + "The Eiffel Tower was completed in 1889 in Paris. " + \
       "".join(FILLER.format(n=i) for i in range(20, 30))


def test_window_starts_at_the_sentence_closest_to_the_request() -> None:
    window = passage_window(LONG, "when was the Eiffel Tower completed")
    assert window.startswith("… The Eiffel Tower was completed in 1889")
    assert len(window) <= LLM_PASSAGE_CHARS + 2
    # without a focus (or with nothing in common) the passage's beginning is shown
    assert passage_window(LONG, "").startswith("Filler sentence about nothing in particular number 0.")
    assert passage_window(LONG, "quantum chromodynamics").startswith("Filler sentence")


def test_evidence_block_is_bounded_whatever_the_page_holds() -> None:
    hits = tuple(doc(i, LONG) for i in range(12))
    block = evidence_block(hits, "when was the Eiffel Tower completed")
    ids = [line.split("]")[0] for line in block.splitlines() if line.startswith("[e")]
    assert ids == [f"[e{i}" for i in range(1, len(ids) + 1)] and len(ids) <= LLM_EVIDENCE
    text = sum(len(line.split(": ", 1)[1]) for line in block.splitlines() if line.startswith("[e"))
    assert text <= LLM_EVIDENCE_CHARS + 45
    assert block.count("The Eiffel Tower was completed in 1889") == len(ids)


def test_the_model_saying_it_found_nothing_becomes_the_no_answer_notice() -> None:
    hits = (doc(0, "The keyword leg uses BM25 through tantivy."), doc(1, "Unrelated words about the weather."))
    llm = ScriptedLLM(["The evidence does not mention who designed the logo."])
    s = synthesize(Intent(), "who designed the logo", [], hits, SPECS, llm=llm, load_prompt=lambda name: "system")
    assert s.prose.text.startswith(NO_ANSWER) and s.prose.mode == "extractive"
    assert any("found no answer in the evidence" in d for d in s.degraded)


def test_a_cited_answer_that_mentions_missing_detail_is_not_an_abstention() -> None:
    hits = (doc(0, "The keyword leg uses BM25 through tantivy."),)
    llm = ScriptedLLM(["The keyword leg uses BM25 [e1]. The evidence does not say which version [e1]."])
    s = synthesize(Intent(), "what does the keyword leg use", [], hits, SPECS, llm=llm, load_prompt=lambda n: "system")
    assert s.prose.mode == "llm" and not s.prose.text.startswith(NO_ANSWER)


def test_narration_asks_for_its_own_token_cap() -> None:
    hits = (doc(0, "The keyword leg uses BM25 through tantivy."),)
    llm = ScriptedLLM(["The keyword leg uses BM25 [e1]."])
    synthesize(Intent(), "what does the keyword leg use", [], hits, SPECS, llm=llm, load_prompt=lambda n: "system",
               max_tokens=160)
    assert llm.calls[0]["max_tokens"] == 160


def test_a_narration_still_being_written_at_the_deadline_keeps_its_complete_sentences() -> None:
    hits = (doc(0, "The keyword leg uses BM25 through tantivy."),)
    llm = ScriptedLLM(["The keyword leg uses BM25 [e1]. It also"])
    s = synthesize(Intent(), "what does the keyword leg use", [], hits, SPECS, llm=llm, load_prompt=lambda n: "system",
                   deadline_s=0.0)  # past the deadline after the first piece: the stream is closed there
    assert llm.calls[0].get("stream") is True
    # the scripted stream yields word by word; at deadline 0 only "The " arrived, so no sentence was complete
    assert s.prose.mode == "extractive" and any("cut off" in d for d in s.degraded)


def test_a_stream_that_finishes_before_the_deadline_is_the_whole_reply() -> None:
    hits = (doc(0, "The keyword leg uses BM25 through tantivy."),)
    llm = ScriptedLLM(["The keyword leg uses BM25 [e1]."])
    s = synthesize(Intent(), "what does the keyword leg use", [], hits, SPECS, llm=llm, load_prompt=lambda n: "system",
                   deadline_s=60.0)
    assert s.prose.mode == "llm" and s.prose.sentences[0].citations == (hits[0].id,) and not s.degraded


class _Writing:
    """A model whose stream hands over a whole sentence, then keeps writing (a CPU model at the deadline)."""

    name = "writing"

    def __init__(self) -> None:
        self.closed = False

    def complete(self, messages, **kw):  # pragma: no cover - narration streams when it can
        raise AssertionError("narration should stream")

    def stream(self, messages, **kw):
        try:
            yield "The keyword leg uses BM25 [e1]. "
            yield "It also uses"
            yield " more"
        finally:
            self.closed = True


def test_the_deadline_keeps_the_sentences_already_written_and_stops_decoding() -> None:
    hits = (doc(0, "The keyword leg uses BM25 through tantivy."),)
    llm = _Writing()
    s = synthesize(Intent(), "what does the keyword leg use", [], hits, SPECS, llm=llm, load_prompt=lambda n: "system",
                   deadline_s=0.0)
    assert s.prose.mode == "llm" and [x.text for x in s.prose.sentences] == ["The keyword leg uses BM25."]
    assert llm.closed and any("reached the LLM timeout" in d for d in s.degraded)
