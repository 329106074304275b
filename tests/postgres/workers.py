"""Process bodies for the concurrency tests (module-level so ``spawn`` children can import them)."""

from __future__ import annotations

import time
import traceback
from typing import Any

import numpy as np

from groundsearch.types import SearchFilter

from .helpers import WORDS, integrity_problems, make_write

DIM = 32
SHARED_IDS = 12  # ids every writer keeps replacing: concurrent replacement of the same items


MIN_ROUNDS = 11  # each worker's floor however slow the machine is: the soak's verdict never rests on its speed


def writer(dsn: str, wid: int, seconds: float, out: Any) -> None:
    """Insert new items, replace own and shared ones, delete some; report the final state it expects.

    Runs for ``seconds`` and at least :data:`MIN_ROUNDS` batches."""
    from groundsearch.store.postgres import PostgresStore

    rng = np.random.default_rng(wid)
    expected: dict[str, int] = {}
    errors: list[str] = []
    batches = 0
    try:
        store = PostgresStore.open(dsn, dim=DIM, pool_size=2)
        deadline = time.monotonic() + seconds
        k = 0
        while time.monotonic() < deadline or batches < MIN_ROUNDS:
            batch = []
            for _ in range(int(rng.integers(1, 6))):
                item_id = f"w{wid}-{k}"
                k += 1
                n = int(rng.integers(1, 5))
                batch.append(make_write(item_id, n, DIM, rng, WORDS))
                expected[item_id] = n
            if rng.random() < 0.5:
                shared = f"shared-{int(rng.integers(0, SHARED_IDS))}"
                batch.append(make_write(shared, int(rng.integers(1, 5)), DIM, rng, WORDS))
            if expected and rng.random() < 0.3:  # replace one of ours with a different chunk count
                again = str(rng.choice(sorted(expected)))
                n = int(rng.integers(1, 5))
                batch.append(make_write(again, n, DIM, rng, WORDS))
                expected[again] = n
            store.upsert(batch)
            batches += 1
            if expected and rng.random() < 0.2:
                victim = str(rng.choice(sorted(expected)))
                if store.delete([victim]) != 1:
                    errors.append(f"delete of {victim} found nothing")
                del expected[victim]
        store.close()
    except Exception:
        errors.append(traceback.format_exc())
    out.put({"role": "writer", "id": wid, "expected": expected, "errors": errors, "batches": batches})


def reader(dsn: str, rid: int, seconds: float, out: Any) -> None:
    """Search and hydrate continuously; every item seen must be whole (all chunks, every chunk a vector).

    Runs for ``seconds`` and at least :data:`MIN_ROUNDS` rounds."""
    from groundsearch.store.postgres import PostgresStore

    rng = np.random.default_rng(100 + rid)
    errors: list[str] = []
    reads = 0
    try:
        store = PostgresStore.open(dsn, dim=DIM, pool_size=2)
        deadline = time.monotonic() + seconds
        while (time.monotonic() < deadline or reads < MIN_ROUNDS) and len(errors) < 20:
            query = " ".join(rng.choice(WORDS, size=3))
            vector = rng.standard_normal(DIM).astype(np.float32)
            pages = [store.keyword_search(query, SearchFilter(), 10),
                     store.vector_search(vector / np.linalg.norm(vector), SearchFilter(), 10)]
            hydrated = store.hydrate([key for p in pages for key, _ in p.hits])  # a concurrent delete may drop some
            for item_id in {v.item.id for v in hydrated.values()}:
                views = store.item_chunks(item_id)  # one statement: one snapshot of the item and its chunks
                if views and len(views) != views[0].item.fields["n_chunks"]:
                    errors.append(f"{item_id}: {len(views)} chunks visible, item says {views[0].item.fields['n_chunks']}")
            reads += 1
            if reads % 25 == 0:
                errors.extend(integrity_problems(dsn))
        store.close()
    except Exception:
        errors.append(traceback.format_exc())
    out.put({"role": "reader", "id": rid, "errors": errors, "reads": reads})


def slow_upsert(dsn: str, n_items: int) -> None:
    """One large batch, for the dropped-connection tests to interrupt."""
    from groundsearch.store.postgres import PostgresStore

    rng = np.random.default_rng(5)
    store = PostgresStore.open(dsn, dim=DIM, pool_size=1)
    store.upsert([make_write(f"big-{i}", 4, DIM, rng, WORDS) for i in range(n_items)])
    store.close()
