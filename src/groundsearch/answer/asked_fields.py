"""A question about one record's stored field, answered from that field. Pure.

"Who is the first author of "LLaMA: …"?", "Which version of lightrag-hku is in the releases?", "At which venue
was RegaVAE published?": a records collection stores these values as typed fields, not in any sentence (a
paper's text is its section name, a release's its one-line summary), so a sentence-level answer can only list
the titles. When the question names a record on the page — its product, or its title (or the part of the title
before its colon) — and asks for a field that record stores, the field is the answer, cited to the record; the
audit finds the value among the record's own fields. Nothing is inferred: a record the question does not name,
or a field it does not store, answers nothing here.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from ..types import EvidenceHit

__all__ = ["field_answer", "named_records", "speaks_of"]

# what a question asks of a record, in the languages the demo questions come in (en es fr de), and where the
# records keep it; the first field a named record stores is read
_ASKED: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (re.compile(r"\bfirst author\b|\bprimer autor\b|\bpremier auteur\b|\berst(?:er|e)? autor\b|\berstautor\b"),
     ("authors:first",)),
    (re.compile(r"^who\b|\bwho (?:wrote|authored)\b|\bauthors?\b|\bautor(?:es|en)?\b|\bauteurs?\b|\bqui a écrit\b|"
                r"\bquién escribió\b|\bwer hat\b"), ("authors",)),
    (re.compile(r"\bvenue\b|\bconference\b|\bjournal\b|\bpublished (?:at|in)\b|\bwhere was\b.*\bpublished\b|"
                r"\bconferencia\b|\bconférence\b|\bkonferenz\b"), ("venue",)),
    (re.compile(r"\bversi(?:on|ón)s?\b"), ("version",)),
    (re.compile(r"^when\b|\bwhen (?:was|were|did)\b|\bwhat (?:month|year|date)\b|\bcuándo\b|\bquand\b|\bwann\b"),
     ("date",)),
    # "What is ctranslate2?", "What does mcp-proxy do?": what the record says it is, its own summary
    (re.compile(r"^(?:what(?:'s| is| are) \S+|what does \S+ do|¿?qué es \S+|qu'est-ce que \S+|was ist \S+)\s*\??$"),
     ("summary",)),
)
_WORDS = re.compile(r"\w+")


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text.casefold())
    return " " + " ".join(_WORDS.findall("".join(c for c in text if not unicodedata.combining(c)))) + " "


def _names(hit: EvidenceHit) -> list[str]:
    """How a question may name the record: its product, its title, the title's part before the colon."""
    out = []
    product = hit.item.fields.get("product")
    if isinstance(product, str):
        out.append(product)
    title = hit.item.title.strip()
    if title:
        out.append(title)
        head = title.split(":", 1)[0].strip()
        if head != title and len(head) >= 4:
            out.append(head)
    return [n for n in out if len(_fold(n).split()) >= 1 and len(n) >= 3]


def _value(hit: EvidenceHit, field: str) -> str | None:
    if field == "date":
        d = hit.item.date
        if d is None:
            return None
        return f"{d:%Y-%m}" if d.day == 1 else d.isoformat()  # a month-precision record is stored as the 1st
    name, _, part = field.partition(":")
    value = hit.item.fields.get(name)
    if isinstance(value, (list, tuple)):
        names = [str(v) for v in value if str(v).strip()]
        if not names:
            return None
        if part == "first" or len(names) == 1:
            return names[0]
        return ", ".join(names[:-1]) + " and " + names[-1]
    return str(value) if isinstance(value, (str, int, float)) and str(value).strip() else None


def named_records(query: str, hits: Sequence[EvidenceHit]) -> list[tuple[int, EvidenceHit, list[str]]]:
    """The records on the page the question names, each with the length of its longest name found in the
    question and the names it was found by."""
    asked = _fold(query)
    out = []
    for hit in hits:
        if not hit.item.fields:
            continue  # a document: its title names a page, not a record with fields
        found = [n for n in _names(hit) if _fold(n) in asked]
        if found:
            out.append((max(len(_fold(n)) for n in found), hit, found))
    return out


def field_answer(query: str, hits: Sequence[EvidenceHit]) -> tuple[str, EvidenceHit] | None:
    """The value of the field ``query`` asks of the record it names, and the hit that stores it; None when
    the question names no record on the page, or asks for nothing that record stores."""
    folded = " ".join(query.casefold().split())
    fields = next((f for pattern, f in _ASKED if pattern.search(folded)), None)
    if fields is None:
        return None
    named = [(length, hit) for length, hit, _ in named_records(query, hits)]
    if not named:
        return None
    best = max(length for length, _ in named)
    # two records named as well as each other (two versions of one product) is a question this cannot settle
    top = list({h.item.id: h for length, h in named if length == best}.values())
    if len(top) != 1:
        return None
    for field in fields:
        value = _value(top[0], field)
        if value is not None:
            return value, top[0]
    return None


def speaks_of(text: str, names: Sequence[str]) -> bool:
    """``text`` names one of ``names`` (whole words, case and accents aside)."""
    folded = _fold(text)
    return any(_fold(n) in folded for n in names)
