"""Record loaders: JSON (an array of objects), JSONL and CSV rows mapped onto a records collection's fields.

Each row becomes one item with typed fields (:mod:`.coerce`), a title from the collection's
``title_template`` and one chunk (title + text fields). Any bad row fails the whole file with an error naming
the file, the line/row and the reason, so a file is either ingested entirely or not at all.
"""

from __future__ import annotations

import csv
import io
import json
import re
import string
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ..query.quality import NEXT_REVIEW_FIELD, REVIEW_STATUS_FIELD, parse_review_date, parse_review_status
from ..types import CollectionSpec, FieldValue
from .chunking import ChunkDraft
from .coerce import coerce, parse_status, parse_url
from .documents import read_text
from .draft import Draft, ingest_error
from .entities import record_entities

__all__ = ["LONE_SURROGATE", "MAX_CSV_COLUMNS", "MAX_JSON_DEPTH", "RECORD_SUFFIXES", "load_records", "lone_surrogate",
           "record_draft", "render_value"]

RECORD_SUFFIXES = (".json", ".jsonl", ".ndjson", ".csv")
_SPECIAL = ("status", "superseded_by", "tenant")
# A records collection declares tens of fields; a header a thousand wide is a generated file or an attack.
MAX_CSV_COLUMNS = 1000
# A record is a flat object whose values are scalars or lists; real files nest a few levels. Deeper input is
# refused before anything walks it: Python's json raises RecursionError (not JSONDecodeError) past its own
# guard, and every recursive walk after a parse that just succeeded (coercion, rendering, storage) can too.
MAX_JSON_DEPTH = 32
# Python's json decodes the escape "\ud800" (valid JSON syntax) to a lone surrogate, a str that no UTF-8 encoder
# takes: the file parsed, then failed where its text is hashed or stored, as a 500.
_SURROGATE = re.compile("[\ud800-\udfff]")
LONE_SURROGATE = ("a JSON \\u escape names a lone UTF-16 surrogate (\\ud800-\\udfff), which is no character; "
                  "write the character itself, or both halves of its surrogate pair")


def render_value(value: FieldValue) -> str:
    """A field value as text (titles, chunk text): dates ISO, lists joined with ", "."""
    if value is None:
        return ""
    if isinstance(value, tuple):
        return ", ".join(value)
    if hasattr(value, "isoformat"):
        return value.isoformat()  # type: ignore[union-attr]
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _template_fields(template: str) -> list[str]:
    return [name for _, name, _, _ in string.Formatter().parse(template) if name]


def record_draft(row: Mapping[str, Any], spec: CollectionSpec, path: Path, *, line: int | None = None,
                 row_number: int | None = None) -> Draft:
    """One row → one :class:`Draft`; raises :class:`IngestError` naming the row and the reason."""

    def fail(reason: str) -> Exception:
        return ingest_error(path, reason, line=line, row=row_number)

    if not isinstance(row, Mapping):
        raise fail(f"a record must be an object with named fields, got {type(row).__name__}")
    fields: dict[str, FieldValue] = {}
    for field in spec.fields:
        try:
            value = coerce(field, row.get(field.name))
        except ValueError as exc:
            raise fail(str(exc)) from exc
        if value is not None:
            fields[field.name] = value

    required = [spec.id_field] if spec.id_field else []
    if spec.title_template:
        required += [f for f in _template_fields(spec.title_template) if f not in required]
    missing = [name for name in required if name not in fields and not str(row.get(name) or "").strip()]
    if missing:
        raise fail(f"missing required field {missing[0]!r}" + (f" (and {missing[1:]})" if missing[1:] else ""))

    if spec.title_template:
        values = {k: render_value(v) for k, v in fields.items()}
        values.update({k: str(v) for k, v in row.items() if k not in values and isinstance(v, (str, int, float))})
        try:
            title = spec.title_template.format_map(values).strip()
        except (KeyError, ValueError, IndexError) as exc:
            raise fail(f"title template {spec.title_template!r} cannot be filled: {exc}") from exc
    else:
        title = render_value(fields.get("title")) or str(row.get("title") or "").strip()

    text_names = spec.text_fields or tuple(f.name for f in spec.fields if f.type == "text")
    text = "\n\n".join(render_value(fields[n]) for n in text_names if n in fields)
    if not title and not text:
        raise fail("the record has neither a title nor any text field to index")
    if not title:
        title = render_value(fields[spec.id_field]) if spec.id_field else text.split("\n", 1)[0][:120]

    special: dict[str, Any] = {}
    for key in _SPECIAL:
        raw = row.get(key)
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            continue
        try:
            special[key] = parse_status(raw) if key == "status" else str(raw).strip()
        except ValueError as exc:
            raise fail(str(exc)) from exc

    for key, parse in ((NEXT_REVIEW_FIELD, parse_review_date), (REVIEW_STATUS_FIELD, parse_review_status)):
        # curation fields are typed item fields for every collection, declared or not (docs/curation.md)
        try:
            value = parse(row.get(key, fields.get(key)))
        except ValueError as exc:
            raise fail(str(exc)) from exc
        if value is not None:
            fields[key] = value

    chunk_text = f"{title}\n\n{text}" if text else title
    date = fields.get(spec.date_field) if spec.date_field else None
    url = fields.get(spec.url_field) if spec.url_field else None
    if isinstance(url, str):
        # the item's address becomes the page's result link whatever type the field is declared with: only
        # http(s), so a record cannot plant a javascript: or data: link a viewer would click
        try:
            url = parse_url(url)
        except ValueError as exc:
            raise fail(f"{spec.url_field}: {exc}") from exc
    key = render_value(fields[spec.id_field]) if spec.id_field else ""
    return Draft(
        title=title,
        text=text,
        chunks=(ChunkDraft((), chunk_text),),
        key=key,
        key_is_id=bool(spec.id_field),
        url=url if isinstance(url, str) else None,
        date=date,  # type: ignore[arg-type]
        fields=fields,
        status=special.get("status", "published"),
        superseded_by=special.get("superseded_by"),
        tenant=special.get("tenant", ""),
        entities=(record_entities(fields, spec, text),),
    )


def _too_deep(value: Any, limit: int) -> bool:
    """Whether ``value`` nests containers deeper than ``limit``, walked without recursion."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (list, dict)):
            if depth > limit:
                return True
            stack.extend((child, depth + 1) for child in (node.values() if isinstance(node, dict) else node))
    return False


def lone_surrogate(value: Any) -> bool:
    """Whether a string anywhere in ``value`` (object keys too) holds a lone surrogate, walked without recursion."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            if _SURROGATE.search(node):
                return True
        elif isinstance(node, dict):
            stack.extend(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


def _parse(path: Path, text: str, line: int | None, limit: int) -> Any:
    """``json.loads`` for a records file: nesting past ``limit`` is the caller's input error, like bad JSON."""
    too_deep = f"JSON nested too deeply: a record may nest objects and arrays at most {MAX_JSON_DEPTH} levels"
    try:
        data = json.loads(text)
    except RecursionError:
        raise ingest_error(path, too_deep, line=line) from None
    if _too_deep(data, limit):
        raise ingest_error(path, too_deep, line=line)
    if lone_surrogate(data):
        raise ingest_error(path, LONE_SURROGATE, line=line)
    return data


def _json_rows(path: Path, text: str) -> Iterator[tuple[dict[str, Any], int | None, int | None]]:
    try:
        data = _parse(path, text, None, MAX_JSON_DEPTH + 1)  # + 1: the array holding the records
    except json.JSONDecodeError as exc:
        raise ingest_error(path, f"invalid JSON: {exc.msg}", line=exc.lineno) from exc
    rows = data if isinstance(data, list) else [data]
    for number, row in enumerate(rows, start=1):
        yield row, None, number


def _jsonl_rows(path: Path, text: str) -> Iterator[tuple[dict[str, Any], int | None, int | None]]:
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = _parse(path, line, number, MAX_JSON_DEPTH)
        except json.JSONDecodeError as exc:
            raise ingest_error(path, f"bad JSON line: {exc.msg} at column {exc.colno}", line=number) from exc
        yield row, number, None


def _csv_rows(path: Path, text: str) -> Iterator[tuple[dict[str, Any], int | None, int | None]]:
    # Count the header's cells (the reader is lazy: only the first record is parsed) before DictReader builds a
    # dict per row out of them: a 50k-column header is refused at once instead of costing 50k-key dicts per row.
    try:
        columns = next(csv.reader(io.StringIO(text, newline="")), [])
    except csv.Error as exc:
        raise ingest_error(path, f"malformed CSV header: {exc}", line=1) from exc
    if len(columns) > MAX_CSV_COLUMNS:
        raise ingest_error(path, f"CSV header has {len(columns)} columns; the limit is {MAX_CSV_COLUMNS} columns",
                           line=1)
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = reader.fieldnames or []
    if not header or any(not (h or "").strip() for h in header):
        raise ingest_error(path, "CSV header row is missing or has an empty column name", line=1)
    dupes = sorted(name for name, n in Counter(header).items() if n > 1)
    if dupes:
        raise ingest_error(path, f"CSV header repeats column(s) {dupes}", line=1)
    try:
        for number, row in enumerate(reader, start=1):
            if None in row:
                raise ingest_error(path, f"row has {len(header) + len(row[None])} cells, header has {len(header)}",
                                   line=reader.line_num, row=number)
            yield {k.strip(): v for k, v in row.items()}, reader.line_num, number
    except csv.Error as exc:
        raise ingest_error(path, f"malformed CSV: {exc}", line=reader.line_num) from exc


def load_records(path: Path, spec: CollectionSpec) -> list[Draft]:
    """Every row of ``path`` as a draft, or an :class:`IngestError` for the first bad row."""
    text = read_text(path)
    suffix = path.suffix.lower()
    if suffix == ".json":
        rows = _json_rows(path, text)
    elif suffix in (".jsonl", ".ndjson"):
        rows = _jsonl_rows(path, text)
    elif suffix == ".csv":
        rows = _csv_rows(path, text)
    else:
        raise ingest_error(path, f"unknown extension {suffix or '(none)'!r}; records are {', '.join(RECORD_SUFFIXES)}")
    drafts = [record_draft(row, spec, path, line=line, row_number=number) for row, line, number in rows]
    if not drafts:
        raise ingest_error(path, "no records in the file")
    return drafts
