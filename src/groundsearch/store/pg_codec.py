"""Pure codecs between groundsearch values and what Postgres columns can hold.

Postgres ``text`` cannot contain NUL (U+0000), while Python strings (and the contract suite's random
titles) can. :func:`encode_text` maps every string to a NUL-free one and :func:`decode_text` inverts it
exactly. The escape is a private-use code point, so ordinary text is stored unchanged and stays
readable and searchable with LIKE; only strings containing NUL or the escape itself change.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping
from typing import Any

from ..types import FieldValue

__all__ = ["decode_fields", "decode_text", "encode_fields", "encode_text", "field_rows"]

_ESC = "\ue000"  # private-use: never produced by real text sources, so escaping is almost always a no-op
_ESC_ESC = _ESC + "e"
_ESC_NUL = _ESC + "0"


def encode_text(value: str) -> str:
    if _ESC not in value and "\x00" not in value:
        return value
    return value.replace(_ESC, _ESC_ESC).replace("\x00", _ESC_NUL)


def decode_text(value: str) -> str:
    if _ESC not in value:
        return value
    out: list[str] = []
    i = 0
    while i < len(value):
        ch = value[i]
        if ch == _ESC and i + 1 < len(value):
            out.append("\x00" if value[i + 1] == "0" else _ESC)
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def encode_text_or_none(value: str | None) -> str | None:
    return None if value is None else encode_text(value)


def decode_text_or_none(value: str | None) -> str | None:
    return None if value is None else decode_text(value)


def _encode_value(value: FieldValue) -> Any:
    if isinstance(value, dt.date):
        return {"date": value.isoformat()}
    if isinstance(value, (tuple, list)):
        return {"list": [str(v) for v in value]}
    return value


def _decode_value(value: Any) -> FieldValue:
    if isinstance(value, dict):
        if "date" in value:
            return dt.date.fromisoformat(value["date"])
        return tuple(value["list"])
    return value


def encode_fields(fields: Mapping[str, FieldValue]) -> str:
    """JSON that round-trips every ``FieldValue`` type (dates and tuples are tagged, plain JSON cannot)."""
    return encode_text(json.dumps({k: _encode_value(v) for k, v in fields.items()}, ensure_ascii=False))


def decode_fields(raw: str) -> dict[str, FieldValue]:
    return {k: _decode_value(v) for k, v in json.loads(decode_text(raw)).items()}


def normalize_field_value(value: object) -> str:
    """The comparable form of a field value: filters match case-insensitively on this."""
    if isinstance(value, dt.date):
        return value.isoformat()
    return encode_text(str(value).casefold())


def field_rows(item_id: str, fields: Mapping[str, FieldValue]) -> list[tuple[str, str, str]]:
    """``(item_id, name, normalised value)`` rows for the item_fields table; lists give one row per element."""
    rows: set[tuple[str, str, str]] = set()
    for name, value in fields.items():
        if value is None:
            continue
        values = value if isinstance(value, (tuple, list)) else (value,)
        for v in values:
            rows.add((encode_text(item_id), encode_text(name), normalize_field_value(v)))
    return sorted(rows)
