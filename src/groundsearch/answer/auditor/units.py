"""The values the auditor passes around, and how a reply is cut into units and put back together.

A unit is one sentence (or one heading / list line) of a reply; units keep the paragraph they came from, so a
reply whose third sentence was rerolled reassembles with its paragraphs, headings and lists where they were, and
a streaming client can replace one paragraph without touching the ones it already shows. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

__all__ = ["MARKER", "AuditedReply", "Constraints", "Status", "Unit", "join_units", "norm_url", "split_units"]

MARKER = "[could not verify this claim against the provided sources]"

Status = Literal["ok", "fixed", "rerolled", "marked"]

# A sentence ends at . ! ? followed by a capital, digit, quote, bracket or markdown emphasis. Abbreviations and
# "et al." are re-joined below, so "Smith et al. (2021) found" stays one sentence.
_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'“(\[*_])")
_ABBREV_END = re.compile(r"\b(?:[A-Z]|[A-Z][a-z]{0,3}|e\.g|i\.e|vs|etc|al|No|St|Dr|Mr|Mrs|Ms|Jr|U\.S)\.$")
_LINE_BLOCK = re.compile(r"^\s*(?:#{1,6}|\||[-*+]\s|\d+[.)]\s|>)")


def norm_url(url: str) -> str:
    """The form two spellings of one address share: scheme and host lower-cased, no fragment, no trailing
    slash or sentence punctuation (``https://Acme.com/docs/`` and ``https://acme.com/docs`` are one link)."""
    url = url.strip().rstrip(".,;:!?")
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    path = parts.path.rstrip("/")
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, parts.query, ""))


@dataclass(frozen=True, slots=True)
class Constraints:
    """What a reply may rest on: the dossier's arrays plus the text of each source.

    ``canonical_urls`` maps an entity (as the dossier names it) to its one canonical address, the target a
    link about that entity is rescued to. ``sources`` maps a source id to everything it says (title, text,
    fields); names, numbers and quotes are looked up there."""

    supported_entities: tuple[str, ...] = ()
    source_urls: tuple[str, ...] = ()
    canonical_urls: Mapping[str, str] = field(default_factory=dict)
    sources: Mapping[str, str] = field(default_factory=dict)
    # model prose: each sentence must also rest on one source's words (l2_constraints.unsupported); stored text
    # (extractive sentences, the configured fallback) is checked for its claims only
    require_support: bool = False
    # the numbers a reply may cite as ``[n]`` (chat's numbered dossier sources); empty: citations not checked here
    citable: frozenset[str] = frozenset()

    @classmethod
    def from_dossier(cls, dossier: Mapping[str, object], sources: Mapping[str, str] | None = None) -> Constraints:
        """From a dossier dict (``supported_entities``, ``source_urls``, optional ``canonical_urls`` and
        ``sources`` as a list of dicts with ``id`` and ``text``/``title``) — the shape chat's dossier has."""
        texts = dict(sources or {})
        raw = dossier.get("sources") or ()
        listed = [s for s in raw if isinstance(s, Mapping)] \
            if isinstance(raw, Iterable) and not isinstance(raw, (str, bytes, Mapping)) else []
        for s in listed:
            if s.get("id") is not None:
                texts.setdefault(str(s["id"]), "\n".join(str(s.get(k) or "") for k in ("title", "text", "url")))
        canonical = dict(dossier.get("canonical_urls") or {})  # type: ignore[call-overload]
        # no explicit map: an entity's canonical address is that of the first (best-ranked) source naming it
        for s in listed:
            if s.get("url"):
                for name in s.get("entities") or ():
                    canonical.setdefault(str(name), str(s["url"]))
        numbers = frozenset(str(s["n"]) for s in listed if s.get("n") is not None)
        return cls(supported_entities=tuple(str(e) for e in dossier.get("supported_entities") or ()),  # type: ignore[union-attr]
                   source_urls=tuple(str(u) for u in dossier.get("source_urls") or ()),  # type: ignore[union-attr]
                   canonical_urls=canonical,
                   sources=texts, citable=numbers)


@dataclass(frozen=True, slots=True)
class Unit:
    """One sentence (or heading / list line) of the reply and what the auditor did to it."""

    index: int
    paragraph: int
    original: str
    text: str  # what the reader sees ("" only for a sentence that was nothing but an unverifiable link)
    status: Status
    reasons: tuple[str, ...] = ()
    tries: int = 0  # rerolls spent on it
    line: int = 0  # the line (heading, list item, sentence run) inside its paragraph
    safety: tuple[str, ...] = ()  # content-safety flags (answer/safety.py) of the text shown; not a failure

    def as_dict(self) -> dict[str, object]:
        return {"index": self.index, "paragraph": self.paragraph, "status": self.status, "text": self.text,
                "original": self.original, "reasons": list(self.reasons), "tries": self.tries,
                "safety": list(self.safety)}


@dataclass(frozen=True, slots=True)
class AuditedReply:
    text: str
    units: tuple[Unit, ...]
    trace: tuple[str, ...]
    url_health: str  # "ran", or why it did not ("off: ..."); a reply never claims links it did not check

    @property
    def marked(self) -> int:
        return sum(u.status == "marked" for u in self.units)

    @property
    def rerolls(self) -> int:
        return sum(u.tries for u in self.units)

    def paragraphs(self) -> list[str]:
        return join_units(self.units).split("\n\n") if self.units else []

    def as_dict(self) -> dict[str, object]:
        return {"text": self.text, "units": [u.as_dict() for u in self.units], "trace": list(self.trace),
                "url_health": self.url_health, "marked": self.marked, "rerolls": self.rerolls}


def _sentences(line: str) -> list[str]:
    out: list[str] = []
    for piece in _SPLIT.split(line):
        piece = piece.strip()
        if not piece:
            continue
        if out and _ABBREV_END.search(out[-1]):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out


def split_units(text: str) -> list[tuple[int, int, str]]:
    """``(paragraph, line, text)`` per unit. Paragraphs are split at blank lines; inside one, headings, list
    items, table rows and quotes are lines of their own and a run of prose lines is one line cut into sentences."""
    out: list[tuple[int, int, str]] = []
    for p, para in enumerate(re.split(r"\n\s*\n", text.strip())):
        line_no = 0
        run: list[str] = []

        def flush() -> None:
            nonlocal line_no
            if run:
                # a line break ends a sentence too: model output puts "Source: <url>" on a line of its own
                out.extend((p, line_no, s) for row in run for s in _sentences(row))
                run.clear()
                line_no += 1

        for line in para.splitlines():
            if not line.strip():
                continue
            if _LINE_BLOCK.match(line):
                flush()
                out.append((p, line_no, line.strip()))
                line_no += 1
            else:
                run.append(line.strip())
        flush()
    return out


def join_units(units: Sequence[Unit]) -> str:
    """The reply again: sentences of one line joined by a space, lines by a newline, paragraphs by a blank line;
    an emptied unit leaves no stray space."""
    paragraphs: list[list[list[str]]] = []
    last: tuple[int, int] | None = None
    for u in units:
        if last is None or u.paragraph != last[0]:
            paragraphs.append([[]])
        elif u.line != last[1]:
            paragraphs[-1].append([])
        last = (u.paragraph, u.line)
        if u.text:
            paragraphs[-1][-1].append(u.text)
    rendered = ("\n".join(" ".join(line) for line in para if line) for para in paragraphs)
    return "\n\n".join(p for p in rendered if p)
