"""Load test of two API workers sharing one Postgres database and one Redis, on loopback, bounded in time.

Run it (the demo corpus is embedded into a fresh database first: about 2–4 minutes on a busy 2-core machine,
printed as ``setup``; the timed phases then take ``2 × --seconds`` + 20 s)::

    OMP_NUM_THREADS=1 .venv/bin/python -m tests.api.load_cluster --clients 16 --seconds 30

It starts everything itself: the suite's embedded Postgres (``store/pg_embedded.py``, fsync off), Debian's
``redis-server``, and two ``groundsearch serve`` processes with ``GROUNDSEARCH_DATABASE_URL`` and
``GROUNDSEARCH_REDIS_URL`` pointing at them, so rate limits and link-health caches are counted in Redis and
every row lives once, in the database. Phases, in one run so the ratios compare:

1. ``engine``     — ``Engine.search`` on the same database in this process, one caller (the work itself);
2. ``http-1``     — one HTTP client against worker A;
3. ``1w-N``       — ``--clients`` clients against worker A alone for ``--seconds``;
4. ``2w-N``       — the same clients spread over both workers (client i → worker i mod 2) for ``--seconds``.

The search limit is raised out of the way (10M/min), so any non-200 answer is an error and is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import asdict
from pathlib import Path

import httpx

from .load import DEMO_CONFIG, QUERIES, ROOT, PhaseReport, print_table, run_direct, run_http
from .test_redis_limits import redis_server

GROUNDSEARCH = Path(sys.executable).parent / "groundsearch"


def write_config(tmp: Path) -> Path:
    demo = "\n".join(line for line in DEMO_CONFIG.read_text().splitlines() if not line.startswith("data_dir"))
    cfg = tmp / "cluster.toml"
    cfg.write_text(f'data_dir = "{tmp / "data"}"\n\n[api]\nsearch_per_minute = 10000000\n\n{demo}\n', encoding="utf-8")
    return cfg


def ingest_demo(cfg: Path, dsn: str) -> float:
    from groundsearch.engine import Engine
    from groundsearch.settings import load_settings

    started = time.perf_counter()
    engine = Engine.open(load_settings(cfg, env={"GROUNDSEARCH_DATABASE_URL": dsn}))
    try:
        docs = [ROOT / "README.md", ROOT / "docs"]
        for paths, collection in ((docs, "docs"), ([ROOT / "demo" / "releases.jsonl"], "releases"),
                                  ([ROOT / "demo" / "papers.jsonl"], "papers")):
            report = engine.ingest(paths, collection)
            if report.errors:
                raise RuntimeError(f"ingest of {collection} failed: {report.errors[:3]}")
    finally:
        engine.close()
    return time.perf_counter() - started


@contextmanager
def api_worker(cfg: Path, dsn: str, redis_url: str) -> Iterator[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GROUNDSEARCH_", "GROQ_"))}
    env.update(GROUNDSEARCH_DATABASE_URL=dsn, GROUNDSEARCH_REDIS_URL=redis_url)
    proc = subprocess.Popen([str(GROUNDSEARCH), "--config", str(cfg), "serve", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        if not line.startswith("groundsearch serving on"):
            raise RuntimeError(f"worker did not start: {line!r} {proc.stderr.read() if proc.stderr else ''}")
        url = line.split()[3].rstrip("/")
        for q in QUERIES:  # load models and warm the intent cache before timing, as load.py does
            httpx.post(f"{url}/api/search", json={"query": q}, timeout=180)
        yield url
    finally:
        proc.terminate()
        proc.wait(20)


def direct_phase(cfg: Path, dsn: str, seconds: float) -> PhaseReport:
    from groundsearch.engine import Engine
    from groundsearch.settings import load_settings
    from groundsearch.types import SearchRequest

    engine = Engine.open(load_settings(cfg, env={"GROUNDSEARCH_DATABASE_URL": dsn}))
    try:
        for q in QUERIES:
            engine.search(SearchRequest(query=q))
        return run_direct(lambda q: engine.search(SearchRequest(query=q)), seconds)
    finally:
        engine.close()


def run_all(*, clients: int, seconds: float, baseline_seconds: float = 10.0) -> tuple[float, list[PhaseReport], dict]:
    from groundsearch.store.pg_embedded import start_embedded_postgres

    with tempfile.TemporaryDirectory(prefix="gs-cluster-") as tmp_name, ExitStack() as stack:
        tmp = Path(tmp_name)
        pg = start_embedded_postgres()
        stack.callback(pg.stop)
        dsn = pg.dsn()
        redis_url = stack.enter_context(redis_server(tmp))
        cfg = write_config(tmp)
        setup = ingest_demo(cfg, dsn)
        reports = [direct_phase(cfg, dsn, baseline_seconds)]
        a = stack.enter_context(api_worker(cfg, dsn, redis_url))
        b = stack.enter_context(api_worker(cfg, dsn, redis_url))
        health = [httpx.get(f"{u}/api/search/health", timeout=60).json() for u in (a, b)]
        shared = {"rate_limits": [h.get("rate_limits") for h in health],
                  "vectors_pending": [h.get("vectors_pending") for h in health]}
        reports.append(run_http(a, clients=1, seconds=baseline_seconds, name="http-1"))
        reports.append(run_http(a, clients=clients, seconds=seconds, name=f"1w-{clients}"))
        reports.append(run_http([a, b], clients=clients, seconds=seconds, name=f"2w-{clients}"))
        return setup, reports, shared


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    load_before = os.getloadavg()
    setup, reports, shared = run_all(clients=args.clients, seconds=args.seconds)
    load_after = os.getloadavg()
    errors = {r.name: {s: n for s, n in r.status.items() if s != "200"} for r in reports}
    errors = {k: v for k, v in errors.items() if v}
    if args.json:
        print(json.dumps({"setup_s": round(setup, 1), "phases": [asdict(r) for r in reports], "workers": shared,
                          "errors": errors, "load_before": load_before, "load_after": load_after}, indent=2))
        return
    print(f"setup (fresh Postgres, demo corpus embedded): {setup:.1f} s; workers: {shared}")
    print_table(reports)
    one, two = reports[2], reports[3]
    print(f"two workers against one at {args.clients} clients: throughput {two.throughput_rps / one.throughput_rps:.2f}x, "
          f"p50 {two.p50_ms / one.p50_ms:.2f}x; API overhead at one client: p50 "
          f"{reports[1].p50_ms / reports[0].p50_ms:.2f}x the direct engine call")
    print(f"load average before {load_before[0]:.1f}, after {load_after[0]:.1f}")
    print("errors (any non-200):", errors or "none")
    if errors:
        sys.exit(1)


if __name__ == "__main__":
    main()
