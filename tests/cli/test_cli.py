"""The CLI through its real entry point (a subprocess running the installed ``groundsearch`` script).

These tests use the hash embedder (``GROUNDSEARCH_EMBEDDER=hash``) because they check the CLI's logic,
exit codes and messages, not model quality.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

CONFIG = """
data_dir = "data"
embedder = "hash"

[collections.docs]
kind = "documents"

[collections.releases]
kind = "records"
id_field = "id"
title = "{product} {version}"
text_fields = ["summary"]
date_field = "date"

[collections.releases.fields]
id = "keyword"
product = "keyword"
version = "keyword"
summary = "text"
date = "date"
"""


# the console script pip installed for `[project.scripts] groundsearch`, beside this interpreter
ENTRY = str(Path(sys.executable).with_name("groundsearch"))


# A liveness bound for one CLI run, not a speed check: a run is a fresh interpreter that loads the models and
# does real work, which a machine shared by many jobs can stretch tenfold; pytest's 600 s per test is the ceiling.
RUN_S = 540


def gs(tmp: Path, *args: str, timeout: float = RUN_S) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GROUNDSEARCH_CONFIG": str(tmp / "groundsearch.toml")}
    env.pop("GROUNDSEARCH_DATA_DIR", None)
    return subprocess.run(
        [ENTRY, *args],
        capture_output=True, text=True, env=env, cwd=tmp, timeout=timeout,
    )


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    (tmp_path / "groundsearch.toml").write_text(CONFIG)
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "tantivy.md").write_text("# Keyword engines\n\n## Tantivy\n\nTantivy uses block-max WAND for BM25.\n")
    (notes / "vectors.md").write_text("# Vector search\n\nHNSW graphs answer approximate nearest neighbour queries.\n")
    (notes / "plain.txt").write_text("A plain text note about reciprocal rank fusion.\n")
    (tmp_path / "releases.jsonl").write_text(
        json.dumps({"id": "r1", "product": "Acme", "version": "1.0", "summary": "first acme release",
                    "date": "2025-01-10"}) + "\n"
        + json.dumps({"id": "r2", "product": "Beta", "version": "2.0", "summary": "beta release with graphs",
                      "date": "2025-06-01"}) + "\n"
    )
    return tmp_path


def ingest_json(kb: Path, *args: str) -> dict:
    result = gs(kb, "ingest", *args, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def search_json(kb: Path, *args: str) -> dict:
    result = gs(kb, "search", *args, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_ingest_is_idempotent_and_incremental(kb: Path) -> None:
    first = ingest_json(kb, "notes")
    assert (first["added"], first["errors"]) == (3, [])
    again = ingest_json(kb, "notes")
    assert (again["added"], again["updated"], again["unchanged"], again["chunks_written"]) == (0, 0, 3, 0)
    (kb / "notes" / "plain.txt").write_text("A rewritten note about late interaction models.\n")
    changed = ingest_json(kb, "notes")
    assert (changed["updated"], changed["unchanged"]) == (1, 2)
    assert search_json(kb, "reciprocal fusion", "--profile", "keyword")["results"] == []
    hits = search_json(kb, "late interaction")["results"]
    assert hits and hits[0]["title"]


def test_prune_removes_a_deleted_file_only_when_asked(kb: Path) -> None:
    ingest_json(kb, "notes")
    (kb / "notes" / "vectors.md").unlink()
    assert ingest_json(kb, "notes")["deleted"] == 0
    assert search_json(kb, "HNSW graphs", "--profile", "keyword")["results"]
    assert ingest_json(kb, "notes", "--prune")["deleted"] == 1
    assert search_json(kb, "HNSW graphs", "--profile", "keyword")["results"] == []


def test_search_json_and_explain(kb: Path) -> None:
    ingest_json(kb, "notes")
    ingest_json(kb, "releases.jsonl", "--collection", "releases")
    body = search_json(kb, "block-max WAND tantivy", "--limit", "2")
    top = body["results"][0]
    assert "Tantivy" in top["snippet"] and top["heading_path"] == ["Keyword engines", "Tantivy"]
    assert set(top["legs"]) == {"keyword", "vector"}
    assert body["diagnostics"]["plan"]["profile"] == "rrf"
    explained = gs(kb, "search", "tantivy", "--explain")
    assert explained.returncode == 0
    assert "plan" in explained.stdout and "keyword #1" in explained.stdout
    filtered = search_json(kb, "release", "-c", "releases", "-f", "product=acme")
    assert [r["item_id"] for r in filtered["results"]] == [body_id(filtered, "r1")]
    dated = search_json(kb, "release", "-f", "date_from=2025-05", "--profile", "keyword")
    assert {r["fields"]["product"] for r in dated["results"]} == {"Beta"}


def body_id(body: dict, record_id: str) -> str:
    ids = [r["item_id"] for r in body["results"] if r["fields"].get("id") == record_id]
    assert ids, body
    return ids[0]


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (("search", ""), 2, "query is empty"),
        (("search", "   "), 2, "query is empty"),
        (("search", "x" * 2001), 2, "limit is 2000"),
        (("search", "x", "-c", "nope"), 2, "unknown collection 'nope'"),
        (("search", "x", "-f", "colour=red"), 2, "unknown filter field 'colour'"),
        (("search", "x", "-f", "date_from=someday"), 2, "not a date"),
        (("search", "x", "-f", "noequals"), 2, "FIELD=VALUE"),
        (("delete", "no-such-id"), 3, "no item with id"),
        (("ingest", "notes", "-c", "nope"), 2, "unknown collection"),
    ],
)
def test_bad_input_gets_a_clear_error(kb: Path, args: tuple[str, ...], code: int, message: str) -> None:
    result = gs(kb, *args)
    assert result.returncode == code, (result.stdout, result.stderr)
    assert message in " ".join(result.stderr.split())
    assert "Traceback" not in result.stderr


def test_operator_and_wildcard_text_is_searched_as_words(kb: Path) -> None:
    ingest_json(kb, "notes")
    for query in ('tantivy AND NOT "hnsw', "title:tantivy*", "NEAR(tantivy wand)", "%_\\'; DROP TABLE items"):
        result = gs(kb, "search", query, "--json")
        assert result.returncode == 0, result.stderr
    assert search_json(kb, "NEAR(tantivy wand)", "--profile", "keyword")["results"][0]["title"]
    assert json.loads(gs(kb, "ingest", "notes", "--json").stdout)["unchanged"] == 3  # nothing lost


def test_malformed_records_are_reported_and_nothing_of_them_is_written(kb: Path) -> None:
    bad = kb / "bad.jsonl"
    bad.write_text('{"id": "ok1", "product": "Fine", "version": "1", "summary": "fine row", "date": "2025-01-01"}\n{not json\n')
    result = gs(kb, "ingest", "bad.jsonl", "-c", "releases")
    assert result.returncode == 1
    assert "bad.jsonl" in result.stderr and "line 2" in result.stderr
    assert search_json(kb, "fine row", "-c", "releases", "--profile", "keyword")["results"] == []


def test_delete_removes_the_item(kb: Path) -> None:
    ingest_json(kb, "notes")
    hit = search_json(kb, "tantivy", "--profile", "keyword")["results"][0]
    assert gs(kb, "delete", hit["item_id"]).returncode == 0
    assert all(r["item_id"] != hit["item_id"] for r in search_json(kb, "tantivy")["results"])


def test_killed_ingest_leaves_a_consistent_index(kb: Path) -> None:
    """SIGKILL a real ingest mid-way; the index must open, agree with the source of truth, and resume."""
    corpus = kb / "many"
    corpus.mkdir()
    n = 600
    for i in range(n):
        (corpus / f"note{i:04d}.md").write_text(f"# Note {i}\n\nuniqueword{i} appears only here. " + "filler " * 40)
    env = {**os.environ, "GROUNDSEARCH_CONFIG": str(kb / "groundsearch.toml")}
    proc = subprocess.Popen([ENTRY, "ingest", "many", "--json"],
                            cwd=kb, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    from groundsearch.engine import Engine
    from groundsearch.settings import load_settings

    settings = load_settings(kb / "groundsearch.toml", env={})
    db = settings.data_dir / "store" / "store.sqlite3"
    deadline, written = time.monotonic() + RUN_S, 0
    while proc.poll() is None and written < 50:  # wait until some, not all, files are in
        assert time.monotonic() < deadline, f"ingest wrote {written} items in {RUN_S} s (a liveness bound)"
        time.sleep(0.2)
        if db.exists():
            try:
                with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as conn:
                    written = conn.execute("SELECT count(*) FROM items").fetchone()[0]
            except sqlite3.OperationalError:
                continue  # schema still being created
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL, "ingest finished before it could be killed; make the corpus larger"

    with Engine.open(settings) as engine:
        stored = engine.store.count()
        # text is written in groups of files and then embedded: the kill lands in either phase
        assert 0 < stored <= n
        from groundsearch.types import SearchRequest

        for i in range(n):
            hits = engine.search(SearchRequest(query=f"uniqueword{i}", limit=3, profile="keyword")).results
            present = engine.store.get_many([h.item_id for h in hits])
            assert len(present) == len(hits)  # no hit refers to a missing item
            stored -= bool(hits)
        assert stored == 0  # every stored item is findable
    resumed = json.loads(gs(kb, "ingest", "many", "--json", timeout=600).stdout)
    assert resumed["errors"] == [] and resumed["added"] + resumed["unchanged"] == n
    with Engine.open(settings) as engine:
        assert engine.store.count() == n and engine.store.count_pending_vectors() == 0


def test_ask_prints_cited_sentences_and_sources(kb: Path) -> None:
    ingest_json(kb, "notes")
    result = gs(kb, "ask", "what does tantivy use for BM25?")
    assert result.returncode == 0, result.stderr
    assert "sources" in result.stdout and "[1]" in result.stdout
    body = json.loads(gs(kb, "ask", "what does tantivy use for BM25?", "--json").stdout)
    cited = {c for s in body["prose"]["sentences"] for c in s["citations"]}
    assert cited and cited <= {r["id"] for r in body["results"]}


def test_migrate_applies_once_then_reports_up_to_date(kb: Path, postgres_database) -> None:
    dsn = postgres_database()
    first = gs(kb, "migrate", "--database-url", dsn)
    assert first.returncode == 0, first.stderr
    assert "applied 0001" in first.stderr
    again = gs(kb, "migrate", "--database-url", dsn)
    assert again.returncode == 0 and "up to date" in again.stderr
    unreachable = gs(kb, "migrate", "--database-url", "postgresql://u@127.0.0.1:1/x")
    assert unreachable.returncode == 4 and "cannot reach Postgres" in unreachable.stderr  # a store problem


def test_calibrate_gate_stores_a_threshold_that_search_then_explains(kb: Path) -> None:
    ingest_json(kb, "notes")
    (kb / "own.txt").write_text("\n".join(["tantivy block-max WAND", "BM25 keyword engines", "HNSW graphs",
                                           "approximate nearest neighbour", "reciprocal rank fusion", "vector search",
                                           "keyword engines tantivy", "plain text note", "nearest neighbour queries",
                                           "fusion of ranks"]) + "\n")
    too_few = gs(kb, "calibrate-gate", "--questions", str(kb / "notes" / "plain.txt"))
    assert too_few.returncode == 2 and ">= 10 own" in too_few.stderr, too_few.stderr
    assert "calibrated on this store's data" not in gs(kb, "search", "vector search", "--json", "--explain").stdout
    done = gs(kb, "calibrate-gate", "--questions", str(kb / "own.txt"))
    assert done.returncode == 0, done.stderr
    cal = json.loads(done.stdout)
    assert cal["own_queries"] == 10 and cal["offtopic_queries"] == 40 and 0 < cal["threshold"] <= 1
    result = gs(kb, "search", "vector search", "--json", "--explain")
    assert result.returncode == 0, result.stderr
    assert f"gate threshold {cal['threshold']:g} (calibrated on this store's data" in result.stdout
