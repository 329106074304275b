"""Typed field values from raw JSON / CSV / front-matter values. Pure; raises ``ValueError`` with a reason.

The caller (a loader) turns the reason into an :class:`~groundsearch.errors.IngestError` naming file and row.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from typing import Any

from ..types import STATUSES, FieldSpec, FieldValue, Status

__all__ = ["coerce", "parse_date", "parse_status", "parse_url"]

_DAY = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[T ][0-9:.+\-Z]*)?$")
_MONTH = re.compile(r"^(\d{4})-(\d{2})$")
_INT = re.compile(r"^[+-]?\d+$")


def parse_date(raw: Any) -> dt.date:
    """ISO ``YYYY-MM-DD`` (a trailing time is allowed and dropped) or ``YYYY-MM`` (→ the 1st of the month)."""
    if isinstance(raw, dt.datetime):
        return raw.date()
    if isinstance(raw, dt.date):
        return raw
    text = str(raw).strip()
    day, month = _DAY.match(text), _MONTH.match(text)
    try:
        if day:
            return dt.date(int(day.group(1)), int(day.group(2)), int(day.group(3)))
        if month:
            return dt.date(int(month.group(1)), int(month.group(2)), 1)
    except ValueError as exc:
        raise ValueError(f"bad date {text!r}: {exc}") from exc
    raise ValueError(f"bad date {text!r}: expected YYYY-MM-DD or YYYY-MM")


def parse_url(raw: Any) -> str:
    text = str(raw).strip()
    if not re.match(r"^https?://[^\s/]+", text, re.IGNORECASE) or any(c.isspace() for c in text):
        raise ValueError(f"bad url {text!r}: expected an http(s):// address without spaces")
    return text


def parse_status(raw: Any) -> Status:
    text = str(raw).strip().lower()
    if text not in STATUSES:
        raise ValueError(f"bad status {raw!r}: expected one of {', '.join(STATUSES)}")
    return text  # type: ignore[return-value]


def _as_list(raw: Any) -> tuple[str, ...]:
    if isinstance(raw, (list, tuple)):
        items = raw
    elif isinstance(raw, str):
        text = raw.strip()
        if text.startswith("["):
            try:
                parsed = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ValueError(f"bad list {text[:60]!r}: looks like a JSON array but is not one ({exc.msg})") from exc
            if not isinstance(parsed, list):
                raise ValueError(f"bad list {text[:60]!r}")
            items = parsed
        else:
            # CSV cells carry lists as "a; b; c" because commas already separate the columns.
            items = text.split(";")
    else:
        raise ValueError(f"bad list {raw!r}: expected an array or a ';'-separated string")
    out = []
    for item in items:
        if isinstance(item, (dict, list)):
            raise ValueError(f"bad list item {item!r}: expected plain values")
        value = str(item).strip()
        if value:
            out.append(value)
    return tuple(out)


def coerce(spec: FieldSpec, raw: Any) -> FieldValue:
    """``raw`` as ``spec.type``; ``None`` for missing or blank values."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    kind = spec.type
    if kind == "list":
        return _as_list(raw) or None
    if isinstance(raw, (dict, list)):
        raise ValueError(f"field {spec.name!r} is {kind} but got a {type(raw).__name__}")
    if kind == "date":
        return parse_date(raw)
    if kind == "url":
        return parse_url(raw)
    if kind == "int":
        if isinstance(raw, bool):
            raise ValueError(f"field {spec.name!r} is int but got a boolean")
        if isinstance(raw, float):
            if not raw.is_integer():
                raise ValueError(f"field {spec.name!r} is int but got {raw!r}")
            return int(raw)
        text = str(raw).strip().replace("_", "")
        if not _INT.match(text):
            raise ValueError(f"field {spec.name!r} is int but got {raw!r}")
        return int(text)
    if kind == "float":
        if isinstance(raw, bool):
            raise ValueError(f"field {spec.name!r} is float but got a boolean")
        try:
            value = float(str(raw).strip()) if not isinstance(raw, (int, float)) else float(raw)
        except ValueError as exc:
            raise ValueError(f"field {spec.name!r} is float but got {raw!r}") from exc
        if not math.isfinite(value):
            raise ValueError(f"field {spec.name!r} is float but got {raw!r}")
        return value
    return str(raw).strip()
