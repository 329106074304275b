"""The ``Store`` protocol: storage *and* retrieval, implemented by every backend.

Retrieval is part of the protocol from the start (``keyword_search``, ``vector_search``, ``preview``,
graph look-ups) so callers never need ``isinstance`` checks on the backend. One conformance suite
(``tests/store/test_contract.py``) runs unchanged against every implementation.

Semantics every backend honours:

* ``upsert`` is atomic per call: either every item in the batch (with all its chunks, vectors and
  entity mentions) is visible afterwards, or none is. Re-upserting an item id replaces its chunks.
* ``delete`` removes every trace: the row, its chunks, its keyword postings, its vectors, its mentions.
* Filters are compiled into each leg's query. A filtered search returns ``limit`` hits whenever at least
  ``offset + limit`` chunks match the filter and the query.
* Keyword queries are plain text: the store tokenizes them with :mod:`groundsearch.store.text` and
  no character of user text is ever interpreted as query syntax.
* ``Page.has_more`` is true when a further page would be non-empty.
* Retrieval has two phases. The legs (``keyword_search``, ``vector_search``, ``entity_chunks``) return
  chunk *keys* — integers the store assigns and never reuses — with scores; callers fuse and page on
  keys and then ``hydrate`` only the keys they show. A key whose chunk was deleted in between is simply
  absent from ``hydrate``'s answer.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from ..errors import InvalidInput
from ..types import ChunkView, EntityEdge, Hit, Item, ItemWrite, Page, PreviewHit, SearchFilter

__all__ = ["Store", "check_vectors", "page_from"]


@runtime_checkable
class Store(Protocol):
    dim: int  # vector dimension this store was created with

    # ---- writes ---------------------------------------------------------------------------------
    def upsert(self, writes: Sequence[ItemWrite]) -> None:
        """Insert or replace items atomically (all of ``writes`` or none)."""
        ...

    def delete(self, item_ids: Sequence[str]) -> int:
        """Remove items and every derived trace; returns how many existed."""
        ...

    # ---- reads ----------------------------------------------------------------------------------
    def get(self, item_id: str) -> Item | None: ...

    def get_many(self, item_ids: Sequence[str]) -> dict[str, Item]: ...

    def chunks(self, chunk_ids: Sequence[str]) -> dict[str, ChunkView]:
        """Chunks (with their items) by public chunk id; unknown ids are absent."""
        ...

    def hydrate(self, keys: Sequence[int]) -> dict[int, ChunkView]:
        """The fetch phase: chunks (with their items) for keys a search leg returned; unknown keys are absent."""
        ...

    def item_chunks(self, item_id: str) -> list[ChunkView]: ...

    def item_vectors(self, item_id: str) -> np.ndarray:
        """The stored chunk vectors of one item, shape ``(n_chunks, dim)``; empty when it has none."""
        ...

    def find_by_hash(self, content_hash: str, filter: SearchFilter | None = None) -> list[Item]:
        """Exact duplicates: items whose content hash equals ``content_hash``."""
        ...

    def source_hashes(self, sources: Sequence[str], collection: str, tenant: str) -> dict[str, dict[str, str]]:
        """For incremental ingest: ``{source: {item_id: content_hash}}`` of the items of ``collection`` and
        ``tenant`` stored from each source. Keyed by all three: the same file ingested for another tenant or
        into another collection is another set of items, which an ingest here must never delete."""
        ...

    def sources_under(self, prefix: str, collection: str, tenant: str = "") -> list[str]:
        """Distinct ``Item.source`` values in ``collection`` (and ``tenant``) that start with ``prefix``,
        matched literally (no wildcard in ``prefix`` is special). For ``ingest --prune``: files that were
        ingested from a folder and are gone from it."""
        ...

    def count(self, filter: SearchFilter | None = None) -> int:
        """Items matching the filter (``None``: every item, any status)."""
        ...

    def count_chunks(self) -> int: ...

    # ---- vectors filled in after the text (ingest is keyword-searchable before it is embedded) -----------
    def pending_vectors(self, after: int = 0, limit: int = 1000, *, tenant: str | None = None) -> list[int]:
        """Keys of chunks stored without a vector, greater than ``after``, ascending (a resumable cursor);
        ``tenant``: only those of that tenant's items (the background embedder takes turns between tenants)."""
        ...

    def pending_vector_tenants(self, after: int = 0) -> list[str]:
        """The tenants owning a chunk stored without a vector, with a key greater than ``after``, sorted."""
        ...

    def count_pending_vectors(self, filter: SearchFilter | None = None) -> int:
        """Chunks still without a vector: the vector leg cannot find them yet. ``filter``: only those of items it
        admits (a search's diagnostics: a store-wide count told one tenant when another uploaded, drafts too)."""
        ...

    def set_vectors(self, keys: Sequence[int], vectors: np.ndarray) -> int:
        """Store ``vectors[i]`` for chunk ``keys[i]`` where that chunk still lacks one; returns how many were
        set. Chunks deleted or replaced meanwhile are skipped, so a late vector never lands on other text."""
        ...

    # ---- sentence vectors of extractive answers (codec and why: store/sentence_rows.py) ----------------
    def pending_sentences(self, model: str, after: int = 0, limit: int = 1000) -> list[int]:
        """Keys of chunks without sentence vectors from embedder ``model``, above ``after``, ascending."""
        ...

    def set_sentences(self, model: str, rows: Sequence[tuple[int, Sequence[str], np.ndarray]]) -> int:
        """Store, per ``(chunk key, sentences, vectors (len(sentences), dim))``, the vectors of a chunk's quotable
        sentences (none is a valid row: "done, nothing to quote"); replaces the chunk's row for ``model``.
        A chunk deleted meanwhile is skipped; returns how many chunks got a row."""
        ...

    def sentence_vectors(self, model: str, chunk_ids: Sequence[str]) -> dict[str, dict[str, np.ndarray]]:
        """``{chunk id: {sentence digest: vector}}`` stored for ``model``; chunks without a row are absent."""
        ...

    # ---- retrieval ------------------------------------------------------------------------------
    def keyword_search(self, query: str, filter: SearchFilter, limit: int, offset: int = 0) -> Page:
        """BM25 over chunk text (and title), with the shared tokenizer; terms are OR-ed."""
        ...

    def vector_search(self, vector: np.ndarray, filter: SearchFilter, limit: int, offset: int = 0) -> Page:
        """Cosine similarity against chunk vectors (vectors are L2-normalised, so dot product)."""
        ...

    def preview(self, prefix: str, filter: SearchFilter, limit: int) -> list[PreviewHit]:
        """Cheap lexical typeahead on titles: title prefix/substring matches first. No embedding."""
        ...

    def entity_edges(self, entities: Sequence[str], filter: SearchFilter, limit: int) -> list[EntityEdge]:
        """Co-occurrence edges touching any of ``entities`` (normalised names), heaviest first."""
        ...

    def entity_chunks(self, entities: Sequence[str], filter: SearchFilter, limit: int) -> list[tuple[int, str]]:
        """``(chunk key, entity)`` for chunks mentioning any of ``entities`` (keys as the other legs return)."""
        ...

    def top_terms(self, filter: SearchFilter, limit: int) -> list[tuple[str, int]]:
        """Entities by the number of chunks mentioning them, counted over the items ``filter`` admits only
        (popular suggestions: a caller never sees names from another tenant's items or from drafts)."""
        ...

    def dated_mentions(self, filter: SearchFilter) -> list[tuple[str, str, dt.date]]:
        """``(entity, item id, item date)`` once per entity and *dated* item the filter admits that mentions it
        (trending: every count it shows is a count of these rows)."""
        ...

    def browse_rows(self, filter: SearchFilter) -> list[tuple[str, dt.date | None, str | None, str | None]]:
        """``(item id, date, next_review_date, review_status)`` of every item the filter admits, by id (browse
        sorts and pages these; review values as stored text, ``None`` when absent)."""
        ...

    # ---- metadata -------------------------------------------------------------------------------
    def meta_get(self, key: str) -> str | None:
        """A small persistent key/value (e.g. the embedder's ``model_id`` the vectors were built with)."""
        ...

    def meta_set(self, key: str, value: str) -> None: ...

    # ---- lifecycle ------------------------------------------------------------------------------
    def close(self) -> None: ...


def page_from(hits: Sequence[Hit], offset: int, limit: int) -> Page:
    """Build a page from ``limit + 1`` fetched hits: the extra one only tells whether more exist."""
    return Page(hits=tuple(hits[:limit]), offset=offset, has_more=len(hits) > limit)


def check_vectors(vectors: np.ndarray, n: int, dim: int) -> np.ndarray:
    """``vectors`` as float32 ``(n, dim)``, finite, or :class:`InvalidInput` saying what is wrong."""
    out = np.asarray(vectors, dtype=np.float32)
    if out.shape != (n, dim):
        raise InvalidInput(f"vectors have shape {out.shape}, expected ({n}, {dim}): one per chunk key")
    if not np.all(np.isfinite(out)):
        raise InvalidInput("vectors contain NaN or infinity")
    return out
