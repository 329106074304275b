"""Move items whose id is shaped like another tenant's into their owner's namespace, once per store.

Ids carry their tenant (ingest/ids.py), so an id names the one tenant whose uploads could produce it. Stores
written before that encoding was unambiguous — 5b43b22 percent-encoded tenants, 44052e9 escaped default-tenant
record keys — can hold an item under another tenant's shape: tenant ``x:b``'s record ``c`` as ``rel:x:b:c``,
which is tenant ``x``'s record ``b:c``. Ingest never overwrites another tenant's item, so tenant ``x``'s upload
of ``b:c`` could only fail, and the failure told it the id existed elsewhere: one bit per guessed key about
another tenant's items (tests/security/test_tenant_oracle.py). Moved to ``ingest.ids.moved_id`` (same item,
chunks and vectors, in its owner's own namespace), no stored id is shaped like anyone's but its owner's, so
every id an upload produces is fresh or the uploader's own.

Uses the ``Store`` protocol only, so both backends run the same code. ``id_scheme`` in the store's metadata
records that the store holds no such id; the current code writes none, so a store is scanned once.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import replace

from ..ingest.ids import chunk_id, moved_id, namespace_tenant
from ..types import Chunk, ItemWrite, SearchFilter
from .base import Store

__all__ = ["ID_SCHEME", "move_squatters"]

log = logging.getLogger("groundsearch.store")

ID_SCHEME = "2"  # every stored id shaped like its owner's only (ingest/ids.py as of 44052e9)
_EVERY = SearchFilter(statuses=("draft", "published", "archived"), include_superseded=True)
_BATCH = 500  # ids per tenant-scoped read: well under SQLite's and Postgres's bound-parameter limits


def squatters(store: Store) -> list[str]:
    """Stored ids shaped like a tenant's (``namespace_tenant``) whose item belongs to another tenant."""
    shaped: dict[str, list[str]] = defaultdict(list)
    for item_id, *_ in store.browse_rows(_EVERY):
        tenant = namespace_tenant(item_id)
        if tenant is not None:
            shaped[tenant].append(item_id)
    found: list[str] = []
    for tenant, ids in shaped.items():
        for i in range(0, len(ids), _BATCH):
            batch = ids[i : i + _BATCH]
            own = {row[0] for row in store.browse_rows(replace(_EVERY, tenant=tenant, item_ids=tuple(batch)))}
            found.extend(x for x in batch if x not in own)
    return found


def _move(store: Store, old: str) -> str | None:
    item = store.get(old)
    if item is None:  # another process moved it first
        return None
    new = moved_id(old, item.collection, item.tenant)
    views = sorted(store.item_chunks(old), key=lambda v: v.chunk.position)
    chunks = tuple(Chunk(id=chunk_id(new, v.chunk.position), item_id=new, position=v.chunk.position,
                         text=v.chunk.text, heading_path=v.chunk.heading_path, entities=v.chunk.entities)
                   for v in views)
    vectors = store.item_vectors(old)
    # a partly embedded item goes over without vectors: the background embedder fills in pending chunks
    store.upsert([ItemWrite(item=replace(item, id=new), chunks=chunks,
                            vectors=vectors if len(vectors) == len(chunks) and chunks else None)])
    store.delete([old])
    return new


def move_squatters(store: Store) -> int:
    """Move every squatting item (see the module docstring) unless the store records ``ID_SCHEME``; the number
    moved. Called by the stores' writers when they open."""
    if store.meta_get("id_scheme") == ID_SCHEME:
        return 0
    moved = 0
    for old in squatters(store):
        new = _move(store, old)
        if new is not None:
            moved += 1
            log.warning("item id %r was shaped like another tenant's (written before ids carried tenants "
                        "unambiguously); moved to %r", old, new)
    store.meta_set("id_scheme", ID_SCHEME)
    return moved
