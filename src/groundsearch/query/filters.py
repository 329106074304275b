"""User input → validated ``SearchFilter`` and query text. Pure; every error names the offending part.

User-supplied values are carried as *data* all the way to the store, which binds them as parameters
or exact terms; nothing here escapes or quotes, because nothing downstream ever parses them.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from collections.abc import Mapping, Sequence

from ..errors import InvalidFilter, InvalidQuery, UnknownCollection
from ..types import (
    MAX_QUERY_CHARS, REVIEW_STATUSES, CollectionSpec, FieldFilter, Item, SearchFilter, SearchRequest, Status,
)

__all__ = ["FRESHNESS_DAYS", "MAX_FILTER_VALUE_CHARS", "REVIEW_KEYS", "build_filter", "parse_filter_args",
           "request_filter", "review_filter", "validate_query", "visible_under"]

MAX_FILTER_VALUE_CHARS = 200
MAX_FILTER_VALUES = 50
DATE_KEYS = ("date_from", "date_to")
# Curation filters (docs/curation.md): not fields of a collection's schema, so valid for every collection.
REVIEW_KEYS = ("overdue_review", "review_due_within_days", "review_status", "freshness")
# freshness: the item's own date against today. Why these cut-offs: a quarter is "current" for releases and
# papers alike; past a year most of either is superseded.
FRESHNESS_DAYS = {"fresh": (0, 90), "aging": (91, 365), "stale": (366, None)}


def validate_query(text: str | None) -> str:
    """Trimmed query text, or ``InvalidQuery`` for empty, whitespace-only, over-long or control-laden text."""
    if text is None:
        raise InvalidQuery("query is required", details={"field": "query"})
    stripped = text.strip()
    if not stripped:
        raise InvalidQuery("query is empty; type some words to search for", details={"field": "query"})
    if len(stripped) > MAX_QUERY_CHARS:
        raise InvalidQuery(
            f"query is {len(stripped)} characters; the limit is {MAX_QUERY_CHARS}",
            details={"field": "query", "max_length": MAX_QUERY_CHARS},
        )
    if "\x00" in stripped:
        raise InvalidQuery("query contains a NUL character", details={"field": "query"})
    return stripped


def parse_filter_args(args: Sequence[str]) -> dict[str, list[str]]:
    """``["product=Acme", "product=Beta", "date_from=2025-01-01"]`` → ``{"product": ["Acme", "Beta"], ...}``.

    Repeating a field means membership (any of the values). Only the first ``=`` splits, so values may
    contain ``=``.
    """
    out: dict[str, list[str]] = {}
    for arg in args:
        name, sep, value = arg.partition("=")
        name = name.strip()
        if not sep or not name:
            raise InvalidFilter(f"filter {arg!r} must look like FIELD=VALUE", details={"filter": arg})
        out.setdefault(name, []).append(value.strip())
    return out


_DATE_FORM = re.compile(r"(\d{4})-(\d{2})(?:-(\d{2}))?", re.ASCII)


def _parse_date(name: str, value: str) -> dt.date:
    """Exactly the documented forms, for both ends alike: ``YYYY-MM-DD``, or ``YYYY-MM`` meaning the month's first
    day for ``date_from`` and its last for ``date_to``.

    ``date.fromisoformat`` is not used: since Python 3.11 it also takes ``20250101`` and ``2025-W01-1``, forms the
    API never documented, so what one client sends would stop working the day the parser changes.
    """
    match = _DATE_FORM.fullmatch(value)
    try:
        if match is None:
            raise ValueError("not one of the accepted forms")
        year, month = int(match.group(1)), int(match.group(2))
        if match.group(3) is not None:
            return dt.date(year, month, int(match.group(3)))
        first = dt.date(year, month, 1)
        return first.replace(day=calendar.monthrange(year, month)[1]) if name == "date_to" else first
    except ValueError as exc:
        raise InvalidFilter(
            f"filter {name}={value!r} is not a date; use YYYY-MM-DD (a day) or YYYY-MM (a month)",
            details={"field": name, "accepted": ["YYYY-MM-DD", "YYYY-MM"]},
        ) from exc


def build_filter(
    collections_config: Sequence[CollectionSpec],
    *,
    collections: Sequence[str] | None = None,
    filters: Mapping[str, str | Sequence[str]] | None = None,
    include_drafts: bool = False,
    include_archived: bool = False,
    include_superseded: bool = False,
    tenant: str | None = None,
    today: dt.date | None = None,
) -> SearchFilter:
    """Validate collection names and filter fields against the configured schemas and build the filter.

    A field filter is valid when at least one targeted collection declares that field as filterable;
    collections that lack it simply cannot match it.
    """
    known = {c.name: c for c in collections_config}
    targeted = tuple(dict.fromkeys(collections or ()))
    for name in targeted:
        if name not in known:
            raise UnknownCollection(
                f"unknown collection {name!r}; configured collections are {sorted(known)}",
                details={"field": "collections", "value": name, "allowed": sorted(known)},
            )
    scope = [known[n] for n in targeted] if targeted else list(known.values())
    allowed = sorted({f for spec in scope for f in spec.filterable_fields})

    date_from = date_to = None
    field_filters: list[FieldFilter] = []
    today = today or dt.date.today()
    curation: dict[str, list[str]] = {}
    for name, raw in (filters or {}).items():
        values = [raw] if isinstance(raw, str) else list(raw)
        if not values:
            raise InvalidFilter(f"filter {name!r} has no value", details={"field": name})
        if len(values) > MAX_FILTER_VALUES:
            raise InvalidFilter(f"filter {name!r} has {len(values)} values; the limit is {MAX_FILTER_VALUES}",
                                details={"field": name})
        for v in values:
            if not isinstance(v, str):
                raise InvalidFilter(f"filter {name!r} values must be strings", details={"field": name})
            if len(v) > MAX_FILTER_VALUE_CHARS:
                raise InvalidFilter(f"filter {name!r} value is longer than {MAX_FILTER_VALUE_CHARS} characters",
                                    details={"field": name})
            if "\x00" in v:
                raise InvalidFilter(f"filter {name!r} value contains a NUL character", details={"field": name})
        if name in REVIEW_KEYS:
            curation[name] = [v.strip() for v in values]
            continue
        if name in DATE_KEYS:
            if len(values) != 1:
                raise InvalidFilter(f"filter {name!r} takes exactly one date", details={"field": name})
            parsed = _parse_date(name, values[0].strip())
            if name == "date_from":
                date_from = parsed
            else:
                date_to = parsed
            continue
        if name not in allowed:
            raise InvalidFilter(
                f"unknown filter field {name!r}; filterable fields here are {allowed + list(DATE_KEYS + REVIEW_KEYS)}",
                details={"field": name, "allowed": allowed + list(DATE_KEYS + REVIEW_KEYS)},
            )
        field_filters.append(FieldFilter(name=name, values=tuple(dict.fromkeys(v.strip() for v in values))))
    review = review_filter(curation, today)
    if "freshness" in curation:
        fresh_from, fresh_to = review.pop("freshness")
        date_from = max((d for d in (date_from, fresh_from) if d is not None), default=None)
        date_to = min((d for d in (date_to, fresh_to) if d is not None), default=None)
    if date_from and date_to and date_from > date_to:
        raise InvalidFilter(f"date_from {date_from} is after date_to {date_to}", details={"field": "date_from"})

    statuses: list[Status] = ["published"]
    if include_drafts:
        statuses.append("draft")
    if include_archived:
        statuses.append("archived")
    return SearchFilter(
        collections=targeted,
        date_from=date_from,
        date_to=date_to,
        fields=tuple(sorted(field_filters, key=lambda f: f.name)),
        statuses=tuple(statuses),
        include_superseded=include_superseded,
        tenant=tenant,
        **review,
    )


def _one(name: str, values: Sequence[str]) -> str:
    if len(values) != 1:
        raise InvalidFilter(f"filter {name!r} takes exactly one value", details={"field": name})
    return values[0]


def review_filter(args: Mapping[str, Sequence[str]], today: dt.date) -> dict:
    """The curation filters as ``SearchFilter`` keyword arguments (plus ``freshness`` as a date range).

    ``overdue_review=true``: next review before today. ``review_due_within_days=N`` (1–365): next review on or
    before today + N — what must be reviewed by then, overdue included. ``review_status``: any of the values.
    ``freshness``: the item's date within ``FRESHNESS_DAYS`` of today.
    """
    out: dict = {}
    due: list[dt.date] = []
    if "overdue_review" in args:
        value = _one("overdue_review", args["overdue_review"]).casefold()
        if value != "true":
            raise InvalidFilter(f"filter overdue_review={value!r}: the only value is 'true' (leave it out for all)",
                                details={"field": "overdue_review", "accepted": ["true"]})
        due.append(today - dt.timedelta(days=1))
    if "review_due_within_days" in args:
        raw = _one("review_due_within_days", args["review_due_within_days"])
        if not raw.isascii() or not raw.isdigit() or not 1 <= int(raw) <= 365:
            raise InvalidFilter(f"filter review_due_within_days={raw!r} must be a whole number of days from 1 to 365",
                                details={"field": "review_due_within_days", "min": 1, "max": 365})
        due.append(today + dt.timedelta(days=int(raw)))
    if due:
        out["review_due_before"] = min(due)
    if "review_status" in args:
        statuses = [v.casefold() for v in args["review_status"]]
        bad = [v for v in statuses if v not in REVIEW_STATUSES]
        if bad:
            raise InvalidFilter(f"filter review_status={bad[0]!r} must be one of {list(REVIEW_STATUSES)}",
                                details={"field": "review_status", "accepted": list(REVIEW_STATUSES)})
        out["review_statuses"] = tuple(s for s in REVIEW_STATUSES if s in statuses)
    if "freshness" in args:
        value = _one("freshness", args["freshness"]).casefold()
        if value not in FRESHNESS_DAYS:
            raise InvalidFilter(f"filter freshness={value!r} must be one of {list(FRESHNESS_DAYS)}",
                                details={"field": "freshness", "accepted": list(FRESHNESS_DAYS)})
        newest, oldest = FRESHNESS_DAYS[value]
        out["freshness"] = (None if oldest is None else today - dt.timedelta(days=oldest),
                            today - dt.timedelta(days=newest))
    return out


def visible_under(f: SearchFilter, item: Item) -> bool:
    """Whether ``f``'s governance — tenant, status, superseded — lets its caller see ``item`` at all.

    For reads by id (an item, its duplicates, the seed of a similar-to search), which must hide exactly what
    search hides. Collections, dates and fields only narrow a search; they do not hide an item named by id.
    """
    return ((f.tenant is None or item.tenant == f.tenant) and item.status in f.statuses
            and (f.include_superseded or not item.superseded_by))


def request_filter(
    collections_config: Sequence[CollectionSpec], request: SearchRequest, *, tenant: str | None,
    today: dt.date | None = None,
) -> SearchFilter:
    """The filter a search request asks for (collections, field filters, status flags), scoped to ``tenant``;
    ``today`` anchors the review and freshness filters."""
    return build_filter(
        collections_config,
        collections=request.collections,
        filters=request.filters,
        include_drafts=request.include_drafts,
        include_archived=request.include_archived,
        include_superseded=request.include_superseded,
        tenant=tenant,
        today=today,
    )
