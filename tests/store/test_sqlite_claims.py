"""Two embedders on one data directory (``serve``'s background thread and a CLI ``embed``) split the pending
chunks: none is embedded twice, none is left out. On real SQLite files, the second store opened beside the
first as a log writer, exactly as the CLI opens it next to a running server.

Before claims on the embedded store both embedders listed the same window and both embedded it (the barrier
makes that overlap certain: each embedder's first call waits until the other has listed too).
"""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from groundsearch.ingest.embed_worker import embed_pending
from groundsearch.store.sqlite import SQLiteStore
from groundsearch.store.sqlite_claims import FileClaims
from tests.postgres.test_embed_claims import KINDS, WINDOW, RecordingEmbedder
from tests.store.test_contract import write

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="claims need OFD locks (Linux)")


def test_two_embedders_on_one_data_directory_never_embed_one_chunk_twice(tmp_path: Path) -> None:
    owner = SQLiteStore.open(tmp_path, dim=32)
    beside = SQLiteStore.open(tmp_path, dim=32, shared=True)
    try:
        assert not beside.owns_indexes  # the CLI's view of a store a server holds
        owner.upsert([write(f"d{i}", f"claimword alpha{i}", f"second part {i}", embed=False) for i in range(40)])
        total = owner.count_pending_vectors()
        assert total == 80
        barrier = threading.Barrier(2)
        embedders = [RecordingEmbedder(barrier) for _ in range(2)]
        threads = [threading.Thread(target=embed_pending, args=(s, e, KINDS), kwargs={"window": WINDOW})
                   for s, e in zip((owner, beside), embedders)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        chunks = [[t for t in e.texts if "\n" in t] for e in embedders]  # chunk texts carry a breadcrumb line
        a, b = (set(c) for c in chunks)
        assert len(chunks[0]) == len(a) and len(chunks[1]) == len(b)
        assert not a & b, f"{len(a & b)} chunks embedded by both"
        assert len(a | b) == total and owner.count_pending_vectors() == 0
        assert a and b  # both took part
    finally:
        beside.close()
        owner.close()


HOLDER = """
import sys, time
from pathlib import Path
from groundsearch.store.sqlite_claims import FileClaims
claims = FileClaims(Path(sys.argv[1]), lambda keys: keys, lambda keys, model: keys)
print(claims.acquire([1, 2, 3]), flush=True)
time.sleep(600)
"""


def test_a_claim_ends_with_the_process_that_held_it(tmp_path: Path) -> None:
    """An embedder killed mid-window must not strand its chunks."""
    path = tmp_path / "embed-claims.lock"
    child = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "[1, 2, 3]"
        mine = FileClaims(path, lambda keys: keys, lambda keys, model: keys)
        assert mine.acquire([1, 2, 3, 4]) == [4]  # the child holds 1–3
        assert mine.acquire_sentences([1, 2], "m") == [1, 2]  # sentence claims are a separate kind of work
        child.kill()
        child.wait(30)
        assert mine.acquire([1, 2, 3]) == [1, 2, 3]
        mine.release([1])
        assert FileClaims(path, lambda keys: [k for k in keys if k != 1],
                          lambda keys, model: keys).acquire([1, 2]) == []  # 1 finished, 2 still held by `mine`
        mine.close()
    finally:
        child.kill()
