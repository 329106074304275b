"""Deterministic entity extraction for the graph leg: cheap patterns, not NER.

The graph leg only needs names that recur across chunks so co-occurrence edges mean something. Three
patterns catch most of those in technical and news text without a model:

* capitalised multi-word phrases ("Reciprocal Rank Fusion", "New York Times"), leading articles dropped;
* a single capitalised word *inside* a sentence ("works with Tantivy"), where capitals mark a name;
* product-looking single tokens: inner capitals (PostgreSQL, OpenAI, pgVector), letters mixed with
  digits (GPT-4, Llama-3.1, Qwen2.5, BM25), acronyms of 2–6 capitals (HNSW, RRF);
* values of a record's ``keyword``/``list`` fields (product, authors, venue), which are entities by
  declaration.

A capitalised word at the start of a sentence or line ("Search", "Today") is *not* taken on its own:
sentence-initial words would flood the graph. Names are normalised (NFKC, casefold, whitespace collapsed) so "OpenAI" and "openai" meet.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping

from ..types import CollectionSpec, FieldValue

__all__ = ["MAX_ENTITIES_PER_CHUNK", "extract_entities", "normalize_entity", "record_entities"]

# A chunk mentioning more names than this is usually a list or a bibliography; the first ones are kept
# so the co-occurrence graph does not grow quadratically on such chunks.
MAX_ENTITIES_PER_CHUNK = 24

_CAP = r"[A-Z][\w'’&.-]*[\w]"
# "and" is not a connector: "Tantivy and HNSW" are two names, not one.
_PHRASE = re.compile(rf"\b{_CAP}(?:[ \t]+(?:(?:of|for|de|la|von|van)[ \t]+)?{_CAP})+")
_WORD = re.compile(r"\b[A-Z][a-z]{2,}\b")
_MID_SENTENCE = re.compile(r"[a-z0-9,;][ \t]*$")
_PRODUCT = re.compile(
    r"(?<![\w.-])(?:"
    r"[A-Za-z]*[a-z][A-Z][\w]*(?:[.-]\w+)*"  # inner capital: PostgreSQL, OpenAI, iPhone
    r"|[A-Za-z]+-?\d+(?:\.\d+)*[A-Za-z]*(?:-[A-Za-z0-9]+)*"  # letters then digits: GPT-4, Qwen2.5, BM25
    r"|[A-Z]{2,6}s?"  # acronyms: HNSW, RRF, APIs
    r")(?![\w-])"
)
_LEADING = {"the", "a", "an", "this", "that", "these", "those", "in", "on", "at", "for", "and", "but", "if", "when"}
_STOP_ACRONYMS = {"OK", "AM", "PM", "US", "UK", "EU", "I", "II", "III", "IV", "TODO", "NOTE", "FAQ"}
_VERSIONISH = re.compile(r"^[v\d][\d.\-_a-z]*$", re.IGNORECASE)
_SPACE = re.compile(r"\s+")


def normalize_entity(name: str) -> str:
    """The form entities are stored and matched under: NFKC, casefolded, single spaces, no edge punctuation."""
    name = unicodedata.normalize("NFKC", name).casefold()
    return _SPACE.sub(" ", name).strip(" \t\n.,;:!?\"'()[]{}")


def _phrase_words(phrase: str) -> str:
    words = phrase.split()
    while words and words[0].casefold() in _LEADING:
        words = words[1:]
    return " ".join(words) if len(words) >= 2 else ""


def _dedupe(names: Iterable[str], limit: int) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for name in names:
        norm = normalize_entity(name)
        if len(norm) >= 2 and norm not in seen:
            seen[norm] = None
            if len(seen) >= limit:
                break
    return tuple(seen)


def extract_entities(text: str, limit: int = MAX_ENTITIES_PER_CHUNK) -> tuple[str, ...]:
    """Normalised entity names in ``text``, in order of first appearance, at most ``limit``."""
    found: list[tuple[int, str]] = []
    for match in _PHRASE.finditer(text):
        phrase = _phrase_words(match.group(0))
        if phrase:
            found.append((match.start(), phrase))
    covered = [(m.start(), m.end()) for m in _PHRASE.finditer(text)]
    for match in _WORD.finditer(text):
        inside = any(a <= match.start() < b for a, b in covered)
        if not inside and _MID_SENTENCE.search(text, max(0, match.start() - 3), match.start()):
            found.append((match.start(), match.group(0)))
    for match in _PRODUCT.finditer(text):
        token = match.group(0)
        if token in _STOP_ACRONYMS or token.isdigit():
            continue
        found.append((match.start(), token))
    found.sort(key=lambda pair: pair[0])
    return _dedupe((name for _, name in found), limit)


def _field_names(value: FieldValue) -> list[str]:
    if isinstance(value, tuple):
        return [str(v) for v in value]
    if isinstance(value, str):
        return [value]
    return []


def record_entities(fields: Mapping[str, FieldValue], spec: CollectionSpec, text: str = "") -> tuple[str, ...]:
    """Entities of one record: its ``keyword``/``list`` field values first, then names found in ``text``.

    Version-like values ("1.2.0", "v3") are not entities: they would link unrelated products.
    """
    declared: list[str] = []
    for field in spec.fields:
        if field.type in ("keyword", "list") and field.name != spec.id_field and field.name in fields:
            declared.extend(v for v in _field_names(fields[field.name]) if v.strip() and not _VERSIONISH.match(v.strip()))
    from_text = extract_entities(text) if text else ()
    return _dedupe([*declared, *from_text], MAX_ENTITIES_PER_CHUNK)
