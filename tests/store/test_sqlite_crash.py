"""Crash consistency of the embedded store: a real writer process killed with SIGKILL mid-ingest.

After every kill the store must open and answer consistently: every item in SQLite (the truth) is found
by keyword and by vector search, no hit refers to a missing item, and counts agree.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from groundsearch.errors import StoreError
from groundsearch.store.keyword_tantivy import KeywordIndex
from groundsearch.store.sqlite import SQLiteStore
from groundsearch.types import Chunk, Item, ItemWrite, SearchFilter
from tests.hits import chunk_ids, item_ids

DIM = 16
ANY = SearchFilter(statuses=("draft", "published", "archived"), include_superseded=True)

# The writer: batches of items (2 chunks each, every 3rd without vectors), replacing and deleting
# earlier ones as it goes, printing the batch number after each commit. It never stops on its own.
WRITER = r"""
import sys, numpy as np
from pathlib import Path
from groundsearch.store.sqlite import SQLiteStore
from groundsearch.types import Chunk, Item, ItemWrite
path, start, exact_max = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
store = SQLiteStore.open(path, dim=16, exact_vector_max=exact_max)
rng = np.random.default_rng(start)
batch = start
while True:
    writes = []
    for j in range(60):
        n = batch * 60 + j
        iid = f"it{n % 700}"  # ids repeat, so later batches replace earlier items
        texts = [f"common alpha{n % 700} body {batch}", f"common second part {j}"]
        v = rng.standard_normal((2, 16)).astype(np.float32)
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        chunks = tuple(Chunk(f"{iid}#{k}", iid, k, t, entities=("common", f"e{j % 5}")) for k, t in enumerate(texts))
        writes.append(ItemWrite(Item(id=iid, collection="docs", title=f"T {iid}", text=" ".join(texts),
                                     content_hash=str(n)), chunks, None if n % 3 == 0 else v))
    store.upsert(writes)
    if batch % 4 == 3:
        store.delete([f"it{(batch * 37 + k) % 700}" for k in range(15)])
    print(batch, flush=True)
    batch += 1
"""


def _kill_writer_after(path: Path, batches: int, start: int, delay: float, exact_max: int) -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(start), str(exact_max)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    try:
        seen = 0
        deadline = time.monotonic() + 120
        while seen < batches:
            line = proc.stdout.readline()  # type: ignore[union-attr]
            if not line:
                raise AssertionError(f"writer died early: {proc.stderr.read()}")  # type: ignore[union-attr]
            seen += 1
            assert time.monotonic() < deadline, "writer too slow"
        time.sleep(delay)  # lands inside a later batch's SQLite or index commit
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL


def _truth(path: Path) -> tuple[set[str], set[str], set[str]]:
    """(item ids, chunk ids, chunk ids with vectors) straight from the SQLite file."""
    with sqlite3.connect(path / "store.sqlite3") as conn:
        items = {r[0] for r in conn.execute("SELECT id FROM items")}
        chunks = {r[0] for r in conn.execute("SELECT id FROM chunks")}
        with_vectors = {r[0] for r in conn.execute("SELECT id FROM chunks WHERE vector IS NOT NULL")}
    return items, chunks, with_vectors


def _assert_consistent(store: SQLiteStore, path: Path) -> None:
    items, chunks, with_vectors = _truth(path)
    assert items, "the writer committed nothing"
    kw = store.keyword_search("common", ANY, 10_000)
    assert set(chunk_ids(store, kw.hits)) == chunks
    assert set(item_ids(store, kw.hits)) == items
    vec = store.vector_search(np.ones(DIM, dtype=np.float32) / 4, ANY, 10_000)
    assert set(chunk_ids(store, vec.hits)) == with_vectors
    for item_id in sorted(items)[:25]:  # each item is found by its own word
        assert set(item_ids(store, store.keyword_search(f"alpha{item_id[2:]}", ANY, 10).hits)) == {item_id}
    assert store.count() == len(items) and store.count_chunks() == len(chunks)
    assert store._keyword.applied_seq == store._vectors.applied_seq == store._derived.max_seq()
    weights = {frozenset((e.source, e.target)): e.weight for e in store.entity_edges(["common"], ANY, 100)}
    assert sum(weights.values()) == len(chunks)  # every chunk pairs "common" with exactly one e<j>


@pytest.mark.parametrize("exact_max", [200_000, 300], ids=["exact", "hnsw"])
def test_sigkill_mid_ingest_leaves_a_consistent_store(tmp_path: Path, exact_max: int) -> None:
    path = tmp_path / "crash"
    start = 0
    for batches, delay in ((2, 0.05), (3, 0.3), (1, 0.0), (4, 0.15)):
        _kill_writer_after(path, batches, start, delay, exact_max)
        start += batches + 1
        store = SQLiteStore.open(path, dim=DIM, exact_vector_max=exact_max)
        try:
            _assert_consistent(store, path)
        finally:
            store.close()


def test_index_failure_after_commit_is_repaired_on_open(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s"
    store = SQLiteStore.open(path, dim=DIM)
    v = np.eye(DIM, dtype=np.float32)[:1]
    store.upsert([ItemWrite(Item(id="a", collection="docs", title="A", text="first"), (Chunk("a#0", "a", 0, "first"),), v)])

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(KeywordIndex, "apply", broken)
    with pytest.raises(OSError):
        store.upsert([ItemWrite(Item(id="b", collection="docs", title="B", text="second"), (Chunk("b#0", "b", 0, "second"),), v)])
    monkeypatch.undo()
    assert store.get("b") is not None  # the truth committed; only the derived index is behind
    store.close()
    store = SQLiteStore.open(path, dim=DIM)
    try:
        assert item_ids(store, store.keyword_search("second", SearchFilter(), 5).hits) == ["b"]
        _assert_keyword_matches_truth(store, path)
    finally:
        store.close()


def test_lost_keyword_index_is_rebuilt_from_sqlite(tmp_path: Path) -> None:
    path = tmp_path / "s"
    store = SQLiteStore.open(path, dim=DIM)
    store.upsert([ItemWrite(Item(id=f"x{i}", collection="docs", title="X", text=f"word{i} common"),
                            (Chunk(f"x{i}#0", f"x{i}", 0, f"word{i} common"),), None) for i in range(30)])
    store.close()
    for child in (path / "keyword").iterdir():
        child.unlink()
    store = SQLiteStore.open(path, dim=DIM)
    try:
        _assert_keyword_matches_truth(store, path)
    finally:
        store.close()


def _assert_keyword_matches_truth(store: SQLiteStore, path: Path) -> None:
    _, chunks, _ = _truth(path)
    hits = store.keyword_search("common first second", ANY, 1000).hits
    assert set(chunk_ids(store, hits)) == chunks


def test_second_writer_is_refused_with_a_clear_error(tmp_path: Path) -> None:
    store = SQLiteStore.open(tmp_path / "s", dim=DIM)
    try:
        with pytest.raises(StoreError, match="only one writer"):
            SQLiteStore.open(tmp_path / "s", dim=DIM)
        code = ("import sys; from pathlib import Path; from groundsearch.store.sqlite import SQLiteStore\n"
                "from groundsearch.errors import StoreError\n"
                "try:\n SQLiteStore.open(Path(sys.argv[1]), dim=16)\nexcept StoreError as e:\n print('refused', e)")
        out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "s")], capture_output=True, text=True,
                             timeout=60)
        assert out.stdout.startswith("refused") and "only one writer" in out.stdout, out.stderr
    finally:
        store.close()
    SQLiteStore.open(tmp_path / "s", dim=DIM).close()  # the lock is released on close


READER = r"""
import sys, time, numpy as np
from pathlib import Path
from groundsearch.store.sqlite import SQLiteStore
from groundsearch.types import SearchFilter
def item_ids(store, hits):
    views = store.hydrate([key for key, _ in hits])
    return [views[key].item.id for key, _ in hits if key in views]
store = SQLiteStore.open(Path(sys.argv[1]), dim=16, read_only=True)
print("ready", store.count(), flush=True)
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    kw = item_ids(store, store.keyword_search("latecomer", SearchFilter(), 5).hits)
    vec = item_ids(store, store.vector_search(np.eye(16, dtype=np.float32)[3], SearchFilter(), 1).hits)
    if kw == ["late"] and vec == ["late"] and store.get("late") is not None:
        print("seen", flush=True)
        break
    time.sleep(0.05)
"""


def test_reader_process_sees_the_writers_commits(tmp_path: Path) -> None:
    path = tmp_path / "s"
    store = SQLiteStore.open(path, dim=DIM)
    try:
        v = np.eye(DIM, dtype=np.float32)
        store.upsert([ItemWrite(Item(id="early", collection="docs", title="E", text="early bird"),
                                (Chunk("early#0", "early", 0, "early bird"),), v[:1])])
        reader = subprocess.Popen([sys.executable, "-c", READER, str(path)], stdout=subprocess.PIPE, text=True)
        assert reader.stdout.readline().split() == ["ready", "1"]  # type: ignore[union-attr]
        store.upsert([ItemWrite(Item(id="late", collection="docs", title="L", text="latecomer"),
                                (Chunk("late#0", "late", 0, "latecomer"),), v[3:4])])
        out, _ = reader.communicate(timeout=90)
        assert out.strip() == "seen"
    finally:
        store.close()
