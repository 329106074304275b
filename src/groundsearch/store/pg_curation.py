"""Curation reads on Postgres, the same answers as ``sqlite_curation``: dated entity mentions (trending) and
the light item list (browse), restricted by the compiled filter."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from ..types import SearchFilter
from .pg_codec import decode_text as dec
from .pg_filters import compile_filter

__all__ = ["browse_rows", "dated_mentions"]

Fetch = Callable[[str, dict[str, Any]], list[tuple[Any, ...]]]


def dated_mentions(fetch: Fetch, f: SearchFilter) -> list[tuple[str, str, dt.date]]:
    where = compile_filter(f)
    rows = fetch(
        "SELECT DISTINCT m.entity, i.id, i.item_date FROM items i JOIN chunks c ON c.item_id = i.id "
        f"JOIN mentions m ON m.chunk_pk = c.pk WHERE i.item_date IS NOT NULL AND {where.sql} "
        "ORDER BY m.entity, i.id", where.params,
    )
    return [(dec(e), dec(i), d) for e, i, d in rows]


def browse_rows(fetch: Fetch, f: SearchFilter) -> list[tuple[str, dt.date | None, str | None, str | None]]:
    where = compile_filter(f)
    rows = fetch(
        "SELECT i.id, i.item_date, "
        "(SELECT min(v.value) FROM item_fields v WHERE v.item_id = i.id AND v.name = 'next_review_date'), "
        "(SELECT min(v.value) FROM item_fields v WHERE v.item_id = i.id AND v.name = 'review_status') "
        f"FROM items i WHERE {where.sql} ORDER BY i.id COLLATE \"C\"", where.params,
    )
    return [(dec(i), d, r, s) for i, d, r, s in rows]
