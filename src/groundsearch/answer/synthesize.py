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
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..models import metering
from ..models.base import LLM, ChatMessage, Completion
from ..store.text import analyze
from ..types import CollectionSpec, EvidenceHit, Intent, Prose, Sentence
from .answer_type import expected_type
from .extractive import answer, no_answer
from .sentence_vectors import SentenceVectors
from .summary import SHORT_WORDS, counted_answer, short_paragraph

__all__ = ["SHORT_WORDS", "Synthesis", "declined", "evidence_block", "extractive", "narrate", "parse_narration", "repeats_a_row",
           "synthesize"]

# The prompt is the cost of narration on a CPU model: prompt evaluation ran at ~5 tokens/s on this project's
# shared 2-core machine at load 12-16 (~170 tokens/s idle), so 8 passages of 700 characters (~1,500 tokens)
# could never finish inside the 20 s timeout. Five windows of 360 characters, each around the passage's
# sentence closest to the request, within 1,500 characters in all, keep the prompt near 450 tokens.
LLM_EVIDENCE = 5
LLM_PASSAGE_CHARS = 360
LLM_EVIDENCE_CHARS = 1500
# Questions asking for one person, place or date: no table, chart or timeline paragraph states that value
# (it counts rows), so beside a shape such a question still gets its extractive answer (MuSiQue tune with the
# format hinted: gold in the prose 0.00 as chart, table or timeline; see BENCHMARKS.md, answers17)
ASKS_ONE_VALUE = frozenset({"person", "place", "date"})
_CITE = re.compile(r"\[(e\d+)\]")
_LEAD_MARK = re.compile(r"^(?:[-*+]\s+|\d+\.\s+|>\s*)")  # bullet, number or quote marker
_FENCED = re.compile(r"```.*?(?:```|$)", re.DOTALL)  # a code block (or one left open by a cut-off reply)
_WORD = re.compile(r"[^\W\d_]{2,}")  # two letters in a row: the least a sentence has
# The model saying, in its own words, that the evidence holds no answer ("The evidence does not mention …").
_DECLINES = re.compile(r"\b(?:does not|doesn't|do not|don't|cannot|can't|is not|isn't|no)\b[^.]{0,60}?"
                       r"\b(?:answer|mention|say|state|contain|provide|include|information|specify|found)",
                       re.IGNORECASE)


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
            if expected_type(query) in ASKS_ONE_VALUE:
                # "Who was in charge of the state where Shringarpur is located?" read (or hinted) as a chart: the
                # paragraph says what the rows hold, never who or when, so the question is answered first
                told = answer(query, hits, vectors)
                return Prose(sentences=(*told.sentences, *short.sentences), mode="extractive")
            return short
    if intent.format == "default":
        counted = counted_answer(query, hits, specs)
        if counted is not None:
            return counted
    return answer(query, hits, vectors)


# ---- LLM narration --------------------------------------------------------------------------------


def passage_window(text: str, focus: str = "", limit: int = LLM_PASSAGE_CHARS) -> str:
    """At most ``limit`` characters of ``text``, starting at its sentence that shares the most terms with
    ``focus`` (the request, or a sentence being restated): a passage's answer is often not in its first lines."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    wanted = set(analyze(focus))
    start, best = 0, 0
    if wanted:
        for m in re.finditer(r"(?:^|(?<=[.!?]\s))\S", text):
            end = text.find(". ", m.start())
            shared = len(wanted & set(analyze(text[m.start(): end if end > 0 else None])))
            if shared > best:
                start, best = m.start(), shared
    start = max(0, min(start, len(text) - limit))  # a window near the end still fills its length
    return ("… " if start else "") + text[start: start + limit]


def evidence_block(hits: Sequence[EvidenceHit], focus: str = "") -> str:
    """The top passages numbered ``[e1]…`` inside ``<evidence>`` tags (data, not instructions), each a
    window around ``focus``, cut off once the block holds :data:`LLM_EVIDENCE_CHARS` characters of text."""
    passages, used = [], 0
    for i, hit in enumerate(hits[:LLM_EVIDENCE], start=1):
        if used >= LLM_EVIDENCE_CHARS:
            break
        text = passage_window(hit.chunk.text, focus, min(LLM_PASSAGE_CHARS, LLM_EVIDENCE_CHARS - used + 40))
        used += len(text)
        passages.append(f"[e{i}] ({hit.item.collection}) {hit.item.title}: {text}")
    return "<evidence>\n" + "\n".join(passages) + "\n</evidence>"


def _messages(system: str, query: str, hits: Sequence[EvidenceHit], results: Sequence[Any]) -> list[ChatMessage]:
    """The request and passages go in tags as data; the system prompt alone carries instructions."""
    shown = ", ".join(f"{r.kind} ({getattr(r, 'collection', '') or getattr(r, 'title', '')})" for r in results
                      if r.kind in ("table", "chart", "timeline", "graph"))
    user = f"<request>{query}</request>\n"
    if shown:
        user += f"<shown>{shown}</shown>\n"
    user += evidence_block(hits, query)
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


def declined(prose: Prose) -> bool:
    """The narration cites nothing and says the evidence does not answer: an abstention, not an answer."""
    return not any(s.citations for s in prose.sentences) and any(_DECLINES.search(s.text) for s in prose.sentences)


def _complete_sentences(text: str) -> str:
    """``text`` up to its last sentence end: what survives of a reply cut off mid-sentence."""
    ends = [m.end() for m in re.finditer(r"[.!?](?:\s*\[e\d+\])*", text)]
    return text[: ends[-1]] if ends else ""


def _written(llm: LLM, messages: list[ChatMessage], max_tokens: int, deadline_s: float | None) -> Completion:
    """The model's reply, streamed when it can stream so that a reply still being written at ``deadline_s``
    keeps what it has (``finish_reason`` ``deadline``) instead of being lost to a timeout."""
    stream = getattr(llm, "stream", None)
    if stream is None or deadline_s is None:
        return llm.complete(messages, max_tokens=max_tokens)
    started, pieces = time.monotonic(), []
    replies = stream(messages, max_tokens=max_tokens)
    try:
        for piece in replies:
            if isinstance(piece, Completion):
                return piece
            pieces.append(piece)
            if time.monotonic() - started > deadline_s:
                break
    finally:
        replies.close()  # stops decoding on the server
    # a stream closed early never reaches its own charge: the tokens decoded so far are charged here
    late = Completion(text="".join(pieces), model=getattr(llm, "name", ""), finish_reason="deadline",
                      prompt_tokens=metering.estimated_prompt_tokens(messages), completion_tokens=len(pieces))
    metering.charge(late)
    return late


def narrate(llm: LLM, system: str, query: str, hits: Sequence[EvidenceHit], results: Sequence[Any], *,
            short: bool, max_tokens: int, deadline_s: float | None = None) -> tuple[Prose, tuple[str, ...]]:
    """One bounded LLM call → (prose, degraded notes); raises when nothing usable came back (the caller
    falls back). A reply cut off at ``max_tokens`` or at ``deadline_s`` keeps its complete sentences and
    says so; the unfinished one is dropped, never shown."""
    completion = _written(llm, _messages(system, query, hits, results), max_tokens, deadline_s)
    text, notes = completion.text, ()
    if completion.finish_reason in ("length", "deadline"):
        text = _complete_sentences(text)
        if not text.strip():
            raise ValueError("the narration was cut off at max_tokens before its first sentence ended")
        limit = f"max_tokens ({max_tokens})" if completion.finish_reason == "length" else "the LLM timeout"
        notes = (f"synthesis: the narration reached {limit}; its unfinished last sentence was dropped",)
    prose = parse_narration(text, [h.id for h in hits[:LLM_EVIDENCE]])
    if not prose.sentences:
        raise ValueError("the narration was empty")
    if declined(prose):
        # the same plain notice, naming the closest matches, that the extractive answer gives: a reader (and
        # the eval's abstention count) sees one way of saying "not found", whoever wrote the answer
        return Prose(sentences=(no_answer(hits),), mode="extractive"), notes + (
            "synthesis: the model found no answer in the evidence; the no-answer notice is shown",)
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
    deadline_s: float | None = None,
) -> Synthesis:
    """Prose for one response: LLM narration when ``llm`` is given, else (or on any failure) extractive."""
    if not hits:
        return Synthesis(Prose(mode="none"))
    base = extractive(intent, query, results, hits, specs, vectors)
    if llm is None or load_prompt is None:
        return Synthesis(base)
    if intent.format == "default" and counted_answer(query, hits, specs) is not None:
        return Synthesis(base)  # counted from every result's stored field: a model would count its five passages
    short = intent.format != "default" and any(
        r.kind in ("table", "chart", "timeline", "graph") for r in results)
    try:
        system = load_prompt("synthesis_tables" if short else "synthesis_default")
        prose, notes = narrate(llm, system, query, hits, results, short=short,
                               max_tokens=min(max_tokens, 200) if short else max_tokens, deadline_s=deadline_s)
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
