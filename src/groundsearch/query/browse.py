"""Browse without a query: order the items a filter admits and page them with an opaque cursor. Pure.

The order is total — every sort ends with the item id — so ties never reorder between pages, and the cursor
is the sort key of the last item shown: the next page is every item strictly after it. The cursor also
carries the day quality was judged on, so a page turned after midnight continues the same order instead of
skipping or repeating items whose review fell due overnight.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..errors import InvalidInput
from .quality import quality_score, review_fields

__all__ = ["BrowsePage", "BrowseSort", "RELEVANCE_HALF_LIFE_DAYS", "browse_page", "decode_cursor", "encode_cursor",
           "sort_key"]

BrowseSort = Literal["date", "quality", "relevance"]
SORTS: tuple[BrowseSort, ...] = ("date", "quality", "relevance")
# Without a query "relevance" is what a curator most likely wants first: good and recent. Quality halves for
# each year of age; undated items count as a year old (neither favoured nor buried).
RELEVANCE_HALF_LIFE_DAYS = 365
_UNDATED = -1  # sorts after every real ordinal when negated

Row = tuple[str, "dt.date | None", "str | None", "str | None"]


@dataclass(frozen=True, slots=True)
class BrowsePage:
    item_ids: tuple[str, ...]
    next_cursor: str | None
    total: int
    today: dt.date


def _quality(row: Row, today: dt.date) -> float:
    due, status = review_fields({"next_review_date": row[2], "review_status": row[3]})
    return quality_score(due, status, today)


def sort_key(row: Row, sort: BrowseSort, today: dt.date) -> tuple[Any, ...]:
    """Ascending key: newest first for ``date``, best first for ``quality`` (then newest), ``relevance`` as above."""
    item_id, day = row[0], row[1]
    newest = -(day.toordinal() if day else _UNDATED)
    if sort == "date":
        return (newest, item_id)
    score = _quality(row, today)
    if sort == "quality":
        return (-score, newest, item_id)
    age = (today - day).days if day else RELEVANCE_HALF_LIFE_DAYS
    return (-round(score * 0.5 ** (max(0, age) / RELEVANCE_HALF_LIFE_DAYS), 9), newest, item_id)


def encode_cursor(sort: BrowseSort, today: dt.date, key: tuple[Any, ...]) -> str:
    raw = json.dumps([sort, today.isoformat(), list(key)], separators=(",", ":"), ensure_ascii=False)
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_cursor(cursor: str, sort: BrowseSort) -> tuple[dt.date, tuple[Any, ...]]:
    """The day and last key a cursor carries; ``InvalidInput`` for a cursor this sort did not issue."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        got_sort, day, key = json.loads(raw)
        today = dt.date.fromisoformat(day)
        if got_sort != sort or not isinstance(key, list) or not key or not isinstance(key[-1], str):
            raise ValueError(got_sort)
        return today, tuple(key)
    except (ValueError, TypeError, binascii.Error, UnicodeDecodeError, RecursionError) as exc:
        # RecursionError: a forged cursor nesting arrays past the parser's depth limit
        raise InvalidInput(f"cursor is not one this browse (sort={sort}) issued; start again without a cursor",
                           details={"field": "cursor"}) from exc


def browse_page(rows: Sequence[Row], sort: BrowseSort, limit: int, *, today: dt.date,
                cursor: str | None = None) -> BrowsePage:
    """One page of ``rows`` (from ``Store.browse_rows``) in ``sort`` order, after ``cursor``."""
    if sort not in SORTS:
        raise InvalidInput(f"sort {sort!r} must be one of {list(SORTS)}", details={"field": "sort"})
    after = None
    if cursor:
        today, after = decode_cursor(cursor, sort)
    keyed = sorted((sort_key(r, sort, today), r[0]) for r in rows)
    if after is not None:
        keyed = [kr for kr in keyed if _after(kr[0], after)]
    shown = keyed[:limit]
    more = len(keyed) > limit
    nxt = encode_cursor(sort, today, shown[-1][0]) if more and shown else None
    return BrowsePage(tuple(i for _, i in shown), nxt, len(rows), today)


def _after(key: tuple[Any, ...], last: tuple[Any, ...]) -> bool:
    try:
        return key > last
    except TypeError:
        raise InvalidInput("cursor does not fit this sort; start again without a cursor",
                           details={"field": "cursor"}) from None

