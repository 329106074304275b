"""Pure row mapping and write validation for the embedded store.

Validation runs before the transaction opens, so a bad write in a batch is reported with its item id
and nothing of the batch is stored (``upsert`` is all or nothing).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence

import numpy as np

from ..errors import InvalidInput
from ..types import STATUSES, Chunk, ChunkView, Item, ItemWrite
from .sqlite_schema import date_from_ordinal, decode_fields, encode_fields

__all__ = ["CHUNK_COLS", "ITEM_COLS", "chunk_view", "item_from_row", "validate_writes"]

ITEM_COLS = (
    "i.id, i.collection, i.title, i.text, i.url, i.date_ord, i.fields, i.tenant, i.status, i.superseded_by, "
    "i.content_hash, i.source, i.created_at, i.updated_at"
)
CHUNK_COLS = "c.id, c.position, c.text, c.heading_path, c.entities"


def item_from_row(r: Sequence[object]) -> Item:
    return Item(
        id=r[0], collection=r[1], title=r[2], text=r[3], url=r[4], date=date_from_ordinal(r[5]),  # type: ignore[arg-type]
        fields=decode_fields(r[6]), tenant=r[7], status=r[8], superseded_by=r[9], content_hash=r[10],  # type: ignore[arg-type]
        source=r[11], created_at=_ts(r[12]), updated_at=_ts(r[13]),  # type: ignore[arg-type]
    )


def chunk_view(r: Sequence[object]) -> ChunkView:
    """A row of ``CHUNK_COLS`` followed by ``ITEM_COLS``."""
    item = item_from_row(r[5:])
    chunk = Chunk(
        id=r[0], item_id=item.id, position=r[1], text=r[2],  # type: ignore[arg-type]
        heading_path=tuple(json.loads(r[3])), entities=tuple(json.loads(r[4])),  # type: ignore[arg-type]
    )
    return ChunkView(chunk=chunk, item=item)


def _ts(value: object) -> dt.datetime | None:
    return dt.datetime.fromisoformat(value) if isinstance(value, str) and value else None


def validate_writes(writes: Sequence[ItemWrite], dim: int) -> list[tuple[ItemWrite, np.ndarray | None]]:
    """Check every write and coerce its vectors to float32 ``(n_chunks, dim)``; raise on the first problem."""
    out: list[tuple[ItemWrite, np.ndarray | None]] = []
    seen_items: set[str] = set()
    seen_chunks: set[str] = set()
    for w in writes:
        item = w.item
        if not isinstance(item.id, str) or not item.id:
            raise InvalidInput("every item needs a non-empty string id")
        if item.id in seen_items:
            raise InvalidInput(f"item {item.id!r} appears twice in one upsert batch")
        seen_items.add(item.id)
        if item.status not in STATUSES:
            raise InvalidInput(f"item {item.id!r} has status {item.status!r}; expected one of {', '.join(STATUSES)}")
        try:
            encode_fields(item.fields)
        except TypeError as exc:
            raise InvalidInput(f"item {item.id!r}: {exc}") from None
        for chunk in w.chunks:
            if chunk.item_id != item.id:
                raise InvalidInput(f"chunk {chunk.id!r} belongs to {chunk.item_id!r}, not to item {item.id!r}")
            if chunk.id in seen_chunks:
                raise InvalidInput(f"chunk id {chunk.id!r} appears twice in one upsert batch")
            seen_chunks.add(chunk.id)
        vectors = None
        if w.vectors is not None:
            vectors = np.asarray(w.vectors, dtype=np.float32)
            if vectors.shape != (len(w.chunks), dim):
                raise InvalidInput(
                    f"item {item.id!r}: vectors have shape {vectors.shape}, expected ({len(w.chunks)}, {dim}) "
                    "— one vector per chunk, of the store's dimension"
                )
            if not np.all(np.isfinite(vectors)):
                raise InvalidInput(f"item {item.id!r}: vectors contain NaN or infinity")
        out.append((w, vectors))
    return out
