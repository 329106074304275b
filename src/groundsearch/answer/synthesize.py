"""Intent + structured results + evidence → ``Prose`` with a citation on every sentence.

Two modes. *Extractive* (the default, no model): sentences are chosen verbatim from the top evidence,
so every word is stored text. *LLM narration* (when an LLM is configured): the versioned synthesis
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
from ..store.text import analyze
from ..types import CollectionSpec, EvidenceHit, Intent, Prose, Sentence
from .normalize import display_name, theme_counts

__all__ = ["SHORT_WORDS", "Synthesis", "evidence_block", "extractive", "narrate", "parse_narration", "repeats_a_row",
           "synthesize"]

SHORT_WORDS = 80
FULL_SENTENCES = 4
PER_HIT = 2
CANDIDATE_HITS = 8
LLM_EVIDENCE = 8
LLM_PASSAGE_CHARS = 700
THEMES_IN_PROSE = 4
_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])|\n+")
_CITE = re.compile(r"\[(e\d+)\]")
_MD_NOISE = re.compile(r"^\s*(#|[-*+] |\d+\. |\||```|>)")
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


def _candidate_sentences(text: str) -> list[str]:
    """Readable sentences of a chunk: no headings, list bullets, table rows or code; 6–60 words."""
    out = []
    for raw in _SPLIT.split(text):
        s = " ".join(raw.split())
        if not s or _MD_NOISE.match(raw) or not 6 <= _words(s) <= 60 or "`" in s:
            continue
        out.append(s)
    return out


def _is_record(hit: EvidenceHit) -> bool:
    return bool(hit.item.fields) and not hit.chunk.heading_path


def extractive_full(query: str, hits: Sequence[EvidenceHit]) -> Prose:
    """Up to four sentences from the top evidence, those sharing most terms with the query first,
    at most two per hit, presented in evidence rank order so the answer reads top-down."""
    terms = set(analyze(query))
    scored: list[tuple[float, int, int, str, str]] = []
    for rank, hit in enumerate(hits[:CANDIDATE_HITS]):
        for pos, s in enumerate(_candidate_sentences(hit.chunk.text)):
            if hit.item.collection and hit.item.title and hit.item.title not in s and _is_record(hit):
                s = f"{hit.item.title}: {s}"  # a record's summary says nothing without whose it is
            overlap = len(terms & set(analyze(s))) / (len(terms) or 1)
            scored.append((overlap, rank, pos, s, hit.id))
    chosen: list[tuple[int, int, str, str]] = []
    per_hit: dict[str, int] = {}
    for overlap, rank, pos, s, hid in sorted(scored, key=lambda t: (-t[0], t[1], t[2])):
        if len(chosen) >= FULL_SENTENCES:
            break
        if per_hit.get(hid, 0) >= PER_HIT or (overlap == 0 and chosen):
            continue
        per_hit[hid] = per_hit.get(hid, 0) + 1
        chosen.append((rank, pos, s, hid))
    chosen.sort()
    return Prose(sentences=tuple(Sentence(text=s, citations=(hid,)) for _, _, s, hid in chosen), mode="extractive")


def _join(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def extractive_short(results: Sequence[Any], hits: Sequence[EvidenceHit], specs: dict[str, CollectionSpec]) -> Prose:
    """One paragraph introducing the structured results: what they show and the recurring themes.

    It says nothing a row says (no titles, no versions, no dates): the table carries those. Each sentence
    cites the evidence it summarises, so the audit can hold it to that evidence.
    """
    sentences: list[Sentence] = []
    for r in results:
        if r.kind == "table" and r.row_ids:
            sentences.append(Sentence(text=f"The {r.collection} table lists the matching {r.collection} from the "
                                           f"stored collection, one row per item.", citations=r.row_ids[:3]))
        elif r.kind == "chart" and r.points:
            ids = tuple(dict.fromkeys(i for p in r.points for i in p.source_ids))[:3]
            text = ("The chart ranks themes by how many of the top results mention them." if r.x_label == "theme"
                    else f"The chart counts the top results per {r.x_label}.")
            sentences.append(Sentence(text=text, citations=ids))
        elif r.kind == "unsupported-format":
            sentences.append(Sentence(text=f"A {r.requested} diagram cannot be drawn from the stored data, so a "
                                           f"{r.substitute.split(':')[-1]} chart is shown instead.",
                                      citations=(hits[0].id,) if hits else ()))
    themes = [(e, ids) for e, ids in theme_counts(hits, specs) if len(ids) >= 2][:THEMES_IN_PROSE]
    if themes:
        names = [display_name(e, hits) for e, _ in themes]
        ids = tuple(dict.fromkeys(ids[0] for _, ids in themes))
        sentences.append(Sentence(text=f"Recurring themes across these results include {_join(names)}.", citations=ids))
    kept: list[Sentence] = []
    for s in sentences:
        if sum(_words(k.text) for k in kept) + _words(s.text) > SHORT_WORDS:
            break
        kept.append(s)
    return Prose(sentences=tuple(kept), mode="extractive")


def extractive(intent: Intent, query: str, results: Sequence[Any], hits: Sequence[EvidenceHit],
               specs: dict[str, CollectionSpec]) -> Prose:
    carries = any(r.kind in ("table", "chart", "timeline", "graph") for r in results)
    if intent.format != "default" and carries:
        return extractive_short(results, hits, specs)
    return extractive_full(query, hits)


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
) -> Synthesis:
    """Prose for one response: LLM narration when ``llm`` is given, else (or on any failure) extractive."""
    if not hits:
        return Synthesis(Prose(mode="none"))
    base = extractive(intent, query, results, hits, specs)
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
