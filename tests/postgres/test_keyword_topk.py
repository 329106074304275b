"""The Postgres keyword leg stops reading postings early, and its pages equal the exhaustive query's exactly.

The oracle (``exhaustive_keyword_sql``, also the leg's fallback and the benchmark's baseline) scores *every* posting of the query terms (what the leg did before impact-ordered
postings) on the same database, so any page the early-terminating leg returns — any limit, offset, filter,
after appends that move the mean length far from the one impacts were computed with, after deletes and after
a refresh — must match it key for key and score for score.
"""

from __future__ import annotations

import numpy as np
import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from groundsearch.store import pg_keyword
from groundsearch.store.pg_keyword import exhaustive_keyword_sql
from groundsearch.store.pg_filters import compile_filter
from groundsearch.store.pg_migrations import known_migrations
from groundsearch.store.postgres import PostgresStore
from groundsearch.store.text import BM25_B, BM25_K1, analyze
from groundsearch.types import Chunk, Item, ItemWrite, SearchFilter

VOCAB = [f"w{i}" for i in range(120)]


def oracle(dsn: str, query: str, f: SearchFilter, limit: int, offset: int) -> list[tuple[int, float]]:
    terms = list(dict.fromkeys(analyze(query)))
    where = compile_filter(f)
    with psycopg.connect(dsn) as conn:
        rows = conn.execute(exhaustive_keyword_sql(where.sql).encode(), {"terms": terms, "k1": BM25_K1, "b": BM25_B,
                                                                   "lim": limit, "off": offset, **where.params})
        return [(int(k), float(s)) for k, s in rows]


def writes(rng: np.random.Generator, start: int, n: int, *, min_len: int, max_len: int) -> list[ItemWrite]:
    p = 1.0 / np.arange(1, len(VOCAB) + 1) ** 1.1
    p /= p.sum()
    out = []
    for i in range(start, start + n):
        text = " ".join(rng.choice(VOCAB, size=int(rng.integers(min_len, max_len)), p=p))
        item = Item(id=f"d{i}", collection="docs" if i % 3 else "notes", title=f"t{i % 7}", text=text,
                    status="draft" if i % 5 == 0 else "published")
        out.append(ItemWrite(item=item, chunks=(Chunk(id=f"d{i}#0", item_id=f"d{i}", position=0, text=text),),
                             vectors=None))
    return out


@pytest.fixture(autouse=True)
def shallow_first_round(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sample 8 postings a term and read only lists of ≤ 40 whole, so a corpus this small exercises the
    pruning paths rather than lists read to their end."""
    monkeypatch.setattr(pg_keyword, "FIRST_DEPTH", 8)
    monkeypatch.setattr(pg_keyword, "SHORT_LIST", 40)  # else every list of this corpus would be read whole


@pytest.fixture(scope="module")
def store(postgres_database):
    dsn = postgres_database()
    s = PostgresStore.open(dsn, dim=4, keyword_leg="sql")
    rng = np.random.default_rng(3)
    s.upsert(writes(rng, 0, 600, min_len=5, max_len=40))
    yield s, dsn, rng
    s.close()


FILTERS = [SearchFilter(), SearchFilter(collections=("notes",)), SearchFilter(statuses=("draft",)),
           SearchFilter(statuses=("published", "draft"))]


def assert_same_page(s: PostgresStore, dsn: str, query: str, f: SearchFilter, limit: int, offset: int) -> None:
    got = s.keyword_search(query, f, limit, offset)
    want = oracle(dsn, query, f, limit + 1, offset)
    assert [k for k, _ in got.hits] == [k for k, _ in want[:limit]]
    for (_, a), (_, b) in zip(got.hits, want):
        assert a == pytest.approx(b, rel=1e-12)
    assert got.has_more == (len(want) > limit)


def assert_same_rows(got: list[tuple[int, float]], want: list[tuple[int, float]]) -> None:
    assert [k for k, _ in got] == [k for k, _ in want]
    assert [x for _, x in got] == pytest.approx([x for _, x in want], rel=1e-12)


def traced(dsn: str, query: str, f: SearchFilter, need: int) -> tuple[list[tuple[int, float]], dict]:
    """The leg's rows and what it did (threshold, lists read, candidates scored), on its own connection."""
    trace: list[dict] = []
    with psycopg.connect(dsn) as conn:
        rows = pg_keyword.keyword_top(conn, list(dict.fromkeys(analyze(query))), compile_filter(f), need, trace)
    assert len(trace) == 1
    return rows, trace[0]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(words=st.lists(st.sampled_from(VOCAB + ["absent"]), min_size=1, max_size=6),
       limit=st.sampled_from([1, 3, 10, 50]), offset=st.sampled_from([0, 2, 20]), f=st.sampled_from(FILTERS))
def test_every_page_equals_the_exhaustive_query(store, words: list[str], limit: int, offset: int,
                                                f: SearchFilter) -> None:
    s, dsn, _ = store
    assert_same_page(s, dsn, " ".join(words), f, limit, offset)


def test_shallow_pages_score_fewer_chunks_than_the_lists_hold(store) -> None:
    """Common terms' lists are longer than the sample; a top-10 page must not score every chunk in them."""
    s, dsn, _ = store
    with psycopg.connect(dsn) as conn:
        matching = conn.execute("SELECT count(DISTINCT chunk_pk) FROM postings WHERE term IN ('w0', 'w1')").fetchone()[0]
    rows, did = traced(dsn, "w0 w1", SearchFilter(), 11)
    assert_same_rows(rows, oracle(dsn, "w0 w1", SearchFilter(), 11, 0))
    assert did["path"] in ("required", "maxscore") and did["candidates"] < matching, (did, matching)


def test_exact_after_the_mean_length_drifts_deletes_and_a_refresh(postgres_database) -> None:
    dsn = postgres_database()
    s = PostgresStore.open(dsn, dim=4, keyword_leg="sql")
    try:
        rng = np.random.default_rng(11)
        s.upsert(writes(rng, 0, 300, min_len=3, max_len=12))  # impacts computed at a short mean length
        s.upsert(writes(rng, 300, 300, min_len=60, max_len=200))  # the mean length grows several-fold
        queries = ["w0", "w1 w2 w3", "w5 w40 w90", "w0 w1 w2 w3 w4 w5"]
        for q in queries:
            for f in FILTERS:
                assert_same_page(s, dsn, q, f, 10, 0)
                assert_same_page(s, dsn, q, f, 5, 7)
        s.delete([f"d{i}" for i in range(0, 600, 4)])
        s.upsert(writes(rng, 1000, 50, min_len=1, max_len=4))  # and shrinks again a little
        for q in queries:
            assert_same_page(s, dsn, q, SearchFilter(), 10, 0)
        refs = s.refresh_keyword_impacts()
        assert refs["reference"] != refs["previous_reference"]
        for q in queries:
            for f in FILTERS:
                assert_same_page(s, dsn, q, f, 10, 3)
        with psycopg.connect(dsn) as conn:  # df kept per write equals df counted from the postings
            kept = dict(conn.execute("SELECT term, df FROM term_stats WHERE df > 0").fetchall())
            counted = dict(conn.execute("SELECT term, count(*) FROM postings GROUP BY term").fetchall())
        assert kept == counted
    finally:
        s.close()


def test_migration_2_orders_postings_already_stored(postgres_database) -> None:
    """A database written under schema 1 gets impacts, the impact index and per-term df from migration 2."""
    dsn = postgres_database()
    first, second = known_migrations()[:2]
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        conn.execute(first.sql.encode())
        conn.execute("INSERT INTO items (id, collection, title, body, tenant, status, content_hash, fields) "
                     "VALUES ('a', 'docs', 'A', 'x', '', 'published', 'h', '{}'::jsonb)")
        conn.execute("INSERT INTO chunks VALUES (1, 'a#0', 'a', 0, 'x', '{}', '{}', 4, 4), "
                     "(2, 'a#1', 'a', 1, 'x', '{}', '{}', 12, 12)")
        conn.execute("INSERT INTO postings VALUES ('alpha', 1, 2, 4), ('alpha', 2, 1, 12), ('beta', 2, 3, 12)")
        conn.execute("UPDATE corpus_stats SET n_chunks = 2, n_terms = 16")
        conn.execute(second.sql.encode())
        ref = conn.execute("SELECT impact_avglen FROM corpus_stats").fetchone()[0]
        impacts = dict(((t, k), v) for t, k, v in conn.execute("SELECT term, chunk_pk, impact FROM postings"))
        df = dict(conn.execute("SELECT term, df FROM term_stats").fetchall())
    assert ref == 8.0
    assert impacts[("alpha", 1)] == pytest.approx(pg_keyword.impact(2, 4, 8.0))
    assert impacts[("beta", 2)] == pytest.approx(pg_keyword.impact(3, 12, 8.0))
    assert df == {"alpha": 2, "beta": 1}


def test_a_filter_the_sample_misses_falls_back_to_one_pass_and_is_never_short(store) -> None:
    """Drafts are a fifth of the corpus: the sample of 8 postings a term holds fewer than 40 drafts, so no
    threshold exists and the leg must score everything rather than return a short page."""
    s, dsn, _ = store
    f = SearchFilter(statuses=("draft",))
    rows, did = traced(dsn, "w0 w1 w7", f, 40)
    assert did["path"] == "exhaustive"
    assert len(rows) == 40
    assert_same_rows(rows, oracle(dsn, "w0 w1 w7", f, 40, 0))
    assert_same_page(s, dsn, "w0 w1 w7", f, 39, 0)


def test_every_path_is_taken_and_exact(store) -> None:
    """The hypothesis test covers pages; this pins that each way the leg can go actually occurs on this
    corpus (so none of them is dead code the oracle comparison never reached)."""
    s, dsn, _ = store
    cases = [("w110 w115", SearchFilter(), 40), ("w0 w1", SearchFilter(), 11), ("w0 w110", SearchFilter(), 11),
             ("w100 w105 w110 w115", SearchFilter(), 11),
             ("w0 w1 w7", SearchFilter(statuses=("draft",)), 40)]
    cases += [(" ".join(f"w{j}" for j in range(i, i + n)), SearchFilter(), 11) for n in (3, 4, 5) for i in (20, 30, 40)]
    seen = set()
    for q, f, need in cases:
        rows, did = traced(dsn, q, f, need)
        seen.add(did["path"])
        assert_same_rows(rows, oracle(dsn, q, f, need, 0))
    assert seen == {"sample", "required", "maxscore", "exhaustive", "short lists"}, seen


def test_a_delete_between_threshold_and_candidates_cannot_shorten_the_page(postgres_database, monkeypatch) -> None:
    """The two statements read one snapshot. A writer deleting the page's chunks right after the threshold
    was taken must not leave the leg cutting at a threshold no remaining chunk reaches (a short page)."""
    dsn = postgres_database()
    s = PostgresStore.open(dsn, dim=4, keyword_leg="sql")
    try:
        s.upsert(writes(np.random.default_rng(5), 0, 600, min_len=5, max_len=40))
        before = oracle(dsn, "w0 w1", SearchFilter(), 11, 0)
        with psycopg.connect(dsn) as conn:  # the best 200 chunks: every one left scores below the threshold
            victims = [r[0] for r in conn.execute("SELECT item_id FROM chunks WHERE pk = ANY(%s)",
                                                  ([k for k, _ in oracle(dsn, "w0 w1", SearchFilter(), 200, 0)],))]
        original_execute = psycopg.Connection.execute

        def delete_after_threshold(self, query, params=None, *a, **k):
            out = original_execute(self, query, params, *a, **k)
            if isinstance(params, dict) and "m" in params and victims:
                s.delete(list(victims))
                victims.clear()
            return out

        monkeypatch.setattr(psycopg.Connection, "execute", delete_after_threshold)
        rows, did = traced(dsn, "w0 w1", SearchFilter(), 11)
        monkeypatch.setattr(psycopg.Connection, "execute", original_execute)
        assert not victims and did["path"] in ("required", "maxscore")
        assert_same_rows(rows, before)  # the snapshot the threshold came from, whole
    finally:
        s.close()
