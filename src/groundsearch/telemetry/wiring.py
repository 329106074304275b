"""Which telemetry store an engine records into: the Postgres database, or a file beside the SQLite store."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

from ..settings import Settings
from ..store.telemetry_base import TelemetryStore
from .otel import OtelExport
from .recorder import Recorder
from .report import Report, build_report

__all__ = ["open_telemetry", "parse_when", "period_report", "telemetry_recorder"]

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}


def open_telemetry(settings: Settings, store_dir: Path | None = None) -> TelemetryStore:
    if settings.database_url:
        from ..store.pg_telemetry import PgTelemetry

        return PgTelemetry.open(settings.database_url)
    from ..store.sqlite_telemetry import FILE_NAME, SQLiteTelemetry

    return SQLiteTelemetry.open((store_dir or settings.data_dir / "store") / FILE_NAME)


def telemetry_recorder(settings: Settings, store: object, telemetry: TelemetryStore | None) -> Recorder | None:
    """The engine's recorder (``None`` when telemetry is off); the store opens on the first record."""
    # A read-only store is being inspected or evaluated (shared eval caches), not serving users.
    if not settings.telemetry.enabled or getattr(store, "read_only", False):
        return None
    if telemetry is not None:
        return Recorder(settings, lambda: telemetry, otel=OtelExport())
    # The embedded store's own directory, when it says where it lives; else the configured one.
    store_dir = getattr(store, "data_dir", None)
    return Recorder(settings, lambda: open_telemetry(settings, store_dir), otel=OtelExport())


def parse_when(text: str, now: dt.datetime) -> dt.datetime:
    """``30m`` / ``24h`` / ``7d`` / ``2w`` before ``now``, or an ISO date or datetime (UTC unless it says)."""
    from ..errors import InvalidInput

    m = re.fullmatch(r"\s*(\d+)\s*([smhdw])\s*", text)
    if m:
        return now - dt.timedelta(seconds=int(m.group(1)) * _UNITS[m.group(2)])
    try:
        when = dt.datetime.fromisoformat(text.strip())
    except ValueError:
        raise InvalidInput(f"--since/--until {text!r} is neither a duration like 24h / 7d nor an ISO date",
                           details={"field": "since", "value": text}) from None
    return when if when.tzinfo else when.replace(tzinfo=dt.UTC)


def period_report(settings: Settings, since: dt.datetime, until: dt.datetime, *,
                  tenant: str | None = None, store: Any = None) -> Report:
    """The report over ``[since, until)`` from this deployment's telemetry store (``store``: an open one)."""
    opened = store or open_telemetry(settings)
    try:
        return build_report(opened.requests(since, until, tenant), opened.shadows(since, until), since=since,
                            until=until, config=settings.telemetry)
    finally:
        if store is None:
            opened.close()
