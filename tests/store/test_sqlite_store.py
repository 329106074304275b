"""Embedded-store behaviour beyond the contract: the HNSW path, exact entity-pair aggregates, preview tiers."""

from __future__ import annotations

import dataclasses
import datetime as dt
import random
from collections import Counter
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

from groundsearch.errors import InvalidInput, StoreError
from groundsearch.store.sqlite import SQLiteStore
from groundsearch.store.vectors import VectorIndex
from groundsearch.types import Chunk, FieldFilter, Item, ItemWrite, SearchFilter
from tests.hits import chunk_ids, item_ids

DIM = 16
ANY = SearchFilter(statuses=("draft", "published", "archived"), include_superseded=True)


def _clustered(rng: np.random.Generator, n: int) -> np.ndarray:
    centres = rng.standard_normal((12, DIM)).astype(np.float32)
    v = centres[rng.integers(0, 12, n)] + 0.5 * rng.standard_normal((n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _record(i: int, v: np.ndarray) -> ItemWrite:
    item = Item(id=f"r{i}", collection="releases", title=f"R{i}", text=f"record {i}",
                fields={"product": "rare" if i % 20 == 0 else "usual"})
    return ItemWrite(item=item, chunks=(Chunk(f"r{i}#0", f"r{i}", 0, item.text),), vectors=v[None, :])


def _exact(vectors: np.ndarray, ids: list[str], q: np.ndarray, k: int, allowed: set[str] | None = None) -> list[str]:
    scores = vectors @ q
    order = np.argsort(-scores, kind="stable")
    return [ids[i] for i in order if allowed is None or ids[i] in allowed][:k]


def test_hnsw_path_gives_full_filtered_pages_and_survives_reopen(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(1)
    vectors = _clustered(rng, 400)
    ids = [f"r{i}" for i in range(400)]
    store = SQLiteStore.open(tmp_path / "s", dim=DIM, exact_vector_max=50)
    store.upsert([_record(i, vectors[i]) for i in range(400)])
    assert store._vectors.uses_hnsw
    queries = _clustered(rng, 20)
    recall = np.mean([
        len(set(_exact(vectors, ids, q, 10)) & set(item_ids(store, store.vector_search(q, SearchFilter(), 10).hits))) / 10
        for q in queries
    ])
    assert recall >= 0.9
    assert item_ids(store, store.vector_search(vectors[7], SearchFilter(), 1).hits) == ["r7"]

    rare = SearchFilter(fields=(FieldFilter("product", ("RARE",)),))
    expected = {f"r{i}" for i in range(0, 400, 20)}
    first, second = store.vector_search(queries[0], rare, 15), store.vector_search(queries[0], rare, 15, 15)
    assert len(first.hits) == 15 and first.has_more and len(second.hits) == 5 and not second.has_more
    assert set(item_ids(store, first.hits + second.hits)) == expected
    assert item_ids(store, first.hits) == _exact(vectors, ids, queries[0], 15, expected)

    store.delete([f"r{i}" for i in range(0, 400, 2)])
    left = item_ids(store, store.vector_search(queries[1], SearchFilter(), 200).hits)
    assert len(left) == 200 and all(int(i[1:]) % 2 == 1 for i in left)
    whole = chunk_ids(store, store.vector_search(queries[2], SearchFilter(), 30).hits)
    paged = [c for off in range(0, 30, 10) for c in chunk_ids(store, store.vector_search(queries[2], SearchFilter(), 10, off).hits)]
    assert paged == whole
    store.close()

    assert (tmp_path / "s" / "vectors" / "hnsw.usearch").exists()
    builds = []
    original = VectorIndex._build_hnsw
    monkeypatch.setattr(VectorIndex, "_build_hnsw", lambda self: (builds.append(self.live), original(self))[1])
    store = SQLiteStore.open(tmp_path / "s", dim=DIM, exact_vector_max=50)
    try:
        assert builds == []  # the saved graph is restored; loading rows from SQLite builds none
        assert store._vectors.uses_hnsw
        assert chunk_ids(store, store.vector_search(queries[2], SearchFilter(), 30).hits) == whole
    finally:
        store.close()


def test_a_restored_graph_searches_with_the_stores_expansion_not_usearchs_default(tmp_path: Path) -> None:
    """usearch's saved graph does not keep ``expansion_search`` / ``expansion_add``: restored as is, every reopened
    store searched with usearch's default ef 64 instead of the store's (measured at 1M real-derived vectors: the
    store's recall@10 fell from that of its own ef to that of ef 64)."""
    from groundsearch.store import vectors as vector_module

    rng = np.random.default_rng(4)
    store = SQLiteStore.open(tmp_path / "s", dim=DIM, exact_vector_max=50)
    store.upsert([_record(i, v) for i, v in enumerate(_clustered(rng, 200))])
    built = store._vectors._hnsw
    assert (built.expansion_search, built.expansion_add) == (vector_module._EXPANSION_SEARCH, vector_module._EXPANSION_ADD)
    store.close()
    for read_only in (False, True):
        again = SQLiteStore.open(tmp_path / "s", dim=DIM, exact_vector_max=50, read_only=read_only)
        try:
            graph = again._vectors._hnsw
            assert graph is not None and graph is not built
            assert (graph.expansion_search, graph.expansion_add) == (vector_module._EXPANSION_SEARCH,
                                                                     vector_module._EXPANSION_ADD)
        finally:
            again.close()


def test_filtered_graph_edges_never_count_an_excluded_item_even_when_the_aggregate_answers(tmp_path: Path) -> None:
    """Attack: the aggregate shortcut (used when the filter admits every item of the seeds' mentions) must
    not answer when one such item is a draft, another tenant's, another collection's or undated under a date
    bound. Each filter's edges are checked against a brute-force count over the items it admits."""
    store = SQLiteStore.open(tmp_path / "s", dim=DIM)
    day = dt.date(2024, 1, 1)
    rows = [  # id, collection, status, tenant, date, entities of its one chunk
        ("pub", "docs", "published", "", day, ("x", "y")),
        ("undated", "docs", "published", "", None, ("x", "z")),
        ("draft", "docs", "draft", "", day, ("x", "w")),
        ("other", "other", "published", "", day, ("x", "v")),
        ("tenant-b", "docs", "published", "b", day, ("x", "u")),
        ("lone", "docs", "published", "", day, ("q", "r")),
    ]
    try:
        store.upsert([ItemWrite(Item(id=i, collection=c, title=i, text="t", date=d, status=st, tenant=t),
                                (Chunk(f"{i}#0", i, 0, "text", entities=e),), None) for i, c, st, t, d, e in rows])
        filters = [SearchFilter(), SearchFilter(collections=("docs",)), SearchFilter(date_from=day),
                   SearchFilter(tenant="b"), SearchFilter(tenant=""), ANY,
                   dataclasses.replace(ANY, date_from=day)]  # only the undated item is out: NULL, not false
        for f in filters:
            ids = {v.item.id for v in store.hydrate([h[0] for h in store.keyword_search("text", f, 50, 0).hits]).values()}
            want = Counter(frozenset(p) for i, *_, e in rows if i in ids for p in combinations(sorted(set(e)), 2)
                           if "x" in p)
            got = {frozenset((e.source, e.target)): e.weight for e in store.entity_edges(["x"], f, 100)}
            assert got == dict(want), (f, ids)
        # spelled out: under a date bound the undated item's edge is not there, nor the draft's
        dated = {frozenset((e.source, e.target)) for e in store.entity_edges(["x"], SearchFilter(date_from=day), 100)}
        assert dated == {frozenset(("x", n)) for n in "yvu"}
        any_status = store.entity_edges(["x"], dataclasses.replace(ANY, date_from=day), 100)
        assert {frozenset((e.source, e.target)) for e in any_status} == {frozenset(("x", n)) for n in "yvuw"}
    finally:
        store.close()


def test_entity_pair_aggregate_stays_exact_through_replacements_and_deletes(tmp_path: Path) -> None:
    rnd = random.Random(7)
    names = ["acme", "beta", "gamma", "delta", "eps"]
    store = SQLiteStore.open(tmp_path / "s", dim=DIM)
    live: dict[str, tuple[dt.date, list[tuple[str, ...]]]] = {}
    try:
        for step in range(60):
            if live and rnd.random() < 0.3:
                gone = rnd.sample(sorted(live), k=min(len(live), rnd.randint(1, 3)))
                store.delete(gone)
                for g in gone:
                    live.pop(g)
            else:
                iid = f"i{rnd.randint(0, 15)}"
                date = dt.date(2024, 1, 1) + dt.timedelta(days=rnd.randint(0, 400))
                ents = [tuple(rnd.sample(names, rnd.randint(0, 4))) for _ in range(rnd.randint(1, 3))]
                chunks = tuple(Chunk(f"{iid}#{k}", iid, k, f"text {step}", entities=e) for k, e in enumerate(ents))
                store.upsert([ItemWrite(Item(id=iid, collection="docs", title=iid, text="t", date=date), chunks, None)])
                live[iid] = (date, ents)
            weight: Counter[frozenset[str]] = Counter()
            last: dict[frozenset[str], dt.date] = {}
            for date, ents in live.values():
                for e in ents:
                    for a, b in combinations(sorted(set(e)), 2):
                        weight[frozenset((a, b))] += 1
                        last[frozenset((a, b))] = max(last.get(frozenset((a, b)), date), date)
            edges = store.entity_edges(names, ANY, 100)  # served by the maintained aggregate
            assert {frozenset((e.source, e.target)): (e.weight, e.last_seen) for e in edges} == {
                p: (w, last[p]) for p, w in weight.items()
            }
            filtered = store.entity_edges(names, SearchFilter(collections=("docs",)), 100)  # recomputed from mentions
            assert sorted((e.source, e.target, e.weight, e.last_seen) for e in filtered) == sorted(
                (e.source, e.target, e.weight, e.last_seen) for e in edges
            )
        mentions = Counter(n for _, ents in live.values() for e in ents for n in set(e))
        assert dict(store.top_terms(ANY, 10)) == dict(mentions)
    finally:
        store.close()


def test_preview_tiers_and_unicode_case(tmp_path: Path) -> None:
    store = SQLiteStore.open(tmp_path / "s", dim=DIM)
    try:
        titles = {"a": "Postgres tuning", "b": "Learn postgres fast", "c": "Unpostgresql", "d": "ÉCOLE normale"}
        store.upsert([ItemWrite(Item(id=k, collection="docs", title=t, text="x"), (Chunk(f"{k}#0", k, 0, "x"),), None)
                      for k, t in titles.items()])
        hits = store.preview("  POSTGRES ", SearchFilter(), 10)
        assert [(h.item_id, h.title_match) for h in hits] == [("a", True), ("b", True), ("c", False)]
        assert [h.item_id for h in store.preview("éco", SearchFilter(), 10)] == ["d"]
        assert store.preview("   ", SearchFilter(), 10) == []
        assert store.preview("postgres", SearchFilter(collections=("other",)), 10) == []
    finally:
        store.close()


def test_bad_writes_name_the_problem_and_store_nothing(tmp_path: Path) -> None:
    store = SQLiteStore.open(tmp_path / "s", dim=DIM)
    try:
        ok = ItemWrite(Item(id="ok", collection="docs", title="ok", text="x"), (Chunk("ok#0", "ok", 0, "x"),), None)
        clash = ItemWrite(Item(id="other", collection="docs", title="o", text="x"), (Chunk("ok#0", "other", 0, "x"),), None)
        with pytest.raises(InvalidInput, match="ok#0"):
            store.upsert([ok, clash])
        store.upsert([ok])
        with pytest.raises(InvalidInput, match="unique"):
            store.upsert([clash])
        nan = ItemWrite(Item(id="nan", collection="docs", title="n", text="x"), (Chunk("nan#0", "nan", 0, "x"),),
                        np.full((1, DIM), np.nan, dtype=np.float32))
        with pytest.raises(InvalidInput, match="NaN"):
            store.upsert([nan])
        with pytest.raises(InvalidInput, match="dimensions"):
            store.vector_search(np.ones(3), SearchFilter(), 5)
        assert store.count() == 1 and store.count_chunks() == 1
    finally:
        store.close()
    with pytest.raises(StoreError, match="holds 16-d"):
        SQLiteStore.open(tmp_path / "s", dim=32)
    reader = SQLiteStore.open(tmp_path / "s", dim=DIM, read_only=True)
    try:
        with pytest.raises(StoreError, match="read-only"):
            reader.delete(["ok"])
        assert reader.get("ok") is not None
    finally:
        reader.close()


def test_trimmed_change_log_still_lets_readers_and_reopen_catch_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from groundsearch.store import sqlite_sync

    monkeypatch.setattr(sqlite_sync, "LOG_RETAIN", 10)
    rng = np.random.default_rng(3)
    path = tmp_path / "s"
    writer = SQLiteStore.open(path, dim=DIM, exact_vector_max=20)
    writer.upsert([_record(0, _clustered(rng, 1)[0])])
    reader = SQLiteStore.open(path, dim=DIM, exact_vector_max=20, read_only=True)  # applied up to seq 1
    try:
        for i in range(1, 80):
            writer.upsert([_record(i, _clustered(rng, 1)[0])])
        first = writer._conn.execute("SELECT min(seq) FROM changes").fetchone()[0]
        assert first > 2  # the log really was trimmed past the reader
        q = _clustered(rng, 1)[0]
        assert len(reader.vector_search(q, SearchFilter(), 100).hits) == 80
        assert reader.count() == 80 and len(reader.keyword_search("record", SearchFilter(), 100).hits) == 80
    finally:
        reader.close()
        writer.close()
    for child in (path / "keyword").iterdir():  # an index older than the trimmed log is rebuilt, not replayed
        if child.name == "applied.json":
            child.write_text('{"format": 1, "seq": 1}')
    again = SQLiteStore.open(path, dim=DIM, exact_vector_max=20)
    try:
        assert len(again.keyword_search("record", SearchFilter(), 100).hits) == 80
        assert len(again.vector_search(q, SearchFilter(), 100).hits) == 80
    finally:
        again.close()
