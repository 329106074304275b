"""Trending topics and browse (docs/curation.md): thin calls into ``groundsearch.curation``."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

from fastapi import Depends, Query, Request
from pydantic import BaseModel

from ...curation import DEFAULT_HORIZON_DAYS, browse_items, trending_topics
from ...presenters import snippet
from ...query.browse import BrowseSort
from ...query.filters import build_filter, parse_filter_args
from ...query.trending import TrendMode
from .auth import Principal
from .deps import api_router, requires, state
from .models import clamp

__all__ = ["router"]

router = api_router(tags=["curation"])


class WindowOut(BaseModel):
    start: dt.date
    end: dt.date


class TopicOut(BaseModel):
    topic: str
    tier: str
    items: int
    sources: int
    baseline: list[int]
    baseline_mean: float
    score: float
    item_ids: list[str]
    related: list[dict[str, Any]] = []


class TrendingOut(BaseModel):
    mode: str
    horizon_days: int
    window: WindowOut
    baseline_windows: list[WindowOut]
    items_considered: int
    statistic: str
    topics: list[TopicOut]


class QualityOut(BaseModel):
    score: float
    badge: str
    review_status: str
    next_review_date: dt.date | None
    cadence_penalty: float
    overdue_days: int


class BrowseItemOut(BaseModel):
    item_id: str
    collection: str
    title: str
    url: str | None
    date: dt.date | None
    snippet: str
    fields: dict[str, Any]
    quality: QualityOut


class BrowseOut(BaseModel):
    sort: str
    total: int
    items: list[BrowseItemOut]
    next_cursor: str | None
    as_of: dt.date
    collections: list[str]  # every configured collection, for a client's filter controls


def _collections(values: list[str] | None) -> tuple[str, ...]:
    """``collections=a,b`` or repeated ``collections=a&collections=b``."""
    return tuple(c.strip() for v in values or () for c in v.split(",") if c.strip())


Collections = Annotated[list[str] | None, Query(description="restrict to collections (comma-separated or repeated)")]


@router.get("/trending", response_model=TrendingOut)
def get_trending(
    request: Request,
    mode: TrendMode = "default",
    collections: Collections = None,
    horizon_days: Annotated[int, Query(ge=1, le=730, description="window length in days")] = DEFAULT_HORIZON_DAYS,
    as_of: Annotated[dt.date | None, Query(description="last day of the window (default: newest dated item)")] = None,
    limit: Annotated[int, Query(description="clamped to 1–50")] = 10,
    who: Principal = Depends(requires("viewer", "search")),
) -> TrendingOut:
    """Topics whose mentions rise in the latest `horizon_days` against their own baseline (the 4 windows of the
    same length before it), with the counts and windows that prove it and a VERIFIED / EMERGING / SPECULATIVE tier
    from the evidence. `mode=temporal` ranks by momentum over the previous window; `mode=thematic` by volume in
    the window, with related topics."""
    engine = state(request).engine
    f = build_filter(engine.settings.collections, collections=_collections(collections), tenant=who.tenant)
    result = trending_topics(engine.store, engine.settings.collections, f, mode=mode, horizon_days=horizon_days,
                             as_of=as_of, limit=clamp(limit, 1, 50))
    return TrendingOut(
        mode=result.mode, horizon_days=horizon_days,
        window=WindowOut(start=result.window.start, end=result.window.end),
        baseline_windows=[WindowOut(start=w.start, end=w.end) for w in result.baseline_windows],
        items_considered=result.items_considered,
        statistic="score = (items − baseline_mean) / sqrt(baseline_mean + 1); items counts distinct dated items "
                  "mentioning the topic in the window",
        topics=[TopicOut(topic=t.topic, tier=t.tier, items=t.items, sources=t.sources, baseline=list(t.baseline),
                         baseline_mean=t.baseline_mean, score=t.score, item_ids=list(t.item_ids),
                         related=[{"topic": o, "items": n} for o, n in t.related]) for t in result.topics],
    )


@router.get("/browse", response_model=BrowseOut)
def get_browse(
    request: Request,
    collections: Collections = None,
    sort: BrowseSort = "date",
    cursor: Annotated[str | None, Query(max_length=2000, description="`next_cursor` of the previous page")] = None,
    limit: Annotated[int, Query(description="clamped to 1–100")] = 20,
    filter: Annotated[list[str] | None, Query(description="FIELD=VALUE (repeatable), as in search filters")] = None,
    review_status: Annotated[list[str] | None, Query(description="verified / unverified / flagged")] = None,
    overdue_review: Annotated[str | None, Query(description="'true': next review before today")] = None,
    review_due_within_days: Annotated[str | None, Query(description="1–365: next review on or before then")] = None,
    freshness: Annotated[str | None, Query(description="fresh (≤ 90 days) / aging (91–365) / stale (older)")] = None,
    who: Principal = Depends(requires("viewer", "search")),
) -> BrowseOut:
    """Items without a query: filters only, sorted by `date` (newest first), `quality` (best first) or `relevance`
    (quality halving per year of age), paged by an opaque cursor that is stable under ties."""
    engine = state(request).engine
    filters: dict[str, list[str]] = parse_filter_args(filter or [])
    for name, value in (("review_status", review_status), ("overdue_review", overdue_review),
                        ("review_due_within_days", review_due_within_days), ("freshness", freshness)):
        if value:
            filters[name] = value if isinstance(value, list) else [value]
    f = build_filter(engine.settings.collections, collections=_collections(collections), filters=filters,
                     tenant=who.tenant)
    result = browse_items(engine.store, f, sort=sort, limit=clamp(limit, 1, 100), cursor=cursor)
    return BrowseOut(
        sort=sort, total=result.page.total, next_cursor=result.page.next_cursor, as_of=result.page.today,
        collections=[c.name for c in engine.settings.collections],
        items=[BrowseItemOut(
            item_id=item.id, collection=item.collection, title=item.title, url=item.url, date=item.date,
            snippet=snippet(item.text), fields=_plain(item.fields),
            quality=QualityOut(score=q.score, badge=q.badge, review_status=q.review_status,
                               next_review_date=q.next_review_date, cadence_penalty=q.cadence_penalty,
                               overdue_days=q.overdue_days),
        ) for item, q in result.items],
    )


def _plain(fields: Any) -> dict[str, Any]:
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in fields.items()}
