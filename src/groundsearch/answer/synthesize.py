"""Intent + structured results + evidence → ``Prose`` with a citation on every sentence.

Two modes. *Extractive* (the default, no model): sentences are chosen verbatim from the fused page by
how well they answer the question (:mod:`.extractive`), so every word is stored text, or, beside tables
and charts, one paragraph of facts computed from the rows (:mod:`.summary`). *LLM narration* (when an LLM is configured): the versioned synthesis
prompt, evidence passages numbered ``[e1]…``, a bounded token budget; any failure falls back to
extractive and says why. Both respect the format: a full answer for ``default``; one paragraph of at
most ~80 words that introduces the tables/charts when those carry the content, never repeating rows.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..models.base import LLM, ChatMessage
from ..types import CollectionSpec, EvidenceHit, Intent, Prose, Sentence
from .extractive import answer
from .sentence_vectors import SentenceVectors
from .summary import SHORT_WORDS, short_paragraph

__all__ = ["SHORT_WORDS", "Synthesis", "evidence_block", "extractive", "narrate", "parse_narration", "repeats_a_row",
           "synthesize"]

LLM_EVIDENCE = 8
LLM_PASSAGE_CHARS = 700
_CITE = re.compile(r"\[(e\d+)\]")
_LEAD_MARK = re.compile(r"^(?:[-*+]\s+|\d+\.\s+|>\s*)")  # bullet, number or quote marker
_FENCED = re.compile(r"```.*?(?:```|$)", re.DOTALL)  # a code block (or one left open by a cut-off reply)
_WORD = re.compile(r"[^\W\d_]{2,}")  # two letters in a row: the least a sentence has


@dataclass(frozen=True, slots=True)
class Synthesis:
    prose: Prose
    degraded: tuple[str, ...] = ()
    model: str | None = None


def _words(text: str) -> int:
    return len(text.split())


def extractive(intent: Intent, query: str, results: Sequence[Any], hits: Sequence[EvidenceHit],
               specs: dict[str, CollectionSpec], vectors: SentenceVectors | None = None) -> Prose:
    """The no-model answer: one paragraph about the structured results when they carry the content
    (:mod:`.summary`), else the query-focused extractive answer (:mod:`.extractive`)."""
    carries = any(r.kind in ("table", "chart", "timeline", "graph") for r in results)
    if intent.format != "default" and carries:
        short = short_paragraph(results, hits, specs)
        if short.sentences:
            return short
    return answer(query, hits, vectors)


# ---- LLM narration --------------------------------------------------------------------------------


def evidence_block(hits: Sequence[EvidenceHit]) -> str:
    """The top passages numbered ``[e1]…`` inside ``<evidence>`` tags (data, not instructions)."""
    passages = []
    for i, hit in enumerate(hits[:LLM_EVIDENCE], start=1):
        text = " ".join(hit.chunk.text.split())[:LLM_PASSAGE_CHARS]
        passages.append(f"[e{i}] ({hit.item.collection}) {hit.item.title}: {text}")
    return "<evidence>\n" + "\n".join(passages) + "\n</evidence>"


def _messages(system: str, query: str, hits: Sequence[EvidenceHit], results: Sequence[Any]) -> list[ChatMessage]:
    """The request and passages go in tags as data; the system prompt alone carries instructions."""
    shown = ", ".join(f"{r.kind} ({getattr(r, 'collection', '') or getattr(r, 'title', '')})" for r in results
                      if r.kind in ("table", "chart", "timeline", "graph"))
    user = f"<request>{query}</request>\n"
    if shown:
        user += f"<shown>{shown}</shown>\n"
    user += evidence_block(hits)
    return [ChatMessage("system", system), ChatMessage("user", user)]


def parse_narration(text: str, ids: Sequence[str]) -> Prose:
    """LLM text → sentences; trailing ``[eN]`` markers become citations (unknown numbers are kept as-is,
    so the audit catches them instead of this parser hiding them)."""
    sentences = []
    text = _FENCED.sub("\n", text)
    for raw in re.split(r"(?<=[.!?](?:\]|\s))\s*|(?<=\])\s+(?=[A-Z])|\n+", text):
        raw = raw.strip()
        if not raw or raw.startswith(("|", "#")):
            continue  # Markdown table rows and headings are formatting the model added, not sentences
        cites = []
        for handle in _CITE.findall(raw):
            n = int(handle[1:])
            cites.append(ids[n - 1] if 1 <= n <= len(ids) else handle)
        clean = " ".join(_CITE.sub("", _LEAD_MARK.sub("", raw)).split()).replace(" .", ".")
        if _WORD.search(clean):  # "---", "|" or a lone citation is not a sentence either
            sentences.append(Sentence(text=clean, citations=tuple(dict.fromkeys(cites))))
    return Prose(sentences=tuple(sentences), mode="llm")


def _complete_sentences(text: str) -> str:
    """``text`` up to its last sentence end: what survives of a reply cut off mid-sentence."""
    ends = [m.end() for m in re.finditer(r"[.!?](?:\s*\[e\d+\])*", text)]
    return text[: ends[-1]] if ends else ""


def narrate(llm: LLM, system: str, query: str, hits: Sequence[EvidenceHit], results: Sequence[Any], *,
            short: bool, max_tokens: int) -> tuple[Prose, tuple[str, ...]]:
    """One bounded LLM call → (prose, degraded notes); raises when nothing usable came back (the caller
    falls back). A reply cut off at ``max_tokens`` keeps its complete sentences and says so; the
    unfinished one is dropped, never shown."""
    completion = llm.complete(_messages(system, query, hits, results), max_tokens=max_tokens)
    text, notes = completion.text, ()
    if completion.finish_reason == "length":
        text = _complete_sentences(text)
        if not text.strip():
            raise ValueError("the narration was cut off at max_tokens before its first sentence ended")
        notes = (f"synthesis: the narration reached max_tokens ({max_tokens}); its unfinished last sentence "
                 f"was dropped",)
    prose = parse_narration(text, [h.id for h in hits[:LLM_EVIDENCE]])
    if not prose.sentences:
        raise ValueError("the narration was empty")
    if short:
        kept: list[Sentence] = []
        for s in prose.sentences:
            if sum(_words(k.text) for k in kept) + _words(s.text) > SHORT_WORDS:
                break
            kept.append(s)
        prose = Prose(sentences=tuple(kept or prose.sentences[:1]), mode="llm")
    return prose, notes


def repeats_a_row(sentence: str, results: Sequence[Any]) -> bool:
    """True when ``sentence`` reproduces a table row: two or more of one row's cells, verbatim."""
    text = sentence.casefold()
    for r in results:
        if r.kind != "table":
            continue
        for row in r.rows:
            cells = [str(v).casefold() for v in row if v is not None and len(str(v)) > 3]
            if sum(1 for c in cells if c in text) >= 2:
                return True
    return False


def synthesize(
    intent: Intent,
    query: str,
    results: Sequence[Any],
    hits: Sequence[EvidenceHit],
    specs: dict[str, CollectionSpec],
    *,
    llm: LLM | None = None,
    load_prompt: Callable[[str], str] | None = None,
    max_tokens: int = 512,
    vectors: SentenceVectors | None = None,
) -> Synthesis:
    """Prose for one response: LLM narration when ``llm`` is given, else (or on any failure) extractive."""
    if not hits:
        return Synthesis(Prose(mode="none"))
    base = extractive(intent, query, results, hits, specs, vectors)
    if llm is None or load_prompt is None:
        return Synthesis(base)
    short = intent.format != "default" and any(
        r.kind in ("table", "chart", "timeline", "graph") for r in results)
    try:
        system = load_prompt("synthesis_tables" if short else "synthesis_default")
        prose, notes = narrate(llm, system, query, hits, results, short=short,
                               max_tokens=min(max_tokens, 200) if short else max_tokens)
        if short:
            kept = tuple(x for x in prose.sentences if not repeats_a_row(x.text, results))
            if len(kept) < len(prose.sentences):
                notes += (f"synthesis: left out {len(prose.sentences) - len(kept)} narrated sentence(s) that "
                         f"repeated table rows (the tables show them)",)
            if not kept:
                return Synthesis(base, degraded=notes + ("synthesis: extractive answer instead",))
            prose = Prose(sentences=kept, mode="llm")
        return Synthesis(prose, degraded=notes, model=getattr(llm, "name", None))
    except Exception as exc:  # any narration failure (model, prompt file, parsing) must not fail the answer
        return Synthesis(base, degraded=(f"synthesis: LLM narration failed ({type(exc).__name__}: {exc}); "
                                         f"extractive answer instead",))
