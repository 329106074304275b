"""Curation reads on the embedded store: dated entity mentions (trending) and the light item list (browse).

Both return only what the filter admits (tenant, status, review parts alike), compiled by ``item_filter_sql``.
"""

from __future__ import annotations

import datetime as dt
import sqlite3

from ..types import SearchFilter
from .sqlite_schema import date_from_ordinal, item_filter_sql

__all__ = ["browse_rows", "dated_mentions"]


def dated_mentions(conn: sqlite3.Connection, f: SearchFilter) -> list[tuple[str, str, dt.date]]:
    """``(entity, item id, item date)`` once per entity and dated item mentioning it."""
    where, params = item_filter_sql(f)
    rows = conn.execute(
        "SELECT DISTINCT m.entity, i.id, i.date_ord FROM items i JOIN mentions m ON m.item_rowid = i.rowid "
        f"WHERE i.date_ord IS NOT NULL AND {where} ORDER BY m.entity, i.id", params,
    ).fetchall()
    return [(e, i, date_from_ordinal(d)) for e, i, d in rows]  # type: ignore[misc]


def browse_rows(conn: sqlite3.Connection, f: SearchFilter) -> list[tuple[str, dt.date | None, str | None, str | None]]:
    """``(item id, date, next_review_date, review_status)`` of every admitted item, by id; review values as
    stored (casefolded text) for the caller to parse."""
    where, params = item_filter_sql(f)
    rows = conn.execute(
        "SELECT i.id, i.date_ord, "
        "(SELECT min(value) FROM item_fields WHERE item_rowid = i.rowid AND name = 'next_review_date'), "
        "(SELECT min(value) FROM item_fields WHERE item_rowid = i.rowid AND name = 'review_status') "
        f"FROM items i WHERE {where} ORDER BY i.id", params,
    ).fetchall()
    return [(i, date_from_ordinal(d), r, s) for i, d, r, s in rows]
