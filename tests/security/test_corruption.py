"""Damaged derived indexes (issue 9, item 6): the CLI and the real server must answer as before the damage,
or say they are degraded and rebuild — never crash, hang or return different hits.

SQLite is the truth; the tantivy keyword index (``keyword/``) and the HNSW graph (``vectors/``) are derived.
Each case copies one pristine store, damages one file (truncate / zero ranges / flip bytes at several
offsets) and searches through a subprocess — usearch given random bytes can SIGSEGV, and a subprocess is
the only way to see that as a failed test instead of a dead test run. ``exact_vector_max`` is set low so
the vector leg really goes through the saved HNSW graph; the corpus is small enough (≤ the graph's
candidate floor) that an intact graph returns exactly the exact answer, so "same hits" is well defined.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from .conftest import stop

ENTRY = str(Path(sys.executable).with_name("groundsearch"))
EXACT_MAX = 10  # far below the corpus: the vector leg goes through the HNSW graph
QUERIES = ("kelp lagoon marble", "alpha bravo charlie delta")
WORDS = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa "
         "quebec romeo sierra tango uniform victor whiskey xray yankee zulu amber basalt cobalt dune ember fjord "
         "granite harbor ivory jasper kelp lagoon marble nectar opal prism quartz raven slate topaz").split()
CONFIG = 'data_dir = "data"\nembedder = "hash"\n\n[collections.docs]\nkind = "documents"\n'


def env_for(kb: Path) -> dict[str, str]:
    env = {**os.environ, "GROUNDSEARCH_CONFIG": str(kb / "groundsearch.toml"),
           "GROUNDSEARCH_EXACT_VECTOR_MAX": str(EXACT_MAX), "RUST_BACKTRACE": "0", "OMP_NUM_THREADS": "1"}
    env.pop("GROUNDSEARCH_DATA_DIR", None)
    return env


def gs(kb: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ENTRY, *args], capture_output=True, text=True, env=env_for(kb), cwd=kb, timeout=timeout)


def hits_of(response: dict) -> list[tuple[str, float]]:
    return [(r["id"], round(r["score"], 5)) for r in response["results"]]


def cli_search(kb: Path, query: str, *extra: str) -> tuple[subprocess.CompletedProcess[str], dict | None]:
    proc = gs(kb, "search", query, "--json", "--limit", "10", *extra)
    assert proc.returncode >= 0, f"killed by signal {-proc.returncode}: {proc.stderr[-2000:]}"
    return proc, (json.loads(proc.stdout) if proc.returncode == 0 else None)


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    kb = tmp_path_factory.mktemp("pristine")
    (kb / "groundsearch.toml").write_text(CONFIG)
    notes = kb / "notes"
    notes.mkdir()
    rng = random.Random(7)
    for i in range(22):  # 22 notes x (title + 3 sections) ≈ 88 chunks: under the graph's 100-candidate floor
        sections = [f"## Section {s} of note {i}\n\n" + " ".join(rng.choice(WORDS) for _ in range(50)) + ".\n"
                    for s in range(3)]
        (notes / f"n{i:03}.md").write_text(f"# Note {i} {rng.choice(WORDS)}\n\n" + "\n".join(sections))
    proc = gs(kb, "ingest", "notes", "--json")
    assert proc.returncode == 0, proc.stderr
    assert (kb / "data/store/vectors/hnsw.usearch").is_file(), "the corpus must be above exact_vector_max"
    return kb


@pytest.fixture(scope="module")
def baseline(pristine: Path) -> dict[str, dict[str, list[tuple[str, float]]]]:
    out: dict[str, dict[str, list[tuple[str, float]]]] = {}
    for profile in ("rrf", "keyword", "vector"):
        for q in QUERIES:
            proc, body = cli_search(pristine, q, "--profile", profile)
            assert proc.returncode == 0, proc.stderr
            assert body is not None and body["results"], f"{profile} {q!r} finds nothing"
            out.setdefault(profile, {})[q] = hits_of(body)
    return out


# ------------------------------------------------------------------------------------------------ damage


def truncate(path: Path, rng: random.Random) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def zero(path: Path, rng: random.Random) -> None:
    data = bytearray(path.read_bytes())
    n = len(data)
    for start in (0, n // 3, (2 * n) // 3, max(0, n - 64)):  # header, body and footer
        data[start : start + 64] = bytes(len(data[start : start + 64]))
    _rewrite(path, bytes(data))


def flip(path: Path, rng: random.Random) -> None:
    data = bytearray(path.read_bytes())
    n = len(data)
    offsets = {0, n // 2, n - 1} | {rng.randrange(n) for _ in range(5)}
    for off in offsets:
        data[off] ^= rng.randrange(1, 256)
    _rewrite(path, bytes(data))


def _rewrite(path: Path, data: bytes) -> None:
    """Overwrite in place (same inode), the way a bad disk or a stray writer damages a file."""
    with open(path, "r+b") as f:
        f.write(data)


DAMAGES: dict[str, Callable[[Path, random.Random], None]] = {"truncate": truncate, "zero": zero, "flip": flip}


def largest(store: Path, pattern: str) -> Path:
    found = sorted(store.glob(pattern), key=lambda p: (p.stat().st_size, p.name))
    assert found, f"no {pattern} in {store}"
    return found[-1]


SEGMENT_PARTS = ("idx", "term", "pos", "fast", "fieldnorm", "store")
TARGETS: dict[str, Callable[[Path], Path]] = {
    **{f"keyword.{ext}": (lambda store, ext=ext: largest(store / "keyword", f"*.{ext}")) for ext in SEGMENT_PARTS},
    "keyword/meta.json": lambda store: store / "keyword" / "meta.json",
    "keyword/applied.json": lambda store: store / "keyword" / "applied.json",
    "vectors/hnsw.usearch": lambda store: store / "vectors" / "hnsw.usearch",
    "vectors/applied.json": lambda store: store / "vectors" / "applied.json",
}
# Files whose damage must be detected and reported: every byte of them is under a checksum, or (the graph's
# applied.json) each damage here leaves it unparseable. Damage to keyword/applied.json only moves the seq the
# index replays the change log from, which is idempotent: correct hits are all that can be asked.
REPORTED = {f"keyword.{ext}" for ext in SEGMENT_PARTS} | {"vectors/hnsw.usearch", "vectors/applied.json"}


def damaged_copy(pristine: Path, tmp: Path, target: str, damage: str) -> tuple[Path, Path]:
    kb = tmp / "kb"
    shutil.copytree(pristine, kb)
    victim = TARGETS[target](kb / "data" / "store")
    DAMAGES[damage](victim, random.Random(f"{target}/{damage}"))
    return kb, victim


def assert_same_or_stated(body: dict, baseline: dict, query: str, where: str) -> None:
    """Same hits as before the damage; or a ``degraded`` note naming the index and the surviving leg's hits."""
    hits = hits_of(body)
    if hits == baseline["rrf"][query]:
        return
    notes = " ".join(body["diagnostics"]["degraded"])
    if "keyword index" in notes:
        assert [h for h, _ in hits] == [h for h, _ in baseline["vector"][query]], f"{where}: vector-only hits differ"
    elif "vector index" in notes:
        assert [h for h, _ in hits] == [h for h, _ in baseline["keyword"][query]], f"{where}: keyword-only hits differ"
    else:
        pytest.fail(f"{where}: different hits with no degraded note\nbefore {baseline['rrf'][query]}\nafter  {hits}")


# ------------------------------------------------------------------------------------------------ CLI


@pytest.mark.parametrize("damage", list(DAMAGES))
@pytest.mark.parametrize("target", list(TARGETS))
def test_cli_search_survives_damage(pristine: Path, baseline: dict, tmp_path: Path, target: str, damage: str) -> None:
    kb, victim = damaged_copy(pristine, tmp_path, target, damage)
    first_stderr = ""
    for q in QUERIES:
        proc, body = cli_search(kb, q)
        assert proc.returncode == 0, f"{target} {damage}: exit {proc.returncode}\n{proc.stderr[-3000:]}"
        assert body is not None
        assert_same_or_stated(body, baseline, q, f"{target} {damage}")
        first_stderr = first_stderr or proc.stderr
    if target in REPORTED:
        assert re.search(r"rebuil", first_stderr), f"{target} {damage}: the rebuild was not reported:\n{first_stderr}"
    # The rebuild is persisted: the next process finds a sound index and reports nothing.
    proc, body = cli_search(kb, QUERIES[0])
    assert proc.returncode == 0 and body is not None
    assert "rebuil" not in proc.stderr, proc.stderr
    assert hits_of(body) == baseline["rrf"][QUERIES[0]]


def test_cli_damaged_database_exits_4(pristine: Path, tmp_path: Path) -> None:
    """SQLite is the truth, so there is nothing to rebuild from: a clear message and the documented exit 4."""
    kb = tmp_path / "kb"
    shutil.copytree(pristine, kb)
    db = kb / "data" / "store" / "store.sqlite3"
    data = bytearray(db.read_bytes())
    data[0:100] = bytes(100)  # the header: "file is not a database"
    db.write_bytes(bytes(data))
    proc = gs(kb, "search", QUERIES[0], "--json")
    assert proc.returncode == 4, (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr
    assert "database" in proc.stderr


# ------------------------------------------------------------------------------------------------ server


@contextmanager
def server(kb: Path) -> Iterator[str]:
    proc = subprocess.Popen([ENTRY, "serve", "--host", "127.0.0.1", "--port", "0"], cwd=kb, env=env_for(kb),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # blocks until the engine is open and the port bound (or the process died)
        match = re.search(r"http://[\d.]+:\d+", line)
        assert match, f"server did not start (exit {proc.poll()}): {line!r} {proc.stderr.read()[-3000:] if proc.stderr else ''}"
        yield match.group(0)
        assert proc.poll() is None, f"the server died (exit {proc.returncode}): {proc.stderr.read()[-3000:]}"
    finally:
        stop(proc)


def sse_events(client: httpx.Client, query: str) -> list[tuple[str, dict]]:
    events: list[tuple[str, dict]] = []
    with client.stream("POST", "/api/search?stream=true", json={"query": query, "limit": 10}) as r:
        assert r.status_code == 200, r.read()
        name = None
        for line in r.iter_lines():
            if line.startswith("event:"):
                name = line.split(":", 1)[1].strip()
            elif line.startswith("data:") and name is not None:
                events.append((name, json.loads(line.split(":", 1)[1])))
                name = None
    return events


def search_json(client: httpx.Client, query: str) -> dict:
    r = client.post("/api/search", json={"query": query, "limit": 10})
    assert r.headers["content-type"].startswith("application/json"), (r.status_code, r.text[:500])
    assert r.status_code == 200, r.text
    return r.json()


@pytest.mark.parametrize("target", ["keyword.idx", "keyword.term", "keyword.fast", "keyword.fieldnorm",
                                    "keyword/meta.json", "vectors/hnsw.usearch"])
def test_server_search_survives_damage(pristine: Path, baseline: dict, tmp_path: Path, target: str) -> None:
    kb, _ = damaged_copy(pristine, tmp_path, target, "flip")
    with server(kb) as url, httpx.Client(base_url=url, timeout=60) as client:
        health = client.get("/api/search/health").json()
        index = "vectors" if target.startswith("vectors") else "keyword"
        assert health["indexes"][index]["state"] in ("rebuilt", "rebuilding"), health
        assert health["indexes"][index]["detail"], health
        for q in QUERIES:
            assert_same_or_stated(search_json(client, q), baseline, q, f"server {target}")
            events = sse_events(client, q)
            assert events and events[-1][0] == "complete", events[-3:]
            assert "error" not in [name for name, _ in events], events


def test_server_damage_while_running(pristine: Path, baseline: dict, tmp_path: Path) -> None:
    """Postings damaged under a running server (tantivy reads them through mmap): the search that trips
    over it answers from the vector leg and says so, health reports the rebuild, and once it is done the
    answers are the same as before the damage."""
    kb = tmp_path / "kb"
    shutil.copytree(pristine, kb)
    with server(kb) as url, httpx.Client(base_url=url, timeout=60) as client:
        assert hits_of(search_json(client, QUERIES[0])) == baseline["rrf"][QUERIES[0]]
        assert client.get("/api/search/health").json()["status"] == "ok"
        for victim in (kb / "data" / "store" / "keyword").glob("*.idx"):  # all postings but the footers
            data = victim.read_bytes()
            _rewrite(victim, bytes(len(data) - 100) + data[-100:])
        body = search_json(client, QUERIES[1])
        assert_same_or_stated(body, baseline, QUERIES[1], "runtime damage")
        events = sse_events(client, QUERIES[0])
        assert events and events[-1][0] == "complete", events[-3:]
        deadline = time.monotonic() + 60
        while True:
            health = client.get("/api/search/health").json()
            if health["indexes"]["keyword"]["state"] == "rebuilt":
                break
            assert health["status"] == "degraded", health
            assert time.monotonic() < deadline, f"no rebuild within 60 s: {health}"
            time.sleep(0.2)
        assert health["indexes"]["keyword"]["detail"], health
        for q in QUERIES:
            assert hits_of(search_json(client, q)) == baseline["rrf"][q]
