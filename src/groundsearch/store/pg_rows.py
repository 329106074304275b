"""Pure mapping between groundsearch values and Postgres rows (no I/O).

:func:`prepare_writes` validates a whole batch and computes every derived row (postings, field values,
mentions, vector payloads) *before* a transaction opens, so bad input fails fast, loses nothing and
holds no locks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import InvalidInput
from ..types import STATUSES, Chunk, Item, ItemWrite
from .pg_bm25 import quantize_length, term_postings
from .pg_codec import decode_fields, encode_fields, encode_text, encode_text_or_none, field_rows
from .pg_codec import decode_text as dec
from .text import keyword_terms

__all__ = ["ITEM_COLUMNS", "Batch", "chunk_from_row", "item_from_row", "prepare_writes"]

ITEM_COLUMNS = (
    "id", "collection", "title", "body", "url", "item_date", "fields", "tenant", "status", "superseded_by",
    "content_hash", "source", "created_at", "updated_at",
)


@dataclass
class Batch:
    items: list[tuple[Any, ...]] = field(default_factory=list)  # ITEM_COLUMNS order, sorted by id
    fields: list[tuple[str, str, str]] = field(default_factory=list)
    chunks: list[tuple[Any, ...]] = field(default_factory=list)  # id, item_id, position, body, path, entities, n, norm
    postings: list[tuple[int, str, int]] = field(default_factory=list)  # chunk index in ``chunks``, term, tf
    mentions: list[tuple[int, str]] = field(default_factory=list)
    vectors: list[tuple[int, np.ndarray]] = field(default_factory=list)


def _validate(w: ItemWrite, dim: int) -> None:
    item = w.item
    if not item.id:
        raise InvalidInput("item id must not be empty")
    if item.status not in STATUSES:
        raise InvalidInput(f"item {item.id!r}: unknown status {item.status!r}", details={"item_id": item.id})
    chunk_ids = [c.id for c in w.chunks]
    if len(set(chunk_ids)) != len(chunk_ids):
        raise InvalidInput(f"item {item.id!r}: duplicate chunk ids", details={"item_id": item.id})
    for c in w.chunks:
        if c.item_id != item.id:
            raise InvalidInput(f"chunk {c.id!r} belongs to {c.item_id!r}, not {item.id!r}", details={"item_id": item.id})
    if w.vectors is not None:
        shape = np.shape(w.vectors)
        if shape != (len(w.chunks), dim):
            raise InvalidInput(
                f"item {item.id!r}: vectors have shape {shape}, expected ({len(w.chunks)}, {dim})",
                details={"item_id": item.id},
            )
        if not np.all(np.isfinite(w.vectors)):
            raise InvalidInput(f"item {item.id!r}: vectors contain NaN or infinity", details={"item_id": item.id})


def prepare_writes(writes: Sequence[ItemWrite], dim: int) -> Batch:
    """Validate and flatten a batch; a repeated item id keeps its last write (as sequential upserts would)."""
    for w in writes:
        _validate(w, dim)
    last = {w.item.id: w for w in writes}
    batch = Batch()
    seen_chunks: set[str] = set()
    for item_id in sorted(last):
        w = last[item_id]
        item = w.item
        batch.items.append((
            encode_text(item.id), encode_text(item.collection), encode_text(item.title), encode_text(item.text),
            encode_text_or_none(item.url), item.date, encode_fields(item.fields), encode_text(item.tenant),
            item.status, encode_text_or_none(item.superseded_by), encode_text(item.content_hash),
            encode_text_or_none(item.source), item.created_at, item.updated_at,
        ))
        batch.fields.extend(field_rows(item.id, item.fields))
        vectors = None if w.vectors is None else np.asarray(w.vectors, dtype=np.float32)
        for n, chunk in enumerate(w.chunks):
            if chunk.id in seen_chunks:
                raise InvalidInput(f"chunk id {chunk.id!r} appears in two items of one batch")
            seen_chunks.add(chunk.id)
            index = len(batch.chunks)
            terms = keyword_terms(item.title, chunk.heading_path, chunk.text)
            batch.chunks.append((
                encode_text(chunk.id), encode_text(item.id), chunk.position, encode_text(chunk.text),
                [encode_text(h) for h in chunk.heading_path], [encode_text(e) for e in chunk.entities],
                len(terms), quantize_length(len(terms)),
            ))
            batch.postings.extend((index, encode_text(t), tf) for t, tf in sorted(term_postings(terms).items()))
            batch.mentions.extend((index, encode_text(e)) for e in sorted(set(chunk.entities)))
            if vectors is not None:
                batch.vectors.append((index, vectors[n]))
    return batch


def item_from_row(row: Sequence[Any]) -> Item:
    (item_id, collection, title, body, url, date, fields, tenant, status, superseded_by,
     content_hash, source, created_at, updated_at) = row
    return Item(
        id=dec(item_id), collection=dec(collection), title=dec(title), text=dec(body),
        url=None if url is None else dec(url), date=date, fields=decode_fields(fields), tenant=dec(tenant),
        status=status, superseded_by=None if superseded_by is None else dec(superseded_by),
        content_hash=dec(content_hash), source=None if source is None else dec(source),
        created_at=created_at, updated_at=updated_at,
    )


def chunk_from_row(row: Sequence[Any]) -> Chunk:
    chunk_id, item_id, position, body, heading_path, entities = row
    return Chunk(
        id=dec(chunk_id), item_id=dec(item_id), position=position, text=dec(body),
        heading_path=tuple(dec(h) for h in heading_path), entities=tuple(dec(e) for e in entities),
    )
