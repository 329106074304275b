"""What a loader produces from one file: items without ids, hashes or vectors yet.

Loaders are parsers only; ids, hashes, entities and embeddings are added by the pipeline, so every loader
gets them the same way.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..errors import IngestError
from ..types import FieldValue, Status
from .chunking import ChunkDraft

__all__ = ["Draft", "ingest_error"]


@dataclass(frozen=True, slots=True)
class Draft:
    """One future item. ``key`` tells items of a multi-item file apart (a record's id or row)."""

    title: str
    text: str
    chunks: tuple[ChunkDraft, ...]
    key: str = ""
    key_is_id: bool = False  # True: ``key`` is the record's declared id, stable across edits of the row
    url: str | None = None
    date: dt.date | None = None
    fields: Mapping[str, FieldValue] = field(default_factory=dict)
    status: Status = "published"
    superseded_by: str | None = None
    tenant: str = ""
    entities: tuple[tuple[str, ...], ...] = ()  # per chunk; empty: the pipeline extracts from chunk text


def ingest_error(path: object, reason: str, *, line: int | None = None, row: int | None = None) -> IngestError:
    """An :class:`IngestError` whose message names the file, the line or row when known, and the reason."""
    where = f"{path}"
    if line is not None:
        where += f", line {line}"
    if row is not None:
        where += f", row {row}"
    details: dict[str, object] = {"path": str(path), "reason": reason}
    if line is not None:
        details["line"] = line
    if row is not None:
        details["row"] = row
    return IngestError(f"{where}: {reason}", details=details)
