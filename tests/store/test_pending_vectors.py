"""Vectors filled in after the text, on every backend: chunks written without vectors are keyword-searchable
at once, the vector leg covers exactly the chunks that have one, and the embed worker fills the rest."""

from __future__ import annotations

import numpy as np
import pytest

from groundsearch.errors import EmbeddingFailed, InvalidInput
from groundsearch.ingest.embed_worker import embed_pending
from groundsearch.models.fake import HashEmbedder
from tests.hits import item_ids
from tests.store.conftest import Backend
from tests.store.test_contract import ANY_STATUS, EMB, write

KINDS = {"docs": "documents"}


def _text_only(backend: Backend, n: int = 6):
    store = backend.make()
    store.upsert([write(f"d{i}", f"pendingword alpha{i} text", f"second part {i}", embed=False) for i in range(n)])
    return store


def test_text_only_items_are_keyword_searchable_and_pending(backend: Backend) -> None:
    store = _text_only(backend)
    assert store.count_pending_vectors() == 12
    assert set(item_ids(store, store.keyword_search("pendingword", ANY_STATUS, 20).hits)) == {f"d{i}" for i in range(6)}
    assert store.vector_search(EMB.embed_queries(["alpha1"])[0], ANY_STATUS, 20).hits == ()
    keys = store.pending_vectors(0, 100)
    assert keys == sorted(keys) and len(keys) == 12
    assert store.pending_vectors(keys[4], 3) == keys[5:8]  # a resumable cursor


def test_embed_pending_fills_every_vector_and_the_vector_leg_finds_them(backend: Backend) -> None:
    store = _text_only(backend)
    store.upsert([write("ready", "already embedded text")])
    seen = []
    report = embed_pending(store, EMB, KINDS, window=5, progress=seen.append)
    assert (report.embedded, report.remaining, report.failed) == (12, 0, ())
    assert [p.embedded for p in seen] == [5, 10, 12]
    assert store.count_pending_vectors() == 0
    assert len(store.item_vectors("d3")) == 2
    # the worker embeds what ingest would have: title and breadcrumb in front of the chunk
    expected = EMB.embed_passages(["Title d3 > Doc > Section 0\npendingword alpha3 text"])[0]
    assert np.allclose(store.item_vectors("d3")[0], expected, atol=1e-6)
    top = store.vector_search(expected, ANY_STATUS, 1).hits
    assert item_ids(store, top) == ["d3"]
    store = backend.reopen(store)
    assert store.count_pending_vectors() == 0 and item_ids(store, store.vector_search(expected, ANY_STATUS, 1).hits) == ["d3"]
    # vectors filled in for older chunks after newer ones had theirs: deleting them must still reach them
    embed_pending(store, EMB, KINDS)
    store.delete(["d3"])
    assert "d3" not in item_ids(store, store.vector_search(expected, ANY_STATUS, 20).hits)
    assert embed_pending(store, EMB, KINDS).embedded == 0  # nothing left: a second run is a no-op


def test_out_of_order_fills_stay_removable_in_the_live_index(backend: Backend) -> None:
    store = _text_only(backend)
    store.upsert([write("ready", "already embedded text")])
    embed_pending(store, EMB, KINDS, window=4)  # each window is older than "ready"'s chunk
    expected = EMB.embed_passages(["Title d2 > Doc > Section 1\nsecond part 2"])[0]
    assert item_ids(store, store.vector_search(expected, ANY_STATUS, 1).hits) == ["d2"]
    store.upsert([write("d2", "replaced text entirely")])  # removes both old chunk vectors
    store.delete(["d5"])
    found = item_ids(store, store.vector_search(expected, ANY_STATUS, 50).hits)
    assert found.count("d2") == 1 and "d5" not in found and len(found) == 10  # 4 items x 2, d2 once, ready


def test_a_late_vector_never_lands_on_replaced_or_deleted_text(backend: Backend) -> None:
    store = _text_only(backend, n=2)
    keys = store.pending_vectors(0, 100)
    store.upsert([write("d0", "new text for d0", embed=False)])  # d0's old chunks are gone, one new pending
    store.delete(["d1"])
    assert store.set_vectors(keys, EMB.embed_passages(["x"] * len(keys))) == 0
    assert store.count_pending_vectors() == 1 and len(store.item_vectors("d0")) == 0
    (new,) = store.pending_vectors(0, 10)
    assert store.set_vectors([new], EMB.embed_passages(["new text for d0"])) == 1
    assert store.set_vectors([new], EMB.embed_passages(["other"])) == 0  # a vector already there stays


@pytest.mark.parametrize("bad", [np.zeros((2, 32)), np.full((1, 32), np.nan), np.zeros((1, 31))])
def test_bad_vectors_are_refused_and_nothing_is_stored(backend: Backend, bad: np.ndarray) -> None:
    store = _text_only(backend, n=1)
    key = store.pending_vectors(0, 1)
    with pytest.raises(InvalidInput):
        store.set_vectors(key, bad)
    assert store.count_pending_vectors() == 2


class BreaksOn(HashEmbedder):
    """Fails any call that contains a text with ``word`` — as a model failing on one odd input."""

    def __init__(self, word: str) -> None:
        super().__init__(dim=32)
        self.word = word

    def embed_passages(self, texts):  # type: ignore[override]
        if any(self.word in t for t in texts):
            raise EmbeddingFailed("the model returned non-finite values")
        return super().embed_passages(texts)


def test_a_chunk_that_breaks_the_model_costs_only_itself(backend: Backend) -> None:
    store = _text_only(backend, n=3)
    report = embed_pending(store, BreaksOn("alpha1"), KINDS)
    assert report.embedded == 5 and report.remaining == 1
    assert len(report.failed) == 1 and "non-finite" in report.failed[0][1]
    assert len(store.item_vectors("d1")) == 1  # its second chunk was fine


def test_pending_chunks_are_listed_per_tenant_and_embedded_in_turns(backend: Backend) -> None:
    """``pending_vectors(tenant=)`` and ``pending_vector_tenants`` on every backend (tenant names with the
    Postgres codec's escape and NUL among them), and ``embed_pending`` giving each tenant waiting a window in
    turn: a tenant with one chunk waiting behind another's backlog is embedded after one window, not all."""
    store = backend.make()
    odd = "x\\y\x00z"
    store.upsert([write(f"big{i}", f"backlog {i}", embed=False, tenant="big") for i in range(9)])
    store.upsert([write("small", "one note", embed=False, tenant="small"),
                  write("odd", "odd tenant", embed=False, tenant=odd)])
    assert store.pending_vector_tenants() == sorted(["big", "small", odd])
    everything = store.pending_vectors(0, 100)
    big = store.pending_vectors(0, 100, tenant="big")
    assert len(big) == 9 and big == everything[:9] and store.pending_vectors(big[3], 2, tenant="big") == big[4:6]
    assert len(store.pending_vectors(0, 100, tenant=odd)) == 1 and store.pending_vectors(0, 9, tenant="nobody") == []
    assert store.pending_vector_tenants(after=everything[-1]) == []
    order: list[str] = []

    class Recording:
        dim, model_id = EMB.dim, EMB.model_id

        def embed_passages(self, texts):  # type: ignore[no-untyped-def]
            order.extend(texts)
            return EMB.embed_passages(texts)

    report = embed_pending(store, Recording(), KINDS, window=3)  # type: ignore[arg-type]
    assert report.embedded == 11 and store.pending_vector_tenants() == []
    chunks = [t for t in order if "backlog" in t or "note" in t or "odd tenant" in t]  # not the sentence pass
    assert [i for i, t in enumerate(chunks) if "note" in t or "odd tenant" in t] == [3, 4], chunks
