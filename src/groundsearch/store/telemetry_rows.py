"""Row codecs shared by both telemetry backends: a ``RequestRecord`` to and from column values."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from ..telemetry.record import RequestRecord

__all__ = ["REQUEST_COLUMNS", "record_from_row", "record_row"]

REQUEST_COLUMNS = ("id", "tenant", "created_at", "surface", "status", "query_hash", "query_terms", "query_text",
                   "query_chars", "tier", "confidence", "format", "domains", "complexity", "cache_hit", "model",
                   "prompt_version", "latency_ms", "total_ms", "degraded", "prompt_tokens", "completion_tokens",
                   "cost_usd", "usage", "result_ids")
_JSON = {"query_terms", "domains", "latency_ms", "degraded", "usage", "result_ids"}


def record_row(rec: RequestRecord, *, epoch: bool) -> tuple[Any, ...]:
    """Column values in ``REQUEST_COLUMNS`` order; ``epoch``: timestamps as UTC seconds (SQLite)."""
    values = []
    for name in REQUEST_COLUMNS:
        value = getattr(rec, name)
        if name in _JSON:
            value = json.dumps(list(value) if isinstance(value, tuple) else dict(value))
        elif name == "created_at" and epoch:
            value = value.timestamp()
        elif name == "cache_hit" and epoch:
            value = int(value)
        values.append(value)
    return tuple(values)


def record_from_row(row: Any) -> RequestRecord:
    data = dict(zip(REQUEST_COLUMNS, row))
    for name in _JSON:
        value = data[name]
        value = json.loads(value) if isinstance(value, str) else value
        data[name] = tuple(value) if isinstance(value, list) else dict(value or {})
    created = data["created_at"]
    if not isinstance(created, dt.datetime):
        created = dt.datetime.fromtimestamp(float(created), dt.UTC)
    data["created_at"] = created
    data["cache_hit"] = bool(data["cache_hit"])
    return RequestRecord(**data)
