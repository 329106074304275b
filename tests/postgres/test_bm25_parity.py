"""The Postgres keyword leg scores exactly like the embedded (tantivy) one, and like the BM25 formula.

Same corpus into a real SQLiteStore and a real PostgresStore; every match of every query is compared by
score. Lengths run well past 40 terms so tantivy's one-byte length quantisation is exercised.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from groundsearch.store.postgres import PostgresStore
from groundsearch.store.sqlite import SQLiteStore
from groundsearch.store.text import BM25_B, BM25_K1, analyze, keyword_terms
from groundsearch.types import Chunk, Item, ItemWrite, SearchFilter
from tests.hits import scores_by_chunk

VOCAB = [f"topic{i}" for i in range(60)] + ["graph", "retrieval", "postgres", "vector", "ranking", "index"]
QUERIES = ["graph retrieval", "postgres vector index", "topic1 topic2 topic3", "ranking", "topic59 graph graph",
           "index of topic7", "vector ranking retrieval postgres graph", "topic0"]


def corpus(n_items: int = 150) -> list[ItemWrite]:
    rng = np.random.default_rng(7)
    weights = 1.0 / np.arange(1, len(VOCAB) + 1)  # Zipfian: a few very common terms, a long tail
    weights /= weights.sum()
    writes = []
    for i in range(n_items):
        chunks = tuple(
            Chunk(id=f"d{i}#{j}", item_id=f"d{i}", position=j,
                  text=" ".join(rng.choice(VOCAB, size=int(rng.integers(3, 220)), p=weights)),
                  heading_path=("Guide", f"part {j}"))
            for j in range(int(rng.integers(1, 4)))
        )
        item = Item(id=f"d{i}", collection="docs", title=f"note {i % 13}", text="\n".join(c.text for c in chunks),
                    status="draft" if i % 10 == 0 else "published")
        writes.append(ItemWrite(item=item, chunks=chunks, vectors=None))
    return writes


def load(stores, writes: list[ItemWrite]) -> None:
    """The corpus in two batches into each store (the second batch moves the statistics the first set)."""
    for store in stores:
        store.upsert(writes[:100])
        store.upsert(writes[100:])


@pytest.fixture(scope="module")
def both(postgres_database, tmp_path_factory: pytest.TempPathFactory):
    writes = corpus()
    pg = PostgresStore.open(postgres_database(), dim=8, keyword_leg="sql")
    lite = SQLiteStore.open(Path(tmp_path_factory.mktemp("lite")), dim=8)
    load((pg, lite), writes)
    yield pg, lite, writes
    pg.close()
    lite.close()


def scores(store, query: str, f: SearchFilter = SearchFilter()) -> dict[str, float]:
    return scores_by_chunk(store, store.keyword_search(query, f, 1000).hits)


@pytest.mark.parametrize("query", QUERIES)
def test_scores_equal_the_embedded_store(both, query: str) -> None:
    pg, lite, _ = both
    for f in (SearchFilter(), SearchFilter(statuses=("published", "draft"))):
        ours, theirs = scores(pg, query, f), scores(lite, query, f)
        assert ours.keys() == theirs.keys() and ours
        for chunk_id, score in ours.items():
            assert score == pytest.approx(theirs[chunk_id], rel=2e-5), chunk_id


def _oracle(writes: list[ItemWrite], query: str) -> dict[str, float]:
    """BM25 written out from the formula, independently of either store, for a caller who reads drafts and
    published items alike: every chunk counts for N and df; each chunk's length is normalised by the mean of
    its own visibility class — drafts or the rest — the partition it is indexed in (store/keyword_scope.py)."""
    docs = {c.id: keyword_terms(w.item.title, c.heading_path, c.text) for w in writes for c in w.chunks}
    draft = {c.id: w.item.status == "draft" for w in writes for c in w.chunks}
    n = len(docs)
    means = {cls: sum(len(t) for c, t in docs.items() if draft[c] == cls) / sum(1 for c in docs if draft[c] == cls)
             for cls in (True, False)}

    def norm(length: int) -> int:  # the representable lengths: exact below 24, then 8 steps per power of two
        table = [v if v < 24 else 24 + ((v - 24) & 7 if (v - 24) >> 3 == 0 else (((v - 24) & 7) | 8) << (((v - 24) >> 3) - 1))
                 for v in range(256)]
        return max(t for t in table if t <= length)

    out: dict[str, float] = {}
    for term in dict.fromkeys(analyze(query)):
        df = sum(1 for t in docs.values() if term in t)
        if not df:
            continue
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        for chunk_id, terms in docs.items():
            tf = Counter(terms)[term]
            if tf:
                dl, avg = norm(len(terms)), means[draft[chunk_id]]
                out[chunk_id] = out.get(chunk_id, 0.0) + idf * (BM25_K1 + 1) * tf / (
                    tf + BM25_K1 * (1 - BM25_B + BM25_B * dl / avg))
    return out


@pytest.mark.parametrize("query", QUERIES[:4])
def test_scores_equal_the_formula(both, query: str) -> None:
    pg, _, writes = both
    expected = _oracle(writes, query)
    got = scores(pg, query, SearchFilter(statuses=("published", "draft")))
    assert got.keys() == expected.keys()
    for chunk_id, score in got.items():
        assert score == pytest.approx(expected[chunk_id], rel=1e-9)


def test_filters_do_not_change_scores(both) -> None:
    """A filter narrows the results, never the statistics — except for what the caller may see: asking for
    drafts adds the drafts' statistics (keyword_scope.py)."""
    pg, _, writes = both
    with_drafts = SearchFilter(statuses=("published", "draft"))
    for wide in (SearchFilter(), with_drafts):
        everything = scores(pg, "graph retrieval", wide)
        narrow = scores(pg, "graph retrieval", dataclasses.replace(
            wide, item_ids=tuple(w.item.id for w in writes[::3])))
        assert narrow and len(narrow) < len(everything)
        assert all(everything[c] == pytest.approx(s, rel=1e-12) for c, s in narrow.items())
    published, everything = scores(pg, "graph retrieval"), scores(pg, "graph retrieval", with_drafts)
    assert published.keys() < everything.keys() and any(everything[c] != published[c] for c in published)
