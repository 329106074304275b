"""Two embedders on one Postgres database (two API workers' background threads) split the pending chunks:
no chunk is embedded twice, and none is left out. On the real Postgres the suite starts.

Before claims, both listed the same pending window and both embedded it. The barrier below makes that overlap
certain rather than a matter of timing: each embedder's first call waits until the other has listed too.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import numpy as np
import pytest

from groundsearch.ingest.embed_worker import embed_pending
from groundsearch.models.fake import HashEmbedder
from groundsearch.store.postgres import PostgresStore
from tests.store.test_contract import write


KINDS = {"docs": "documents"}
WINDOW = 8


class RecordingEmbedder(HashEmbedder):
    """Hash vectors; remembers every text it was asked to embed and meets the other embedder once."""

    def __init__(self, barrier: threading.Barrier) -> None:
        super().__init__(dim=32)
        self.texts: list[str] = []
        self._barrier = barrier

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        if not self.texts:
            try:
                # a liveness bound as long as the threads' join: on a loaded machine the other embedder may take
                # many seconds to claim its first window, and a barrier that gave up sooner let one embedder do
                # all the work and fail 'both took part' for the machine's speed, not the claims'
                self._barrier.wait(timeout=120)
            except threading.BrokenBarrierError:
                pass  # the other embedder found nothing left to claim: nothing to overlap with
        self.texts.extend(texts)
        return super().embed_passages(texts)


def test_two_embedders_never_embed_one_chunk_twice(postgres_database: Callable[[], str]) -> None:
    dsn = postgres_database()
    stores = [PostgresStore.open(dsn, dim=32) for _ in range(2)]
    try:
        stores[0].upsert([write(f"d{i}", f"claimword alpha{i}", f"second part {i}", embed=False) for i in range(40)])
        total = stores[0].count_pending_vectors()
        assert total == 80
        barrier = threading.Barrier(2)
        embedders = [RecordingEmbedder(barrier) for _ in stores]
        reports: list[object] = [None, None]

        def run(i: int) -> None:
            reports[i] = embed_pending(stores[i], embedders[i], KINDS, window=WINDOW)

        threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        a, b = (set(e.texts) for e in embedders)
        assert len(embedders[0].texts) == len(a) and len(embedders[1].texts) == len(b)
        assert not a & b, f"{len(a & b)} chunks embedded by both"
        assert len(a | b) == total and stores[1].count_pending_vectors() == 0
        assert a and b  # both took part: the split is real, not one embedder doing everything
    finally:
        for s in stores:
            s.close()


def test_a_claim_ends_with_its_session(postgres_database: Callable[[], str]) -> None:
    """An embedder killed mid-window must not strand its chunks: its claims go with its connection."""
    dsn = postgres_database()
    store = PostgresStore.open(dsn, dim=32)
    try:
        store.upsert([write(f"d{i}", f"claimword alpha{i}", embed=False) for i in range(3)])
        keys = store.pending_vectors(0, 10)
        first = store.vector_claims()
        assert first.acquire(keys) == keys
        second = store.vector_claims()
        assert second.acquire(keys) == []  # held by the first
        first.close()  # the first embedder's process dies; its server session ends a moment later
        deadline = time.monotonic() + 15
        while not (got := second.acquire(keys)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert got == keys
        store.set_vectors(keys[:1], HashEmbedder(dim=32).embed_passages(["x"]))
        second.release(keys)
        assert second.acquire(keys) == keys[1:]  # a chunk embedded meanwhile is not handed out again
        second.close()
    finally:
        store.close()


def _embed_concurrently(stores: list[PostgresStore]) -> list[RecordingEmbedder]:
    barrier = threading.Barrier(2)
    embedders = [RecordingEmbedder(barrier) for _ in stores]
    threads = [threading.Thread(target=embed_pending, args=(s, e, KINDS), kwargs={"window": WINDOW})
               for s, e in zip(stores, embedders)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    return embedders


@pytest.mark.parametrize("chunk_vectors", [False, True], ids=["chunks-pending-too", "only-sentences-pending"])
def test_two_embedders_never_embed_one_chunks_sentences_twice(postgres_database: Callable[[], str],
                                                              chunk_vectors: bool) -> None:
    """With ``chunk_vectors`` no chunk vector is pending, only sentences: the claims must still be taken (they
    connect lazily; a version that connected at the first pending chunk embedded all 80 sentences twice)."""
    dsn = postgres_database()
    stores = [PostgresStore.open(dsn, dim=32) for _ in range(2)]
    try:
        stores[0].upsert([write(f"d{i}", f"The river number {i} floods every spring after the snow melts.",
                                f"Farmers plant rice on plain {i} once the water recedes.", embed=chunk_vectors)
                          for i in range(40)])
        assert stores[0].count_pending_vectors() == (0 if chunk_vectors else 80)
        embedders = _embed_concurrently(stores)
        sentences = [[t for t in e.texts if "\n" not in t] for e in embedders]  # chunk texts carry a breadcrumb line
        a, b = (set(s) for s in sentences)
        assert len(sentences[0]) == len(a) and len(sentences[1]) == len(b)
        assert not a & b, f"{len(a & b)} sentences embedded by both"
        assert len(a | b) == 80 and stores[1].pending_sentences(embedders[0].model_id) == []
    finally:
        for s in stores:
            s.close()
