"""The local keyword leg (store/pg_local_keyword.py) on the real embedded Postgres.

Each PostgresStore opened with ``keyword_leg="local"`` stands for one API worker: its own tantivy index in
its own directory, caught up to Postgres's change log before each search.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from pathlib import Path

import numpy as np
import pytest

from groundsearch.store import pg_local_keyword
from groundsearch.store.keyword_tantivy import KeywordIndex
from groundsearch.store.postgres import PostgresStore
from groundsearch.store.sqlite import SQLiteStore
from groundsearch.types import Chunk, Item, ItemWrite, SearchFilter
from tests.hits import chunk_ids, item_ids, scores_by_chunk

from .test_bm25_parity import QUERIES, corpus, load

DIM = 8


def write(item_id: str, text: str, *, tenant: str = "", status: str = "published") -> ItemWrite:
    item = Item(id=item_id, collection="docs", title=f"title {item_id}", text=text, tenant=tenant, status=status)
    return ItemWrite(item=item, chunks=(Chunk(id=f"{item_id}#0", item_id=item_id, position=0, text=text),), vectors=None)


def found(store: PostgresStore, query: str, f: SearchFilter = SearchFilter()) -> list[str]:
    return item_ids(store, store.keyword_search(query, f, 200).hits)


@pytest.fixture()
def dsn(postgres_database) -> str:
    return postgres_database()


@pytest.fixture()
def workers(dsn: str, tmp_path: Path):
    """Two workers on one database, each with its own local index directory."""
    a = PostgresStore.open(dsn, dim=DIM, keyword_leg="local", keyword_dir=tmp_path / "a")
    b = PostgresStore.open(dsn, dim=DIM, keyword_leg="local", keyword_dir=tmp_path / "b")
    yield a, b
    a.close()
    b.close()


@pytest.fixture(scope="module")
def three(postgres_database, tmp_path_factory: pytest.TempPathFactory):
    """One corpus in the embedded store, in Postgres through the local leg and through the SQL leg."""
    writes = corpus()
    dsn = postgres_database()
    local = PostgresStore.open(dsn, dim=DIM, keyword_leg="local")
    sql = PostgresStore.open(dsn, dim=DIM, keyword_leg="sql")
    lite = SQLiteStore.open(Path(tmp_path_factory.mktemp("lite")), dim=DIM)
    load((local, lite), writes)
    yield local, sql, lite
    local.close()
    sql.close()
    lite.close()


@pytest.mark.parametrize("query", QUERIES)
def test_parity_with_the_embedded_store_and_the_sql_leg(three, query: str) -> None:
    local, sql, lite = three
    for f in (SearchFilter(), SearchFilter(statuses=("published", "draft"))):
        ours = scores_by_chunk(local, local.keyword_search(query, f, 1000).hits)
        for other in (lite, sql):
            theirs = scores_by_chunk(other, other.keyword_search(query, f, 1000).hits)
            assert ours.keys() == theirs.keys() and ours
            for chunk_id, score in ours.items():
                assert score == pytest.approx(theirs[chunk_id], rel=2e-5), chunk_id
        # top 10 rank by rank; equal scores are ordered by chunk key, and the stores number chunks in
        # different orders (Postgres sorts a batch by item id), so only tied chunks may trade places
        page, want = (scores_by_chunk(s, s.keyword_search(query, f, 10).hits) for s in (local, lite))
        assert list(page.values()) == pytest.approx(list(want.values()), rel=2e-5)
        assert all(theirs_score == pytest.approx(ours[c], rel=2e-5) for c, theirs_score in want.items())


def test_pages_and_offsets_match_the_embedded_store(three) -> None:
    local, _, lite = three
    for offset in (0, 7, 30):
        ours, theirs = local.keyword_search("graph", SearchFilter(), 10, offset), lite.keyword_search(
            "graph", SearchFilter(), 10, offset)
        assert [s for _, s in ours.hits] == pytest.approx([s for _, s in theirs.hits], rel=2e-5)
        assert ours.has_more == theirs.has_more


def test_a_write_on_one_worker_is_seen_by_the_next_search_on_another(workers) -> None:
    a, b = workers
    assert found(b, "zebra") == []  # b builds its index now, before the write
    a.upsert([write("z1", "a zebra crossing")])
    assert found(b, "zebra") == ["z1"]
    a.upsert([write("z1", "no stripes here any more")])  # replaced: the old chunk leaves b's index too
    assert found(b, "zebra") == [] and found(b, "stripes") == ["z1"]


def test_delete_on_one_worker_removes_it_from_the_other(workers) -> None:
    a, b = workers
    a.upsert([write("d1", "ephemeral words"), write("d2", "ephemeral too")])
    assert sorted(found(b, "ephemeral")) == ["d1", "d2"]
    assert a.delete(["d1"]) == 1
    assert found(b, "ephemeral") == ["d2"]


def test_tenant_and_draft_filters(workers) -> None:
    a, b = workers
    a.upsert([write("t1", "secret plans", tenant="acme"), write("t2", "secret plans", tenant="globex"),
              write("t3", "secret plans", status="draft")])
    assert found(b, "secret", SearchFilter(tenant="acme")) == ["t1"]
    assert found(b, "secret", SearchFilter(tenant="globex")) == ["t2"]
    assert sorted(found(b, "secret")) == ["t1", "t2"]  # default filter: published only
    assert sorted(found(b, "secret", SearchFilter(statuses=("draft", "published")))) == ["t1", "t2", "t3"]
    assert found(b, "secret", SearchFilter(tenant="initech")) == []


def _write_and_die(dsn: str, item_id: str) -> None:
    store = PostgresStore.open(dsn, dim=DIM, keyword_leg="local")
    store.upsert([write(item_id, "written by a worker that then died")])
    os._exit(0)  # no close, no catch-up: the way kill -9 ends a worker right after its commit


def test_write_from_another_process_that_dies_before_any_catch_up(workers, dsn: str) -> None:
    a, b = workers
    assert found(b, "died") == []
    proc = mp.get_context("spawn").Process(target=_write_and_die, args=(dsn, "p1"))
    proc.start()
    proc.join(120)
    assert proc.exitcode == 0
    assert found(b, "died") == ["p1"] and found(a, "died") == ["p1"]


def test_a_catch_up_that_fails_midway_is_replayed_whole(workers, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = workers
    found(b, "anything")
    a.upsert([write("c1", "midway alpha")])
    a.upsert([write("c2", "midway beta")])
    real = KeywordIndex.apply
    calls = {"n": 0}

    def crash_after_commit(self, seq, removed, docs):  # tantivy commits, then the worker dies before its seq
        real(self, self.applied_seq, removed, docs)
        calls["n"] += 1
        raise KeyboardInterrupt("crash between the index commit and recording the seq")

    monkeypatch.setattr(KeywordIndex, "apply", crash_after_commit)
    with pytest.raises(KeyboardInterrupt):
        found(b, "midway")
    monkeypatch.setattr(KeywordIndex, "apply", real)
    assert calls["n"] == 1
    a.delete(["c1"])
    assert found(b, "midway") == ["c2"]


def test_a_transaction_that_never_commits_leaves_no_log(workers, dsn: str) -> None:
    import psycopg

    a, b = workers
    found(b, "x")
    seq = b.local_keyword.applied_seq
    with psycopg.connect(dsn) as conn:  # a writer's bump, rolled back as a crash before commit would
        conn.execute("UPDATE corpus_stats SET log_seq = log_seq + 1")
        conn.rollback()
    found(b, "x")
    assert b.local_keyword.applied_seq == seq


def test_a_damaged_local_index_is_rebuilt_and_answers_the_same(workers) -> None:
    a, b = workers
    a.upsert([write(f"g{i}", f"granite quarry {'deep ' * i}") for i in range(30)])
    before = b.keyword_search("granite deep", SearchFilter(), 10).hits
    assert len(before) == 10
    victims = list(b.local_keyword.path.glob("*.idx"))
    assert victims
    for victim in victims:  # postings zeroed in place, footers kept: what a bad disk does under mmap
        data = victim.read_bytes()
        with open(victim, "r+b") as f:
            f.write(bytes(len(data) - 100) + data[-100:])
    after = b.keyword_search("granite deep", SearchFilter(), 10).hits
    assert chunk_ids(b, after) == chunk_ids(b, before)
    assert [s for _, s in after] == pytest.approx([s for _, s in before], rel=1e-6)
    assert "damaged" in b.local_keyword.rebuilds[-1]["why"]


def test_a_worker_behind_the_trimmed_log_rebuilds(workers, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = workers
    monkeypatch.setattr(pg_local_keyword, "LOG_RETAIN", 3)
    monkeypatch.setattr(pg_local_keyword, "TRIM_EVERY", 2)
    found(b, "x")
    builds = len(b.local_keyword.rebuilds)
    for i in range(8):
        a.upsert([write(f"r{i}", f"rolling log {i}")])
    assert sorted(found(b, "rolling")) == [f"r{i}" for i in range(8)]
    assert len(b.local_keyword.rebuilds) == builds + 1
    assert "behind" in b.local_keyword.rebuilds[-1]["why"]


def test_concurrent_writers_are_all_seen(workers) -> None:
    """Seqs come in commit order even with writers racing, so no committed write is skipped."""
    from concurrent.futures import ThreadPoolExecutor

    a, b = workers
    found(b, "x")
    rng = np.random.default_rng(3)

    def burst(w: int) -> None:
        for i in range(15):
            a.upsert([write(f"cw{w}-{i}", f"racing writer {int(rng.integers(0, 5))}")])
            found(b, "racing")  # catch-ups interleaved with the writes

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(burst, range(4)))
    assert sorted(found(b, "racing")) == sorted(f"cw{w}-{i}" for w in range(4) for i in range(15))


def test_close_removes_its_own_directory(dsn: str) -> None:
    store = PostgresStore.open(dsn, dim=DIM, keyword_leg="local")
    store.upsert([write("k1", "kept nowhere")])
    assert found(store, "kept") == ["k1"]
    path = store.local_keyword.path
    assert path.exists()
    store.close()
    assert not path.exists()
