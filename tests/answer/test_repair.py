"""Rejected narrated sentences get at most two restatements, each held to the same audit, else keep the marker."""

from __future__ import annotations

from groundsearch.answer.audit import UNVERIFIED_MARKER, audit
from groundsearch.answer.repair import MAX_REPAIRED, TRIES, repair
from groundsearch.errors import LLMError
from groundsearch.models.fake import ScriptedLLM
from groundsearch.types import Prose, Sentence

from .test_synthesize_audit import DOC_HITS

GUIDE, ENGINE = DOC_HITS[0].id, DOC_HITS[1].id
WRONG = Sentence(text="Install groundsearch with pip; it needs Python 3.12 or newer on Linux.", citations=(GUIDE,))
GOOD = Sentence(text="The keyword leg uses BM25 through tantivy.", citations=(ENGINE,))


def prompts(name: str) -> str:
    return f"prompt:{name}"


def narrated(*sentences: Sentence) -> Prose:
    return Prose(sentences=sentences, mode="llm")


def test_a_rejected_sentence_restated_from_the_evidence_replaces_the_marker() -> None:
    prose = narrated(WRONG, GOOD)
    report = audit(prose, DOC_HITS)
    assert report.rejected and report.prose.sentences[0].text == UNVERIFIED_MARKER
    llm = ScriptedLLM(["It needs Python 3.11 or newer on Linux [e1]."])
    fixed = repair(prose, report, DOC_HITS, llm, prompts)
    assert [s.text for s in fixed.prose.sentences] == ["It needs Python 3.11 or newer on Linux.", GOOD.text]
    assert fixed.prose.sentences[0].citations == (GUIDE,) and fixed.prose.sentences[0].verified
    assert (fixed.repaired, fixed.calls) == (1, 1) and "restated 1 of 1" in fixed.notes[0]
    call = llm.calls[0]
    assert call["messages"][0].content == "prompt:repair_sentence"
    user = call["messages"][1].content
    assert "<sentence>" in user and "3.12" in user and "[e1]" in user and "<evidence>" in user
    assert audit(fixed.prose, DOC_HITS).failures == ()


def test_two_failed_tries_keep_the_marker() -> None:
    prose = narrated(WRONG)
    report = audit(prose, DOC_HITS)
    replies = ["It needs Python 3.13 [e1].",  # still unsupported
               LLMError("timed out", details={"kind": "timeout"}),  # a model failure is a failed try too
               "never used"]
    llm = ScriptedLLM(replies)
    fixed = repair(prose, report, DOC_HITS, llm, prompts)
    assert fixed.prose.sentences[0].text == UNVERIFIED_MARKER and not fixed.prose.sentences[0].verified
    assert (fixed.repaired, fixed.calls) == (0, TRIES) and len(llm.calls) == TRIES
    assert "1 kept the could-not-verify marker" in fixed.notes[0]


def test_replies_that_are_not_one_cited_sentence_no_longer_than_the_original_are_refused() -> None:
    prose = narrated(WRONG)
    report = audit(prose, DOC_HITS)
    for reply in ("It needs Python 3.11 or newer on Linux.",  # no citation
                  "Install it with pip [e1]. It needs Python 3.11 [e1].",  # two sentences
                  "Install groundsearch with pip into a virtualenv; it needs Python 3.11 or newer on Linux, "
                  "which the guide says plainly [e1]."):  # longer than the sentence it replaces
        fixed = repair(prose, report, DOC_HITS, ScriptedLLM([reply, reply]), prompts)
        assert fixed.repaired == 0 and fixed.prose.sentences[0].text == UNVERIFIED_MARKER, reply
    cut = ScriptedLLM(["It needs Python 3.11 [e1]."], finish_reason="length")
    assert repair(prose, report, DOC_HITS, cut, prompts).repaired == 0


def test_at_most_max_repaired_sentences_are_attempted() -> None:
    prose = narrated(*([WRONG] * (MAX_REPAIRED + 2)))
    report = audit(prose, DOC_HITS)
    llm = ScriptedLLM(lambda messages: "It needs Python 3.11 [e1].")
    fixed = repair(prose, report, DOC_HITS, llm, prompts)
    assert fixed.repaired == MAX_REPAIRED and len(llm.calls) == MAX_REPAIRED
    texts = [s.text for s in fixed.prose.sentences]
    assert texts[:MAX_REPAIRED] == ["It needs Python 3.11."] * MAX_REPAIRED
    assert texts[MAX_REPAIRED:] == [UNVERIFIED_MARKER] * 2


def test_extractive_or_clean_prose_costs_no_call() -> None:
    llm = ScriptedLLM([])
    extractive = Prose(sentences=(WRONG,), mode="extractive")
    assert repair(extractive, audit(extractive, DOC_HITS), DOC_HITS, llm, prompts).calls == 0
    clean = narrated(GOOD)
    assert repair(clean, audit(clean, DOC_HITS), DOC_HITS, llm, prompts).calls == 0
    assert llm.calls == []
