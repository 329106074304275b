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

Code is not prose: fenced and inline code, markup tags, URLs and file names are blanked before matching,
and SQL keywords ("CREATE INDEX"), shell and markup words, generic web acronyms ("CDN", "API", "URL") and
build-file stems ("pom") are never names — otherwise a README's SQL and HTML become the graph's hubs and
the "popular topics". ``tests/ingest/data/entity_sample.jsonl`` is the labelled sample their precision is
measured on.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping

from ..types import CollectionSpec, FieldValue

__all__ = ["ENTITY_FORMAT", "MAX_ENTITIES_PER_CHUNK", "STOP_NAMES", "extract_entities", "is_name", "normalize_entity", "record_entities"]

# Bump when extraction changes, so derived data (the eval caches' mentions) is re-extracted.
ENTITY_FORMAT = 2
_SINGLE_FIELD = re.compile(r"\{(\w+)\}")
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
# Words that are syntax or plumbing, not names, in any case: SQL, shell, markup and generic web/file terms.
_SQL = ("select from where join inner outer left right on as and or not null insert into values update set delete "
        "create drop alter table index view trigger primary foreign key references unique default constraint "
        "varchar char text integer int bigint serial boolean bool float double numeric timestamp date "
        "order group by having limit offset union distinct exists in is like returning begin commit rollback "
        "grant revoke cascade if replace using with case when then else end vacuum analyze explain pragma")
_MARKUP = ("div span html head body script style link meta href src img br hr li ul ol td tr th table p a "
           "xml json yaml yml toml csv pom cdn api apis url urls uri http https www html5 css js dom "
           "id ids uuid true false none nil null todo fixme readme changelog license eof utf utf-8 ascii "
           "get post put patch delete head options sudo npm pip apt cd ls rm mkdir echo export env cli ci gui ui")
STOP_NAMES = frozenset(_SQL.split()) | frozenset(_MARKUP.split())
_FENCE = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)", re.S)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_TAG = re.compile(r"</?[A-Za-z][^<>\n]*>")
_URL = re.compile(r"\b(?:https?|ftp)://\S+|\bwww\.\S+")
_FILE = re.compile(r"\b[\w-]+\.(?:xml|json|ya?ml|toml|md|txt|csv|py|js|ts|java|html?|css|sql|sh|cfg|ini|lock|gz|zip)\b", re.I)
_CODE_LINE = re.compile(r"^\s*(?:[$#>]\s|[{}\[\]();]|.*[;{}]\s*$|.*\b\w+\([^)]*\)\s*[;{]?\s*$|.*\s(?:=|==|=>|->|:=)\s)", re.M)
# snake_case, lowerCamel with two or more humps (getUserById), UpperCamel with four or more words: code
# identifiers. Humps need a lower-case letter, so product names with acronyms (PostgreSQL, pgVector) pass.
_IDENT = re.compile(r"^(?:[a-z]+(?:_[a-z0-9]+)+|[a-z]+(?:[A-Z][a-z0-9]+){2,}|[A-Z][a-z]+(?:[A-Z][a-z0-9]+){3,})$")
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


def _strip_code(text: str) -> str:
    """Blank code, markup, URLs and file names (same length, so offsets and sentence context survive)."""
    def blank(m: re.Match[str]) -> str:
        return re.sub(r"\S", " ", m.group(0))

    for pattern in (_FENCE, _INLINE_CODE, _TAG, _URL, _FILE, _CODE_LINE):
        text = pattern.sub(blank, text) if pattern is not _CODE_LINE else _CODE_LINE.sub(
            lambda m: blank(m) if m.group(0).strip() else m.group(0), text)
    return text


def is_name(name: str) -> bool:
    """False for syntax and plumbing: SQL / markup / shell words, code identifiers, phrases of only those."""
    words = normalize_entity(name).split()
    if not words or all(w in STOP_NAMES for w in words):
        return False
    if len(words) > 1 and sum(w in STOP_NAMES for w in words) * 2 >= len(words):
        return False  # "CREATE UNIQUE INDEX Users": mostly SQL
    return not (len(words) == 1 and _IDENT.match(name.strip()))


def _dedupe(names: Iterable[str], limit: int) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for name in names:
        norm = normalize_entity(name)
        if len(norm) >= 2 and norm not in seen and is_name(name):
            seen[norm] = None
            if len(seen) >= limit:
                break
    return tuple(seen)


def extract_entities(text: str, limit: int = MAX_ENTITIES_PER_CHUNK) -> tuple[str, ...]:
    """Normalised entity names in ``text``, in order of first appearance, at most ``limit``."""
    text = _strip_code(text)
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
    """Entities of one record: its name (the field its title is, when the title template is one field, as
    for encyclopedia pages and papers), its ``keyword``/``list`` field values, then names found in ``text``.

    Version-like values ("1.2.0", "v3") are not entities: they would link unrelated products.
    """
    declared: list[str] = []
    own = _SINGLE_FIELD.fullmatch(spec.title_template or "")
    if own and isinstance(fields.get(own.group(1)), str) and is_name(str(fields[own.group(1)])):
        declared.append(str(fields[own.group(1)]))
    for field in spec.fields:
        if field.type in ("keyword", "list") and field.name != spec.id_field and field.name in fields:
            declared.extend(v for v in _field_names(fields[field.name]) if v.strip() and not _VERSIONISH.match(v.strip()))
    from_text = extract_entities(text) if text else ()
    return _dedupe([*declared, *from_text], MAX_ENTITIES_PER_CHUNK)
