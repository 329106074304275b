"""Second chance for narrated sentences the audit rejected: ask the LLM to restate each from its evidence.

DESIGN's audit contract: a failing sentence is regenerated (at most two tries) or replaced by the visible
"could not verify" marker — never silently dropped. Only LLM-narrated prose is repaired; extractive
sentences are stored text, so a failure there is a fact about the evidence, not the writer.

Each try is one bounded call with the versioned ``repair_sentence`` prompt, the rejected sentence and the
reason it failed, and the evidence passages numbered as in narration. The reply must be one cited sentence
no longer than the one it replaces (so the short-answer word cap still holds) and pass the same audit as the
original; anything else (an unparseable reply, a model error, a still-unsupported claim) counts as
a failed try. The number of sentences repaired per answer is capped so a bad narration cannot turn one
request into a dozen model calls; the rest keep the marker.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..models.base import LLM, ChatMessage
from ..types import EvidenceHit, Prose, Sentence
from .audit import AuditReport, audit
from .synthesize import LLM_EVIDENCE, evidence_block, parse_narration

__all__ = ["MAX_REPAIRED", "TRIES", "Repair", "repair"]

TRIES = 2  # DESIGN: "regenerated (at most 2 tries)"
MAX_REPAIRED = 3  # sentences per answer; each may cost TRIES calls
REPAIR_TOKENS = 120  # one sentence with its citations


@dataclass(frozen=True, slots=True)
class Repair:
    prose: Prose
    repaired: int  # sentences that now pass the audit
    calls: int
    notes: tuple[str, ...] = ()


def _messages(system: str, sentence: Sentence, why: str, hits: Sequence[EvidenceHit],
              handles: Sequence[str]) -> list[ChatMessage]:
    cited = "".join(f"[e{handles.index(c) + 1}]" for c in sentence.citations if c in handles)
    user = (f"<sentence>{sentence.text} {cited}</sentence>\n<problem>{why}</problem>\n"
            + evidence_block(hits, sentence.text))
    return [ChatMessage("system", system), ChatMessage("user", user)]


def repair(original: Prose, report: AuditReport, hits: Sequence[EvidenceHit], llm: LLM,
           load_prompt: Callable[[str], str]) -> Repair:
    """``report.prose`` with up to :data:`MAX_REPAIRED` rejected sentences restated and re-audited."""
    if original.mode != "llm" or not report.rejected:
        return Repair(report.prose, 0, 0)
    system = load_prompt("repair_sentence")
    handles = [h.id for h in hits[:LLM_EVIDENCE]]  # [e1] … as narration numbered them
    reasons = dict(report.rejected)
    out = list(report.prose.sentences)
    repaired = calls = 0
    for index in sorted(reasons)[:MAX_REPAIRED]:
        for _ in range(TRIES):
            calls += 1
            try:
                completion = llm.complete(_messages(system, original.sentences[index], reasons[index], hits,
                                                    handles), max_tokens=REPAIR_TOKENS)
            except Exception:  # a model failure is a failed try; the marker stays
                continue
            candidate = parse_narration(completion.text, handles).sentences
            if (completion.finish_reason == "length" or len(candidate) != 1 or not candidate[0].citations
                    or len(candidate[0].text.split()) > len(original.sentences[index].text.split())):
                continue  # cut off, not one cited sentence, or longer than what it replaces (format caps hold)
            checked = audit(Prose(sentences=candidate, mode="llm"), hits)
            if not checked.rejected:
                out[index] = checked.prose.sentences[0]
                repaired += 1
                break
    left = len(reasons) - repaired
    notes = (f"audit: restated {repaired} of {len(reasons)} rejected sentence(s) from the evidence "
             f"({calls} model call(s)); {left} kept the could-not-verify marker",)
    return Repair(Prose(sentences=tuple(out), mode=report.prose.mode), repaired, calls, notes)
