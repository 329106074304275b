"""The embedded keyword index scores each caller with the statistics of what it may see (store/keyword_scope.py).

Oracles: a single tantivy index of the same documents (what every store was before partitions) for the
single-tenant parity, and a second store holding only one tenant's chunks for the others.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import numpy as np
import pytest
import tantivy

from groundsearch.store import keyword_tantivy
from groundsearch.store.keyword_tantivy import build_schema, compile_query
from groundsearch.store.sqlite import SQLiteStore
from groundsearch.store.text import analyze, keyword_terms
from groundsearch.types import Chunk, Item, ItemWrite, SearchFilter
from tests.hits import scores_by_chunk

VOCAB = [f"topic{i}" for i in range(50)] + ["graph", "retrieval", "ranking", "index", "nightfall"]
QUERIES = ["graph retrieval", "topic1 topic2 topic3", "ranking", "index of topic7", "nightfall graph", "topic0"]
VIEWER = SearchFilter()
EDITOR = SearchFilter(statuses=("published", "draft"))


def corpus(n: int, seed: int, tenant: str = "", drafts: bool = False, prefix: str = "d") -> list[ItemWrite]:
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, len(VOCAB) + 1)
    weights /= weights.sum()
    out = []
    for i in range(n):
        iid = f"{prefix}{i}"
        chunks = tuple(Chunk(id=f"{iid}#{j}", item_id=iid, position=j, heading_path=("Guide", f"part {j}"),
                             text=" ".join(rng.choice(VOCAB, size=int(rng.integers(3, 200)), p=weights)))
                       for j in range(int(rng.integers(1, 3))))
        status = "draft" if drafts and i % 4 == 0 else ("archived" if i % 9 == 5 else "published")
        item = Item(id=iid, collection="docs", title=f"note {i % 7}", text="\n".join(c.text for c in chunks),
                    tenant=tenant, status=status)
        out.append(ItemWrite(item, chunks, None))
    return out


def scores(store: SQLiteStore, query: str, f: SearchFilter) -> dict[str, float]:
    return scores_by_chunk(store, store.keyword_search(query, f, 1000).hits)


def test_a_single_tenant_without_drafts_ranks_exactly_as_one_index(tmp_path: Path) -> None:
    """One tenant, no drafts: one partition, the root — the same documents, so the same scores and order as
    the one tantivy index of every chunk every store had before partitions."""
    writes = corpus(150, seed=3)
    store = SQLiteStore.open(tmp_path / "s", dim=8)
    store.upsert(writes[:100])
    store.upsert(writes[100:])
    assert store._keyword.partitions == []
    plain = tantivy.Index(build_schema())
    w = plain.writer(heap_size=50_000_000, num_threads=1)
    key = {}
    for ww in writes:
        for c in ww.chunks:
            key[len(key)] = c.id
            doc = tantivy.Document()
            doc.add_unsigned("key", len(key) - 1)
            doc.add_text("body", " ".join(keyword_terms(ww.item.title, c.heading_path, c.text)))
            w.add_document(doc)
    w.commit()
    plain.reload()
    searcher = plain.searcher()
    for query in QUERIES:
        for f in (VIEWER, SearchFilter(statuses=("published", "archived"), include_superseded=True)):
            got = store.keyword_search(query, f, 10).hits
            hits = searcher.search(compile_query(plain.schema, analyze(query), SearchFilter(
                statuses=("published", "archived"), include_superseded=True), frozenset({"status", "superseded"})),
                1000).hits
            ids = searcher.fast_field_values("key", [a for _, a in hits])
            want = {key[k]: s for (s, _), k in zip(hits, ids)}
            got_scores = scores_by_chunk(store, got)
            assert got_scores and all(got_scores[c] == pytest.approx(want[c], rel=1e-6) for c in got_scores), query
            if f is not VIEWER:  # every chunk matches this filter: the top-10 itself must be the index's
                best = sorted(want.items(), key=lambda kv: -kv[1])[:10]
                assert sorted(got_scores.values(), reverse=True) == pytest.approx([s for _, s in best], rel=1e-6)
    store.close()


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory):
    """Two tenants with drafts in one store, and each tenant's chunks alone in a store of its own."""
    a, b = corpus(120, seed=1, tenant="ta", drafts=True, prefix="a"), corpus(60, seed=2, tenant="tb", drafts=True,
                                                                             prefix="b")
    both = SQLiteStore.open(tmp_path_factory.mktemp("both"), dim=8)
    both.upsert(a[:70] + b[:30])
    both.upsert(a[70:] + b[30:])
    alone = {}
    for tenant, writes in (("ta", a), ("tb", b)):
        alone[tenant] = SQLiteStore.open(tmp_path_factory.mktemp(tenant), dim=8)
        alone[tenant].upsert(writes)
    yield both, alone
    for s in (both, *alone.values()):
        s.close()


@pytest.mark.parametrize("tenant", ["ta", "tb"])
def test_a_tenants_scores_equal_a_store_holding_only_its_chunks(shared, tenant: str) -> None:
    """Another tenant's chunks — published or drafts — change none of my scores: a viewer's, or an editor's who
    asks for drafts. Fails on a single shared index (main before session 7)."""
    both, alone = shared
    for query in QUERIES:
        for f in (VIEWER, EDITOR, SearchFilter(statuses=("archived",), tenant=tenant)):
            scoped = SearchFilter(statuses=f.statuses, tenant=tenant)
            ours, theirs = scores(both, query, scoped), scores(alone[tenant], query, scoped)
            assert ours.keys() == theirs.keys(), (query, f.statuses)
            assert all(ours[c] == pytest.approx(theirs[c], rel=1e-6) for c in ours), (query, f.statuses)


def test_a_viewers_scores_equal_a_store_without_the_drafts(shared, tmp_path: Path) -> None:
    """A viewer's statistics hold no draft of its own tenant either."""
    both, _ = shared
    published = [w for w in corpus(60, seed=2, tenant="tb", drafts=True, prefix="b") if w.item.status != "draft"]
    store = SQLiteStore.open(tmp_path / "pub", dim=8)
    store.upsert(published)
    for query in QUERIES:
        f = SearchFilter(tenant="tb")
        ours, theirs = scores(both, query, f), scores(store, query, f)
        assert ours.keys() == theirs.keys() and all(ours[c] == pytest.approx(theirs[c], rel=1e-6) for c in ours)
    store.close()


def test_a_crash_between_partition_commits_heals_to_what_a_rebuild_holds(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The writer dies after one partition committed and before the others (and before the seq was saved):
    at the next open the batch is applied again. Each chunk is then in exactly one partition — its own — every
    caller's results equal those of an index rebuilt from SQLite, and so do the statistics of the live
    documents of every partition (documents and each term's document count). tantivy also counts deleted but
    not yet merged documents in its BM25 statistics, so scores themselves match a rebuild only after merges
    (docs/security.md)."""
    path = tmp_path / "s"
    store = SQLiteStore.open(path, dim=8)
    store.upsert(corpus(30, seed=5, tenant="ta", drafts=True, prefix="a") + corpus(30, seed=6, prefix="r"))
    real, opened = keyword_tantivy._open_writer, []

    def dies_on_the_second_partition(index: tantivy.Index, where: Path) -> tantivy.IndexWriter:
        opened.append(where)
        if len(opened) == 2:
            raise RuntimeError("killed")
        return real(index, where)

    monkeypatch.setattr(keyword_tantivy, "_open_writer", dies_on_the_second_partition)
    # drafts published and published items turned back into drafts (each moves partition), plus a new tenant
    moved = [ItemWrite(dataclasses.replace(w.item, status="published" if w.item.status == "draft" else "draft",
                                           content_hash="v2"), w.chunks, None)
             for w in corpus(30, seed=5, tenant="ta", drafts=True, prefix="a")[:12]]
    moved += corpus(8, seed=7, tenant="tb", drafts=True, prefix="b")
    with pytest.raises(RuntimeError, match="killed"):
        store.upsert(moved)
    assert len(opened) == 2  # one partition committed, then the "crash"
    store._keyword._writer = None  # the process died: no orderly close (the lock goes with it)
    store._conn.close()
    monkeypatch.setattr(keyword_tantivy, "_open_writer", real)
    healed = SQLiteStore.open(path, dim=8)
    got = {(q, f): set(scores(healed, q, f)) for q in QUERIES for f in _callers()}
    live = _live_statistics(healed)
    assert healed._keyword.num_docs == healed._conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    healed.close()
    shutil.rmtree(path / "keyword")
    rebuilt = SQLiteStore.open(path, dim=8)
    assert live == _live_statistics(rebuilt)
    assert len(live) == 5  # the root, and public and draft for ta and for tb
    for (q, f), ours in got.items():
        assert ours == set(scores(rebuilt, q, f)), (q, f)
    rebuilt.close()


def _live_statistics(store: SQLiteStore) -> dict[str, tuple[int, dict[str, int]]]:
    """Per partition, its live documents and each vocabulary term's live document count."""
    kw = store._keyword
    out = {}
    for name in ["", *kw.partitions]:
        searcher = (kw._index if name == "" else kw._parts[name]).searcher()
        df = {t: searcher.search(tantivy.Query.term_query(kw.schema, "body", t), 1, count=True).count
              for t in analyze(" ".join(VOCAB))}
        out[name] = (searcher.num_docs, df)
    return out


def _callers() -> list[SearchFilter]:
    return [SearchFilter(tenant="ta"), SearchFilter(tenant="ta", statuses=("published", "draft")),
            SearchFilter(tenant="tb", statuses=("published", "draft")), SearchFilter(tenant=""), SearchFilter(),
            SearchFilter(statuses=("published", "draft", "archived"), include_superseded=True)]
