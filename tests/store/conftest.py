"""Backends the Store contract suite runs against. Each yields a factory of fresh, empty stores.

A backend joins the suite by adding a branch to ``_open``; the tests themselves never change.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from groundsearch.store.base import Store

# "postgres" answers keyword queries from its per-worker local index, "postgres-sql" inside Postgres
BACKENDS = ["sqlite", "postgres", "postgres-sql"]


@dataclass
class Backend:
    name: str
    make: Callable[..., Store]  # make(dim=32) -> fresh empty store
    reopen: Callable[[Store], Store]  # close and open the same store again


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    opened: list[Store] = []

    if request.param == "sqlite":
        from groundsearch.store.sqlite import SQLiteStore

        counter = iter(range(10_000))
        locations: dict[int, tuple[Path, int]] = {}

        def make(dim: int = 32) -> Store:
            path = tmp_path / f"store{next(counter)}"
            store = SQLiteStore.open(path, dim=dim)
            locations[id(store)] = (path, dim)
            opened.append(store)
            return store

        def reopen(store: Store) -> Store:
            path, dim = locations[id(store)]
            store.close()
            again = SQLiteStore.open(path, dim=dim)
            locations[id(again)] = (path, dim)
            opened.append(again)
            return again

    elif request.param in ("postgres", "postgres-sql"):
        leg = "local" if request.param == "postgres" else "sql"
        dsn_factory = request.getfixturevalue("postgres_database")  # tests/conftest.py
        from groundsearch.store.postgres import PostgresStore

        dsns: dict[int, tuple[str, int]] = {}

        def make(dim: int = 32) -> Store:
            dsn = dsn_factory()
            store = PostgresStore.open(dsn, dim=dim, keyword_leg=leg)
            dsns[id(store)] = (dsn, dim)
            opened.append(store)
            return store

        def reopen(store: Store) -> Store:
            dsn, dim = dsns[id(store)]
            store.close()
            again = PostgresStore.open(dsn, dim=dim, keyword_leg=leg)
            dsns[id(again)] = (dsn, dim)
            opened.append(again)
            return again

    else:  # pragma: no cover
        raise AssertionError(request.param)

    yield Backend(request.param, make, reopen)
    for store in opened:
        try:
            store.close()
        except Exception:
            pass


@pytest.fixture
def store(backend: Backend) -> Store:
    return backend.make()


def postgres_wanted() -> bool:
    return os.environ.get("GROUNDSEARCH_SKIP_POSTGRES") != "1"
