"""Chunking: pure functions from text to retrievable spans.

Invariants (property-tested in ``tests/ingest/test_chunking.py``):

* every chunk is a stripped, non-empty span of the input, in order, and the chunks together cover every
  non-whitespace character of the input (nothing is dropped, nothing invented);
* no chunk is longer than ``max_chars``;
* a Markdown chunk's ``heading_path`` is the chain of headings enclosing it, as they appear in the text.

Spans are cut at the strongest boundary that fits: a blank line (paragraph), then a sentence end, then any
whitespace, and only as a last resort inside a word (e.g. a base64 blob).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["MAX_CHUNK_CHARS", "ChunkDraft", "Section", "chunk_markdown", "chunk_text", "pack", "split_markdown"]

# Chosen to keep a chunk *plus* its title/breadcrumb prefix inside MiniLM's 256-word-piece window.
# Measured on 1,804 SciFact abstracts (dense biomedical English, a pessimistic case) cut to 700 characters:
# p50 155, p95 190, p99 209 word pieces, leaving ~45 for the prefix. At 800 characters p99 was 236, which the
# prefix would push past 256 and the tail of the chunk would silently go unembedded.
MAX_CHUNK_CHARS = 700

_PARAGRAPH = re.compile(r"\n[ \t]*\n\s*")
_SENTENCE = re.compile(r"(?<=[.!?…。])[\"')\]]*\s+")
_SPACE = re.compile(r"\s+")
_NON_SPACE = re.compile(r"\S")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


@dataclass(frozen=True, slots=True)
class ChunkDraft:
    """A chunk before it has ids: its breadcrumb and its text."""

    heading_path: tuple[str, ...]
    text: str


@dataclass(frozen=True, slots=True)
class Section:
    """A Markdown heading with the text under it (the heading line included, so nothing is lost)."""

    heading_path: tuple[str, ...]
    text: str


def _last_break(pattern: re.Pattern[str], text: str, start: int, limit: int) -> tuple[int, int] | None:
    """The last ``pattern`` match inside ``text[start:limit]`` that leaves a non-empty chunk before it."""
    best = None
    for match in pattern.finditer(text, start, limit):
        if match.start() > start:
            best = (match.start(), match.end())
    return best


def pack(text: str, max_chars: int = MAX_CHUNK_CHARS) -> list[str]:
    """Greedy packing of paragraphs (then sentences, then words) into spans of at most ``max_chars``.

    Greedy is enough here: chunks only need to fit the embedding window; balancing their sizes buys
    nothing measurable in retrieval.
    """
    if max_chars < 1:
        raise ValueError("max_chars must be >= 1")
    chunks: list[str] = []
    pos, end = 0, len(text)
    while pos < end:
        while pos < end and text[pos].isspace():
            pos += 1
        if pos >= end:
            break
        limit = pos + max_chars
        # "Does the rest fit?" without copying the rest: only whitespace may follow the limit. Slicing the
        # remainder here made packing quadratic (a 2 MB paragraph-free file copied ~3,000 times).
        if limit >= end or _NON_SPACE.search(text, limit, end) is None:
            chunks.append(text[pos:end].strip())
            break
        # Let a boundary that ends exactly at the limit count, e.g. "…word. Next" with the space at `limit`.
        search_to = min(end, limit + 1)
        cut = (
            _last_break(_PARAGRAPH, text, pos, search_to)
            or _last_break(_SENTENCE, text, pos, search_to)
            or _last_break(_SPACE, text, pos, search_to)
        )
        if cut is None or cut[0] > limit:
            cut = (limit, limit)
        piece = text[pos : cut[0]].strip()
        if piece:
            chunks.append(piece)
        pos = cut[1]
    return chunks


def chunk_text(text: str, heading_path: tuple[str, ...] = (), max_chars: int = MAX_CHUNK_CHARS) -> list[ChunkDraft]:
    """Plain text (or one PDF page): packed paragraphs under one breadcrumb."""
    return [ChunkDraft(heading_path, piece) for piece in pack(text, max_chars)]


def split_markdown(text: str) -> list[Section]:
    """Split at ATX headings (``#`` … ``######``), ignoring ``#`` lines inside fenced code blocks.

    Setext headings (underlined with ``===``) are kept as ordinary text: they are rare in the docs we
    ingest and ambiguous with tables and horizontal rules.
    """
    sections: list[Section] = []
    path: list[tuple[int, str]] = []
    current: list[str] = []
    current_path: tuple[str, ...] = ()
    fence: str | None = None
    for line in text.splitlines(keepends=True):
        stripped = line.rstrip("\r\n")
        opening = _FENCE.match(stripped)
        if fence is not None:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = None
            current.append(line)
            continue
        if opening:
            fence = opening.group(1)
            current.append(line)
            continue
        heading = _ATX.match(stripped)
        if heading and (heading.group(2) or "").strip():
            if "".join(current).strip():
                sections.append(Section(current_path, "".join(current)))
            level, title = len(heading.group(1)), _SPACE.sub(" ", heading.group(2)).strip()
            while path and path[-1][0] >= level:
                path.pop()
            path.append((level, title))
            current_path = tuple(t for _, t in path)
            current = [line]
            continue
        current.append(line)
    if "".join(current).strip():
        sections.append(Section(current_path, "".join(current)))
    return sections


def chunk_markdown(text: str, max_chars: int = MAX_CHUNK_CHARS) -> list[ChunkDraft]:
    """Heading-aware chunks: each section is packed on its own, so no chunk straddles two headings."""
    out: list[ChunkDraft] = []
    for section in split_markdown(text):
        out.extend(chunk_text(section.text, section.heading_path, max_chars))
    return out
