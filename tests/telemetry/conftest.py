"""Telemetry backends under one factory, as the Store contract suite does: each test runs on both."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from groundsearch.store.telemetry_base import TelemetryStore


@pytest.fixture(params=["sqlite", "postgres"])
def telemetry_backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], TelemetryStore]]:
    opened: list[TelemetryStore] = []
    if request.param == "sqlite":
        from groundsearch.store.sqlite_telemetry import SQLiteTelemetry

        def make() -> TelemetryStore:
            store = SQLiteTelemetry.open(tmp_path / f"t{len(opened)}" / "telemetry.sqlite")
            opened.append(store)
            return store
    else:
        make_db = request.getfixturevalue("postgres_database")
        from groundsearch.store.pg_telemetry import PgTelemetry

        def make() -> TelemetryStore:
            store = PgTelemetry.open(make_db())
            opened.append(store)
            return store
    yield make
    for store in opened:
        store.close()
