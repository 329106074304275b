"""One embedded store, many processes — real ones: a `groundsearch serve` owns the store while the CLI
searches, ingests and embeds beside it; a `groundsearch embed` killed with SIGKILL loses nothing.

Hash embedder (``embedder = "hash"``): these check process hand-offs and crash safety, not model quality.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.test_cli import CONFIG, ENTRY, RUN_S, gs, ingest_json, kb, search_json  # noqa: F401  (kb: fixture)


def _env(kb: Path) -> dict[str, str]:
    env = {**os.environ, "GROUNDSEARCH_CONFIG": str(kb / "groundsearch.toml"), "PYTHONUNBUFFERED": "1"}
    env.pop("GROUNDSEARCH_DATA_DIR", None)
    return env


@pytest.fixture
def server(kb: Path) -> Iterator[str]:
    """A real `groundsearch serve` process on a free port, owning the data directory."""
    ingest_json(kb, "notes")
    proc = subprocess.Popen([ENTRY, "serve", "--port", "0"], cwd=kb, env=_env(kb), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        line = proc.stdout.readline()  # type: ignore[union-attr]
        assert "serving on" in line, proc.stderr.read() if proc.poll() is not None else line  # type: ignore[union-attr]
        yield line.split("serving on ", 1)[1].split()[0].rstrip("/")
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def _get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read())


def _server_finds(base: str, query: str, profile: str = "keyword") -> list[str]:
    body = _get(f"{base}/api/search?" + urllib.parse.urlencode({"q": query, "profile": profile, "limit": 5}))
    return [r["title"] for r in body["results"]]


def _eventually(check, timeout: float = 300.0):  # type: ignore[no-untyped-def]
    """``check()`` once it holds, or its last value after ``timeout``: a liveness bound far above the seconds the
    server's background indexing and embedding take, so a loaded machine makes the test slower, never red."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.2)


def test_cli_search_works_while_serve_runs(kb: Path, server: str) -> None:
    body = search_json(kb, "tantivy block-max WAND", "--limit", "3")
    assert body["results"] and body["results"][0]["title"] == "Keyword engines"
    assert _server_finds(server, "tantivy")  # the server still answers beside it


def test_cli_ingest_beside_serve_is_picked_up_by_the_server(kb: Path, server: str) -> None:
    (kb / "late.md").write_text("# Late arrival\n\nZephyrine crystals grow only under moonlight.\n")
    report = ingest_json(kb, "late.md")
    assert report["added"] == 1 and report["errors"] == []
    assert report["wrote_through_server"] is True  # the server owns the indexes: the CLI wrote the database
    # the server indexes the other process's commit without a restart, and embeds it in the background
    assert _eventually(lambda: _server_finds(server, "zephyrine")) == ["Late arrival"]
    assert _eventually(lambda: _get(f"{server}/api/search/health")["vectors_pending"] == 0)
    assert _server_finds(server, "zephyrine crystals moonlight", profile="vector")[0] == "Late arrival"
    # and a second CLI process reads what the first wrote, through the server-owned index
    assert search_json(kb, "zephyrine", "--profile", "keyword")["results"][0]["title"] == "Late arrival"
    assert gs(kb, "delete", report_id(kb, "zephyrine")).returncode == 0
    assert _eventually(lambda: not _server_finds(server, "zephyrine"))


def report_id(kb: Path, query: str) -> str:
    return search_json(kb, query, "--profile", "keyword")["results"][0]["item_id"]


def test_search_diagnostics_count_chunks_without_vectors(kb: Path) -> None:
    deferred = ingest_json(kb, "notes", "--defer")
    chunks = deferred["chunks_written"]
    assert deferred["embedded"] == 0 and deferred["vectors_pending"] == chunks > 0
    body = search_json(kb, "tantivy", "--profile", "keyword")
    assert body["results"] and body["diagnostics"]["vectors_pending"] == chunks
    assert search_json(kb, "tantivy block-max", "--profile", "vector")["results"] == []  # nothing to find yet
    done = json.loads(gs(kb, "embed", "--json").stdout)
    assert (done["embedded"], done["remaining"], done["failed"]) == (chunks, 0, [])
    assert done["sentence_chunks"] == chunks  # and every chunk's quotable sentences, for answers
    body = search_json(kb, "tantivy block-max", "--profile", "vector")
    assert body["results"] and body["diagnostics"]["vectors_pending"] == 0


def _counts(db: Path) -> tuple[int, int, int]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
        return conn.execute("SELECT (SELECT count(*) FROM items), (SELECT count(*) FROM chunks), "
                            "(SELECT count(*) FROM chunks WHERE vector IS NOT NULL)").fetchone()


def test_killed_background_embedding_loses_nothing_and_resumes(kb: Path) -> None:
    corpus = kb / "many"
    corpus.mkdir()
    n = 1500
    for i in range(n):
        (corpus / f"n{i:04d}.md").write_text(f"# Note {i}\n\nuniqueword{i} here. " + "filler words " * 30)
    deferred = ingest_json(kb, "many", "--defer")
    assert deferred["added"] == n and deferred["vectors_pending"] == n
    db = kb / "data" / "store" / "store.sqlite3"
    proc = subprocess.Popen([ENTRY, "embed", "--json"], cwd=kb, env=_env(kb),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # some vectors, not all, or the process ended first (then the assert below says so instead of waiting on)
    partial = _eventually(lambda: (0 < (c := _counts(db)[2]) < n and c) or proc.poll() is not None, timeout=RUN_S)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL and partial, "embed finished before it could be killed"
    items, chunks, with_vectors = _counts(db)
    assert (items, chunks) == (n, n) and with_vectors < n
    # every item is still keyword-searchable, and the pending count says exactly what is missing
    body = search_json(kb, "uniqueword7", "--profile", "keyword")
    assert body["results"][0]["title"] == "Note 7" and body["diagnostics"]["vectors_pending"] == n - with_vectors
    resumed = json.loads(gs(kb, "embed", "--json", timeout=600).stdout)
    assert resumed["embedded"] == n - with_vectors and resumed["remaining"] == 0
    assert _counts(db) == (n, n, n)
    assert search_json(kb, "uniqueword1234 here", "--profile", "vector")["results"][0]["title"] == "Note 1234"
