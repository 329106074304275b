"""Curation verbs over one store: trending topics and browse. Wiring only — the ranking is in
``query/trending.py`` and ``query/browse.py``, the counting in the store (docs/curation.md)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from .errors import InvalidInput
from .query.browse import BrowsePage, BrowseSort, browse_page
from .query.quality import Quality, item_quality
from .query.trending import Trending, TrendMode, trending, windows
from .store.base import Store
from .types import CollectionSpec, Item, SearchFilter

__all__ = ["BrowseResult", "DEFAULT_HORIZON_DAYS", "TREND_MODES", "browse_items", "item_source", "trending_topics"]

TREND_MODES: tuple[TrendMode, ...] = ("default", "temporal", "thematic")
# A quarter: the demo's records are dated by month, so a 30-day window would hold one month at most.
DEFAULT_HORIZON_DAYS = 90
MAX_HORIZON_DAYS = 730


def item_source(item: Item, spec: CollectionSpec | None) -> str:
    """Who published ``item``: its collection's ``source_field`` (a list's first element), else its link's host,
    else its collection — so two items of one publisher never count as two independent sources."""
    if spec is not None and spec.source_field:
        value = item.fields.get(spec.source_field)
        if isinstance(value, tuple):
            value = value[0] if value else None
        if value not in (None, ""):
            return f"{spec.source_field}:{str(value).casefold()}"
    host = urlsplit(item.url).hostname if item.url else None
    return f"host:{host}" if host else f"collection:{item.collection}"


def trending_topics(store: Store, specs: Sequence[CollectionSpec], f: SearchFilter, *, mode: str = "default",
                    horizon_days: int = DEFAULT_HORIZON_DAYS, as_of: dt.date | None = None, limit: int = 10,
                    today: dt.date | None = None) -> Trending:
    """Trending over the items ``f`` admits. ``as_of`` (the window's last day) defaults to the newest dated item,
    capped at today: a store whose newest record is from October has no trend "this week", and saying so by
    showing the window actually used is more useful than an empty list."""
    if mode not in TREND_MODES:
        raise InvalidInput(f"mode {mode!r} must be one of {list(TREND_MODES)}", details={"field": "mode"})
    if not 1 <= horizon_days <= MAX_HORIZON_DAYS:
        raise InvalidInput(f"horizon_days {horizon_days} must be from 1 to {MAX_HORIZON_DAYS}",
                           details={"field": "horizon_days", "min": 1, "max": MAX_HORIZON_DAYS})
    rows = store.dated_mentions(f)
    today = today or dt.date.today()
    if as_of is None:
        as_of = min(today, max((d for _, _, d in rows), default=today))
    by_name = {s.name: s for s in specs}
    window, _ = windows(as_of, horizon_days)
    # sources only for the window's items: the baseline's never reach a tier
    items = store.get_many(sorted({i for _, i, d in rows if window.holds(d)}))
    sources = {i: item_source(it, by_name.get(it.collection)) for i, it in items.items()}
    return trending(rows, sources, as_of=as_of, horizon_days=horizon_days, mode=mode,  # type: ignore[arg-type]
                    limit=limit)


@dataclass(frozen=True, slots=True)
class BrowseResult:
    page: BrowsePage
    items: tuple[tuple[Item, Quality], ...]


def browse_items(store: Store, f: SearchFilter, *, sort: BrowseSort = "date", limit: int = 20,
                 cursor: str | None = None, today: dt.date | None = None) -> BrowseResult:
    page = browse_page(store.browse_rows(f), sort, limit, today=today or dt.date.today(), cursor=cursor)
    found = store.get_many(page.item_ids)
    shown = tuple((found[i], item_quality(found[i], page.today)) for i in page.item_ids if i in found)
    return BrowseResult(page, shown)
