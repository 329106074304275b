"""The embedded store's SQLite schema and the pure codecs and SQL builders around it.

Nothing here touches a connection: DDL is a constant, rows are encoded/decoded by pure functions and
filters compile to ``(sql, params)`` pairs, so they are unit-testable and the driver code stays thin
(codecs apart from drivers, STYLE.md §5).

Why these tables:

* ``items`` / ``chunks`` are the truth. ``chunks.key`` is ``AUTOINCREMENT`` so a key is never reused:
  the derived keyword and vector indexes address chunks by key, and a reused key could resurrect a stale
  posting or vector after a crash.
* ``item_fields`` has one casefolded row per (field, list element) so field equality/membership filters are
  an indexed ``IN`` instead of JSON scans.
* ``mentions`` and ``entity_pairs`` feed the graph leg; ``entity_pairs.weight`` counts chunks in which both
  entities occur and is maintained on every write, so it is always exact.
* ``changes`` is the log the derived indexes catch up from: one row per chunk key inserted or deleted, in
  commit order, or given its vector later by the background embedder (``OP_VECTOR``).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..types import REVIEW_STATUSES, FieldValue, SearchFilter, Status

__all__ = [
    "DDL",
    "OP_DELETE",
    "OP_UPSERT",
    "OP_VECTOR",
    "SCHEMA_VERSION",
    "casefold_value",
    "date_from_ordinal",
    "date_ordinal",
    "decode_fields",
    "encode_fields",
    "field_rows",
    "filter_is_everything",
    "item_filter_sql",
    "like_escape",
    "review_status_sets",
    "vector_from_blob",
    "vector_to_blob",
]

SCHEMA_VERSION = 1
OP_UPSERT = 1
OP_DELETE = 0
OP_VECTOR = 2  # a pending chunk got its vector: the vector index re-reads it, the keyword index has nothing to do

DDL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS items (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    collection TEXT NOT NULL,
    title TEXT NOT NULL,
    title_fold TEXT NOT NULL,
    text TEXT NOT NULL,
    url TEXT,
    date_ord INTEGER,
    fields TEXT NOT NULL,
    tenant TEXT NOT NULL,
    status TEXT NOT NULL,
    superseded_by TEXT,
    content_hash TEXT NOT NULL,
    source TEXT,
    created_at TEXT,
    updated_at TEXT
);
CREATE INDEX IF NOT EXISTS items_hash ON items(content_hash);
CREATE INDEX IF NOT EXISTS items_source ON items(source);
CREATE INDEX IF NOT EXISTS items_collection ON items(collection, status);
CREATE TABLE IF NOT EXISTS chunks (
    key INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    item_rowid INTEGER NOT NULL REFERENCES items(rowid),
    position INTEGER NOT NULL,
    text TEXT NOT NULL,
    heading_path TEXT NOT NULL,
    entities TEXT NOT NULL,
    vector BLOB
);
CREATE INDEX IF NOT EXISTS chunks_item ON chunks(item_rowid, position);
-- chunks still waiting for the background embedder: counting or listing them reads only these
CREATE INDEX IF NOT EXISTS chunks_pending ON chunks(key) WHERE vector IS NULL;
CREATE TABLE IF NOT EXISTS item_fields (
    item_rowid INTEGER NOT NULL,
    name TEXT NOT NULL,
    value TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS item_fields_lookup ON item_fields(name, value, item_rowid);
CREATE INDEX IF NOT EXISTS item_fields_item ON item_fields(item_rowid);
CREATE TABLE IF NOT EXISTS mentions (
    chunk_key INTEGER NOT NULL,
    item_rowid INTEGER NOT NULL,
    entity TEXT NOT NULL,
    PRIMARY KEY (chunk_key, entity)
);
CREATE INDEX IF NOT EXISTS mentions_entity ON mentions(entity, chunk_key);
CREATE INDEX IF NOT EXISTS mentions_item ON mentions(item_rowid);
CREATE TABLE IF NOT EXISTS entity_pairs (
    a TEXT NOT NULL,
    b TEXT NOT NULL,
    weight INTEGER NOT NULL,
    last_seen INTEGER,
    PRIMARY KEY (a, b)
);
CREATE INDEX IF NOT EXISTS entity_pairs_b ON entity_pairs(b);
CREATE TABLE IF NOT EXISTS changes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    chunk_key INTEGER NOT NULL,
    op INTEGER NOT NULL
);
"""


# ---------------------------------------------------------------------------------------------- codecs


def casefold_value(value: object) -> str:
    """The comparable form of a field value: filters compare case-insensitively and literally."""
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value).casefold()


def field_rows(fields: Mapping[str, FieldValue]) -> list[tuple[str, str]]:
    """``(name, casefolded value)`` rows for ``item_fields``: one per list element, none for ``None``."""
    rows: list[tuple[str, str]] = []
    for name, value in fields.items():
        if value is None:
            continue
        values = value if isinstance(value, (tuple, list)) else (value,)
        rows.extend((name, casefold_value(v)) for v in values if v is not None)
    return list(dict.fromkeys(rows))


def encode_fields(fields: Mapping[str, FieldValue]) -> str:
    """JSON that round-trips every ``FieldValue`` type: dates and tuples are tagged so they come back typed."""

    def enc(value: Any) -> Any:
        if isinstance(value, dt.date):
            return {"$date": value.isoformat()}
        if isinstance(value, (tuple, list)):
            return {"$list": [enc(v) for v in value]}
        if value is None or isinstance(value, (str, int, float, bool)):
            return value
        raise TypeError(f"field value of type {type(value).__name__} cannot be stored")

    return json.dumps({str(k): enc(v) for k, v in fields.items()}, ensure_ascii=False)


def decode_fields(text: str) -> dict[str, FieldValue]:
    def dec(value: Any) -> Any:
        if isinstance(value, dict):
            if "$date" in value:
                return dt.date.fromisoformat(value["$date"])
            if "$list" in value:
                return tuple(dec(v) for v in value["$list"])
        return value

    return {k: dec(v) for k, v in json.loads(text).items()}


def date_ordinal(date: dt.date | None) -> int | None:
    return None if date is None else date.toordinal()


def date_from_ordinal(ordinal: int | None) -> dt.date | None:
    return None if ordinal is None else dt.date.fromordinal(ordinal)


def vector_to_blob(vector: np.ndarray) -> bytes:
    return np.ascontiguousarray(vector, dtype="<f4").tobytes()


def vector_from_blob(blob: bytes, dim: int) -> np.ndarray:
    return np.frombuffer(blob, dtype="<f4", count=dim).astype(np.float32)


def like_escape(text: str) -> str:
    """Escape LIKE wildcards with ``\\`` (pair with ``ESCAPE '\\'``) so user text matches literally."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


# ---------------------------------------------------------------------------------------------- filters


def filter_is_everything(f: SearchFilter) -> bool:
    """True when ``f`` cannot exclude any item (lets callers use unfiltered aggregates)."""
    return (
        set(f.statuses) >= {"draft", "published", "archived"}
        and f.include_superseded
        and not f.collections
        and f.date_from is None
        and f.date_to is None
        and not f.fields
        and f.tenant is None
        and not f.item_ids
        and not f.exclude_item_ids
        and not f.review_statuses
        and f.review_due_before is None
    )


def item_filter_sql(f: SearchFilter | None, alias: str = "i") -> tuple[str, list[Any]]:
    """Compile a filter into a ``WHERE`` fragment over ``items AS alias``; every value is a bound parameter.

    Lists travel as one JSON parameter expanded by ``json_each`` so the statement has a fixed shape (and
    no SQLite variable limit) however many ids or values a filter carries.
    """
    if f is None:
        return "1", []
    a = alias
    clauses: list[str] = []
    params: list[Any] = []

    def in_list(column: str, values: Sequence[str], negate: bool = False) -> None:
        clauses.append(f"{column} {'NOT ' if negate else ''}IN (SELECT value FROM json_each(?))")
        params.append(json.dumps(list(values), ensure_ascii=False))

    if f.collections:
        in_list(f"{a}.collection", f.collections)
    if f.date_from is not None:
        clauses.append(f"{a}.date_ord >= ?")
        params.append(f.date_from.toordinal())
    if f.date_to is not None:
        clauses.append(f"{a}.date_ord <= ?")
        params.append(f.date_to.toordinal())
    for ff in f.fields:
        clauses.append(
            f"{a}.rowid IN (SELECT item_rowid FROM item_fields WHERE name = ? "
            "AND value IN (SELECT value FROM json_each(?)))"
        )
        params.extend([ff.name, json.dumps([casefold_value(v) for v in ff.values], ensure_ascii=False)])
    statuses: tuple[Status, ...] = tuple(f.statuses)
    in_list(f"{a}.status", statuses)
    if not f.include_superseded:
        clauses.append(f"{a}.superseded_by IS NULL")
    if f.tenant is not None:
        clauses.append(f"{a}.tenant = ?")
        params.append(f.tenant)
    if f.item_ids:
        in_list(f"{a}.id", f.item_ids)
    if f.exclude_item_ids:
        in_list(f"{a}.id", f.exclude_item_ids, negate=True)
    if f.review_statuses:
        # "unverified" is also the state of an item nobody reviewed, so it is "none of the other statuses"
        wanted, others = review_status_sets(f.review_statuses)
        clauses.append(f"{a}.rowid {'NOT ' if 'unverified' in wanted else ''}IN (SELECT item_rowid FROM item_fields "
                       "WHERE name = 'review_status' AND value IN (SELECT value FROM json_each(?)))")
        params.append(json.dumps(list(others if "unverified" in wanted else wanted)))
    if f.review_due_before is not None:
        # ISO days compare as text; the GLOB keeps a stray non-date value from ever matching
        clauses.append(f"{a}.rowid IN (SELECT item_rowid FROM item_fields WHERE name = 'next_review_date' "
                       "AND value GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]' AND value <= ?)")
        params.append(f.review_due_before.isoformat())
    return " AND ".join(clauses) or "1", params


def review_status_sets(statuses: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The asked review statuses and the rest of the known ones (for the "none of the others" form)."""
    wanted = tuple(s for s in REVIEW_STATUSES if s in statuses)
    return wanted, tuple(s for s in REVIEW_STATUSES if s not in wanted)
