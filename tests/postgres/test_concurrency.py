"""4 writer and 4 reader processes on one database for a bounded time: nothing lost, duplicated or half-seen."""

from __future__ import annotations

import multiprocessing as mp
import os

import psycopg

from .helpers import integrity_problems
from .workers import SHARED_IDS, reader, writer

SECONDS = float(os.environ.get("GROUNDSEARCH_PG_SOAK_SECONDS", "30"))


def test_four_writers_four_readers(postgres_database) -> None:
    from groundsearch.store.postgres import PostgresStore

    dsn = postgres_database()
    PostgresStore.open(dsn, dim=32).close()  # migrate once up front; the workers' opens then only check
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    procs = [ctx.Process(target=writer, args=(dsn, i, SECONDS, out)) for i in range(4)]
    procs += [ctx.Process(target=reader, args=(dsn, i, SECONDS, out)) for i in range(4)]
    for p in procs:
        p.start()
    reports = [out.get(timeout=SECONDS + 120) for _ in procs]
    for p in procs:
        p.join(timeout=30)
        assert p.exitcode == 0

    errors = [e for r in reports for e in r["errors"]]
    assert errors == []
    writers = [r for r in reports if r["role"] == "writer"]
    readers = [r for r in reports if r["role"] == "reader"]
    # every worker ran at least MIN_ROUNDS by construction; a count bar here only measured the machine's speed

    expected = {item_id: n for r in writers for item_id, n in r["expected"].items()}
    with psycopg.connect(dsn) as conn:
        rows = conn.execute("SELECT c.item_id, count(*) FROM chunks c GROUP BY c.item_id").fetchall()
        item_ids = [r[0] for r in conn.execute("SELECT id FROM items")]
    stored = dict(rows)
    assert len(item_ids) == len(set(item_ids))
    own = {i: n for i, n in stored.items() if not i.startswith("shared-")}
    assert own == expected  # nothing lost, nothing extra, every replacement's chunk count as last written
    assert set(item_ids) - set(own) <= {f"shared-{k}" for k in range(SHARED_IDS)}
    assert integrity_problems(dsn) == []
    print(f"\nsoak {SECONDS:.0f}s: {sum(r['batches'] for r in writers)} write batches, "
          f"{sum(r['reads'] for r in readers)} read rounds, {len(item_ids)} items at the end")
