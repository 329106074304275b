"""Test helpers for the two-phase retrieval API: legs return chunk keys; these hydrate them to public ids.

Every key a leg returns must hydrate (a key the store cannot resolve would be a contract breach), so the
helpers fail loudly instead of skipping one.
"""

from __future__ import annotations

from collections.abc import Sequence

from groundsearch.store.base import Store
from groundsearch.types import ChunkView, Hit


def views(store: Store, hits: Sequence[Hit]) -> list[ChunkView]:
    keys = [key for key, _ in hits]
    found = store.hydrate(keys)
    missing = [key for key in keys if key not in found]
    assert not missing, f"keys returned by a leg that do not hydrate: {missing}"
    return [found[key] for key in keys]


def chunk_ids(store: Store, hits: Sequence[Hit]) -> list[str]:
    return [v.chunk.id for v in views(store, hits)]


def item_ids(store: Store, hits: Sequence[Hit]) -> list[str]:
    return [v.item.id for v in views(store, hits)]


def scores_by_chunk(store: Store, hits: Sequence[Hit]) -> dict[str, float]:
    return dict(zip(chunk_ids(store, hits), (score for _, score in hits)))
