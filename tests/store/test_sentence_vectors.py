"""Sentence vectors of extractive answers stored in the store, on every backend: the embed worker stores
each chunk's quotable sentences after its vector, an answer reads them back instead of embedding on
first sight, and they go with their chunk (re-ingest, delete) so a stale vector is never read."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from groundsearch.answer.sentence_vectors import SentenceVectors
from groundsearch.answer.sentences import embed_text, quotable
from groundsearch.errors import InvalidInput, StoreError
from groundsearch.ingest.embed_worker import embed_pending
from groundsearch.models.fake import HashEmbedder
from groundsearch.store.sentence_rows import digest
from tests.store.conftest import Backend
from tests.store.test_contract import EMB, write

KINDS = {"docs": "documents"}
PROSE = ("The river floods every spring after the snow melts in the hills. "
         "Farmers plant rice on the wet plains once the water recedes.")
OTHER = "A new bridge was opened across the river in the summer of 2019 by the mayor."


class CountingEmbedder(HashEmbedder):
    def __init__(self, dim: int = 32) -> None:
        super().__init__(dim=dim)
        self.passages = 0

    def embed_passages(self, texts):  # type: ignore[no-untyped-def]
        self.passages += len(texts)
        return super().embed_passages(texts)


def _chunk_ids(store, item_id: str) -> list[str]:
    return [v.chunk.id for v in store.item_chunks(item_id)]


def _expected(store, item_id: str) -> dict[str, dict[str, np.ndarray]]:
    out = {}
    for view in store.item_chunks(item_id):
        texts = [embed_text(s) for s in quotable(view.item, view.chunk)]
        out[view.chunk.id] = dict(zip(map(digest, texts), EMB.embed_passages(texts))) if texts else {}
    return out


def test_embed_pending_stores_every_chunks_sentences_and_a_rerun_is_a_no_op(backend: Backend) -> None:
    store = backend.make()
    store.upsert([write("a", PROSE, OTHER, embed=False), write("b", "Heading only", embed=False)])
    report = embed_pending(store, EMB, KINDS)
    assert report.embedded == 3 and report.sentence_chunks == 3
    assert store.pending_sentences(EMB.model_id) == []
    stored = store.sentence_vectors(EMB.model_id, _chunk_ids(store, "a") + _chunk_ids(store, "b"))
    expected = _expected(store, "a")
    assert [len(stored[c]) for c in _chunk_ids(store, "a")] == [2, 1]
    for cid, rows in expected.items():
        assert stored[cid].keys() == rows.keys()
        for d, vec in rows.items():
            assert np.allclose(stored[cid][d], vec, atol=1e-6)
    assert stored[_chunk_ids(store, "b")[0]] == {}  # done, nothing quotable: not pending again
    store = backend.reopen(store)
    assert store.pending_sentences(EMB.model_id) == []
    assert embed_pending(store, EMB, KINDS).sentence_chunks == 0
    assert len(store.sentence_vectors(EMB.model_id, _chunk_ids(store, "a"))) == 2


def test_sentence_rows_go_with_their_chunk_on_reingest_and_delete(backend: Backend) -> None:
    store = backend.make()
    store.upsert([write("a", PROSE), write("b", OTHER)])
    embed_pending(store, EMB, KINDS)
    (old,) = _chunk_ids(store, "a")
    assert store.pending_sentences(EMB.model_id) == []
    store.upsert([write("a", OTHER.replace("2019", "2021"))])  # same chunk id, new text
    assert store.sentence_vectors(EMB.model_id, [old]) == {}  # the old text's vectors are gone
    assert len(store.pending_sentences(EMB.model_id)) == 1
    embed_pending(store, EMB, KINDS)
    fresh = store.sentence_vectors(EMB.model_id, [old])[old]
    assert set(fresh) == {digest(embed_text(OTHER.replace("2019", "2021")))}
    store.delete(["a"])
    assert store.sentence_vectors(EMB.model_id, [old]) == {}
    assert store.sentence_vectors(EMB.model_id, _chunk_ids(store, "b")) != {}


def test_another_model_misses_and_a_deleted_chunk_gets_no_row(backend: Backend) -> None:
    store = backend.make()
    store.upsert([write("a", PROSE)])
    embed_pending(store, EMB, KINDS)
    (cid,) = _chunk_ids(store, "a")
    assert store.sentence_vectors("another-model", [cid]) == {}
    keys = store.pending_sentences("another-model")
    assert len(keys) == 1
    store.delete(["a"])
    vec = np.ones((1, store.dim), np.float32) / np.sqrt(store.dim)
    assert store.set_sentences("another-model", [(keys[0], ["A late sentence for a chunk now gone."], vec)]) == 0


def test_malformed_rows_are_refused_and_nothing_is_stored(backend: Backend) -> None:
    store = backend.make()
    store.upsert([write("a", PROSE), write("b", OTHER)])
    keys = store.pending_sentences("m")
    good = (keys[0], ["One sentence here."], np.zeros((1, store.dim), np.float32))
    for bad in ((keys[1], ["Two", "sentences"], np.zeros((1, store.dim), np.float32)),
                (keys[1], ["One"], np.full((1, store.dim), np.nan, np.float32)),
                (keys[1], "not a list", np.zeros((1, store.dim), np.float32))):
        with pytest.raises(InvalidInput):
            store.set_sentences("m", [good, bad])
    assert store.pending_sentences("m") == keys  # the good row of a refused batch was not kept either


def test_an_answer_reads_stored_sentence_vectors_instead_of_embedding(backend: Backend) -> None:
    store = backend.make()
    store.upsert([write("a", PROSE, OTHER)])
    embed_pending(store, EMB, KINDS)
    counting = CountingEmbedder()
    vectors = SentenceVectors(counting, store=store)
    items = [(v.chunk.id, embed_text(s)) for v in store.item_chunks("a") for s in quotable(v.item, v.chunk)]
    got = vectors.sentences(items)
    assert counting.passages == 0 and vectors.stored == 3
    assert np.allclose(got, EMB.embed_passages([t for _, t in items]), atol=1e-6)
    # a sentence the store does not hold (text the worker never saw) is embedded on first sight
    got = vectors.sentences([*items, (items[0][0], "A sentence the worker never stored.")])
    assert counting.passages == 1 and vectors.hits == 3


def test_a_read_only_store_written_before_sentence_vectors_embeds_on_first_sight(tmp_path) -> None:
    from groundsearch.store.sqlite import SQLiteStore

    with SQLiteStore.open(tmp_path / "s", dim=32) as store:
        store.upsert([write("a", PROSE)])
    db = sqlite3.connect(tmp_path / "s" / "store.sqlite3")
    db.execute("DROP TABLE chunk_sentences")  # as a file from before this table existed
    db.commit()
    db.close()
    with SQLiteStore.open(tmp_path / "s", dim=32, read_only=True) as reader:
        assert reader.pending_sentences(EMB.model_id) == []
        assert reader.sentence_vectors(EMB.model_id, _chunk_ids(reader, "a")) == {}
        with pytest.raises(StoreError):
            reader.set_sentences(EMB.model_id, [])
        counting = CountingEmbedder()
        vectors = SentenceVectors(counting, store=reader)
        vectors.sentences([(_chunk_ids(reader, "a")[0], "The river floods every spring.")])
        assert counting.passages == 1


def test_the_embedded_store_leaves_no_orphan_sentence_rows(tmp_path) -> None:
    from groundsearch.store.sqlite import SQLiteStore

    with SQLiteStore.open(tmp_path / "s", dim=32) as store:
        store.upsert([write("a", PROSE), write("b", OTHER)])
        embed_pending(store, EMB, KINDS)
        store.upsert([write("a", OTHER)])
        store.delete(["b"])
        embed_pending(store, EMB, KINDS)
    db = sqlite3.connect(tmp_path / "s" / "store.sqlite3")
    orphans = db.execute("SELECT count(*) FROM chunk_sentences s WHERE NOT EXISTS "
                         "(SELECT 1 FROM chunks c WHERE c.key = s.chunk_key)").fetchone()[0]
    rows = db.execute("SELECT count(*) FROM chunk_sentences").fetchone()[0]
    db.close()
    assert (orphans, rows) == (0, 1)
