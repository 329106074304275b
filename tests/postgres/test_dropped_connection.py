"""A connection dropped in the middle of an upsert never leaves a partial item behind."""

from __future__ import annotations

import multiprocessing as mp
import threading
import time

import psycopg
from psycopg import conninfo

from .helpers import integrity_problems
from .workers import DIM, slow_upsert

N_ITEMS = 800  # big enough that its COPYs run for a noticeable while (HNSW inserts dominate)


def _terminate_when_copying(admin_dsn: str, app: str, timeout: float = 60.0) -> bool:
    """Wait until the tagged connection is running a COPY inside the upsert, then kill its backend."""
    deadline = time.monotonic() + timeout
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        while time.monotonic() < deadline:
            row = conn.execute(
                "SELECT pid FROM pg_stat_activity WHERE application_name = %s AND state = 'active'"
                " AND query LIKE 'COPY%%'", (app,)
            ).fetchone()
            if row:
                return bool(conn.execute("SELECT pg_terminate_backend(%s)", (row[0],)).fetchone()[0])
            time.sleep(0.005)
    return False


def test_killed_writer_leaves_nothing(postgres_database) -> None:
    """The writer process dies with its connection mid-COPY: the database holds none of the batch."""
    from groundsearch.store.postgres import PostgresStore

    dsn = postgres_database()
    PostgresStore.open(dsn, dim=DIM).close()
    victim = conninfo.make_conninfo(dsn, application_name="gs-victim-proc")
    proc = mp.get_context("spawn").Process(target=slow_upsert, args=(victim, N_ITEMS))
    proc.start()
    try:
        deadline = time.monotonic() + 120
        found = False
        with psycopg.connect(dsn, autocommit=True) as conn:
            while time.monotonic() < deadline and not found:
                row = conn.execute("SELECT pid FROM pg_stat_activity WHERE application_name = 'gs-victim-proc'"
                                   " AND state = 'active' AND query LIKE 'COPY%%'").fetchone()
                if row:
                    proc.kill()  # the client dies first, then its server side: no retry can happen
                    conn.execute("SELECT pg_terminate_backend(%s)", (row[0],))
                    found = True
                time.sleep(0.005)
        assert found, "the upsert never reached its COPY phase"
    finally:
        proc.join(timeout=30)
    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT count(*) FROM items").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM chunks").fetchone()[0] == 0
    assert integrity_problems(dsn) == []


def test_terminated_backend_is_retried_to_a_whole_batch(postgres_database) -> None:
    """In-process: the backend is terminated mid-upsert; the store retries the transaction and the
    batch lands whole (never half)."""
    from groundsearch.store.postgres import PostgresStore

    dsn = postgres_database()
    PostgresStore.open(dsn, dim=DIM).close()
    victim = conninfo.make_conninfo(dsn, application_name="gs-victim-thread")
    killed: list[bool] = []
    killer = threading.Thread(target=lambda: killed.append(_terminate_when_copying(dsn, "gs-victim-thread")))
    killer.start()
    slow_upsert(victim, N_ITEMS)
    killer.join()
    assert killed == [True]
    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT count(*) FROM items").fetchone()[0] == N_ITEMS
        assert conn.execute("SELECT count(*) FROM chunks").fetchone()[0] == N_ITEMS * 4
    assert integrity_problems(dsn) == []
