"""Check prose against its evidence: cited ids exist, and each sentence's checkable claims are in what it cites.

Checkable claims are the things a narrator most often gets wrong and a reader most often trusts: numbers,
URLs and names (capitalised phrases, product-like tokens, acronyms — found by the same extractor ingest
uses for entities). A sentence whose claims are not all found, case-insensitively, in the text and
stored fields of the evidence it cites is replaced by a visible "could not verify" marker: the reader
sees that something was withheld, and nothing unsupported is shown as fact.

Being in the source is not being safe to repeat: a sentence that passes is then checked by the content-safety
layer (:mod:`.safety`). A credential prompt or an instruction to the reader that comes with a link is withheld
behind a marker; other flagged sentences are shown unverified with their ``safety`` reasons. Pure.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..ingest.entities import extract_entities
from ..types import EvidenceHit, Prose, Sentence
from .auditor.l1_text import l1_fix
from .auditor.l2_constraints import check as constraint_check
from .auditor.units import Constraints
from .safety import WITHHELD_MARKER, sentence_flags, withholds

__all__ = ["AuditReport", "UNVERIFIED_MARKER", "audit", "claims", "evidence_text"]

UNVERIFIED_MARKER = "[could not verify this sentence against its sources]"

_URL = re.compile(r"https?://[^\s\]\)>\"']+", re.IGNORECASE)
# Numbers with their decimal part; a bare ordinal-free integer such as "2" in "2 papers" counts too,
# because a wrong count is exactly the kind of claim that must be sourced.
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,:/-]\d+)*(?:\.\d+)?")


def evidence_text(hit: EvidenceHit) -> str:
    """Everything a sentence citing ``hit`` may draw on: title, chunk text, breadcrumb, url, date, fields."""
    parts: list[str] = [hit.item.title, hit.chunk.text, " ".join(hit.chunk.heading_path), hit.item.url or ""]
    if hit.item.date:
        parts.append(hit.item.date.isoformat())
    for value in hit.item.fields.values():
        if isinstance(value, tuple):
            parts.extend(str(v) for v in value)
        elif isinstance(value, dt.date):
            parts.append(value.isoformat())
        elif value is not None:
            parts.append(str(value))
    return "\n".join(parts)


def claims(text: str) -> list[str]:
    """The checkable claims in one sentence: URLs, then numbers and names outside those URLs."""
    urls = [u.rstrip(".,;:") for u in _URL.findall(text)]
    rest = _URL.sub(" ", text)
    numbers = _NUMBER.findall(rest)
    names = list(extract_entities(rest))
    return [*urls, *numbers, *names]


def _supported(claim: str, haystack: str) -> bool:
    if claim.casefold() in haystack:
        return True
    # names may wrap or be spaced differently in the source ("Reciprocal  Rank\nFusion")
    return " ".join(claim.casefold().split()) in " ".join(haystack.split())


@dataclass(frozen=True, slots=True)
class AuditReport:
    prose: Prose
    rejected: tuple[tuple[int, str], ...]  # (sentence index, why) for each replaced sentence

    @property
    def failures(self) -> tuple[str, ...]:
        """One line per replaced sentence, for diagnostics: ``sentence N: why``."""
        return tuple(f"sentence {i + 1}: {why}" for i, why in self.rejected)


def audit(prose: Prose, hits: Sequence[EvidenceHit]) -> AuditReport:
    """Verify every sentence of ``prose`` against ``hits``; failing sentences become the marker."""
    by_id: Mapping[str, EvidenceHit] = {h.id: h for h in hits}
    out: list[Sentence] = []
    rejected: list[tuple[int, str]] = []
    own_urls = tuple(dict.fromkeys(h.item.url for h in hits if h.item.url))
    for i, sentence in enumerate(prose.sentences):
        unknown = [c for c in sentence.citations if c not in by_id]
        cited = [c for c in sentence.citations if c in by_id]
        texts = {c: evidence_text(by_id[c]) for c in cited}
        haystack = "\n".join(texts.values()).casefold()
        why = []
        if prose.mode == "llm":
            # narrated prose gets the layered auditor's text fixes and dossier rules, with the cited passages
            # as its sources; extractive sentences are stored text and are only checked, never rewritten
            constraints = Constraints(source_urls=(*own_urls, *(u.rstrip(".,;:") for u in _URL.findall(haystack))),
                                      sources=texts)
            fixed = l1_fix(sentence.text, constraints).text
            if fixed:
                sentence = Sentence(text=fixed, citations=sentence.citations, verified=sentence.verified,
                                    safety=sentence.safety)
            why.extend(r for r in constraint_check(sentence.text, constraints) if not r.startswith("names not"))
        missing = [c for c in claims(sentence.text) if not _supported(c, haystack)]
        if unknown:
            why.insert(0, f"cites unknown ids {unknown}")
        if missing:
            why.insert(len(unknown) and 1, f"{'uncited' if not cited else 'unsupported'} claims {missing[:5]}")
        if why:
            rejected.append((i, "; ".join(why)))
            out.append(Sentence(text=UNVERIFIED_MARKER, citations=tuple(cited), verified=False))
            continue
        flags = sentence_flags(sentence.text, [by_id[c].item.url for c in cited])
        if flags and withholds(flags, sentence.text):
            rejected.append((i, f"withheld by content safety: {'; '.join(flags)}"))
            why_short = ", ".join(f.split(" (")[0] for f in flags)
            out.append(Sentence(text=WITHHELD_MARKER.format(why=why_short), citations=tuple(cited), verified=False,
                                safety=flags))
        elif flags:
            rejected.append((i, f"flagged by content safety: {'; '.join(flags)}"))
            out.append(Sentence(text=sentence.text, citations=tuple(cited), verified=False, safety=flags))
        else:
            out.append(Sentence(text=sentence.text, citations=tuple(cited), verified=sentence.verified))
    return AuditReport(prose=Prose(sentences=tuple(out), mode=prose.mode), rejected=tuple(rejected))
