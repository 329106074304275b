"""Review cadence and item quality: pure functions of an item's review fields and a reference day.

An item may carry two optional typed fields (no schema change: they live in ``Item.fields`` like any other):

* ``next_review_date`` — the day a curator should look at it again;
* ``review_status`` — ``verified`` / ``unverified`` / ``flagged``; an item without one counts as unverified,
  because nobody has vouched for it.

The cadence penalty is the schedule of issue 14, stated once here so every caller (browse sort, badge, filters'
documentation) agrees on it. Quality is 100 minus the cadence penalty minus a status penalty, clamped to 0–100.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from ..types import REVIEW_STATUSES, FieldValue, Item, ReviewStatus

__all__ = [
    "NEXT_REVIEW_FIELD", "REVIEW_STATUSES", "REVIEW_STATUS_FIELD", "Quality", "ReviewStatus", "cadence_penalty",
    "item_quality", "parse_review_date", "parse_review_status", "quality_badge", "quality_score", "review_fields",
]

NEXT_REVIEW_FIELD = "next_review_date"
REVIEW_STATUS_FIELD = "review_status"

# Why these weights: a flagged item (someone found it wrong) must sink below any merely overdue one (max 40),
# while "unverified" is the normal state of fresh content and only costs a little.
_STATUS_PENALTY: dict[str, float] = {"verified": 0.0, "unverified": 10.0, "flagged": 50.0}
_GRADUATED_DAYS = 30  # the penalty starts growing this many days before the due date
_GRADUATED_MAX = 10.0


def cadence_penalty(next_review: dt.date | None, today: dt.date) -> float:
    """Points lost for a review that is due soon or overdue.

    None without a date; none more than 30 days before it is due; 0–10 growing linearly over the last 30 days
    (10 on the due day itself); 15 for 1–14 days overdue, 25 for 15–30, 40 beyond.
    """
    if next_review is None:
        return 0.0
    days_left = (next_review - today).days
    if days_left > _GRADUATED_DAYS:
        return 0.0
    if days_left >= 0:
        return _GRADUATED_MAX * (_GRADUATED_DAYS - days_left) / _GRADUATED_DAYS
    overdue = -days_left
    if overdue <= 14:
        return 15.0
    if overdue <= 30:
        return 25.0
    return 40.0


def parse_review_date(value: object) -> dt.date | None:
    """A stored or supplied ``next_review_date`` as a day: a date, or ``YYYY-MM-DD`` text; else ``ValueError``."""
    if value is None or value == "":
        return None
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    text = str(value).strip()
    try:
        if len(text) != 10:
            raise ValueError(text)
        return dt.date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"next_review_date {text!r} is not a day; use YYYY-MM-DD") from None


def parse_review_status(value: object) -> ReviewStatus | None:
    """``verified`` / ``unverified`` / ``flagged`` (any case), or ``None`` when absent; else ``ValueError``."""
    if value is None or value == "":
        return None
    text = str(value).strip().casefold()
    for status in REVIEW_STATUSES:
        if text == status:
            return status
    raise ValueError(f"review_status {value!r} must be one of {list(REVIEW_STATUSES)}")


def review_fields(fields: Mapping[str, FieldValue]) -> tuple[dt.date | None, ReviewStatus]:
    """An item's review date and status as stored; a value that does not parse counts as absent (stored
    data is never a reason to fail a read)."""
    try:
        due = parse_review_date(fields.get(NEXT_REVIEW_FIELD))
    except ValueError:
        due = None
    try:
        status = parse_review_status(fields.get(REVIEW_STATUS_FIELD)) or "unverified"
    except ValueError:
        status = "unverified"
    return due, status


def quality_score(next_review: dt.date | None, status: str, today: dt.date) -> float:
    """100 − cadence penalty − status penalty, clamped to 0–100."""
    score = 100.0 - cadence_penalty(next_review, today) - _STATUS_PENALTY.get(status, _STATUS_PENALTY["unverified"])
    return max(0.0, min(100.0, score))


def quality_badge(score: float) -> Literal["high", "medium", "low"]:
    """The web page's badge: high ≥ 85 (verified and not yet due), medium ≥ 60, low below."""
    return "high" if score >= 85 else "medium" if score >= 60 else "low"


@dataclass(frozen=True, slots=True)
class Quality:
    score: float
    badge: str
    review_status: ReviewStatus
    next_review_date: dt.date | None
    cadence_penalty: float
    overdue_days: int  # 0 when not overdue


def item_quality(item: Item, today: dt.date) -> Quality:
    due, status = review_fields(item.fields)
    score = quality_score(due, status, today)
    overdue = max(0, (today - due).days) if due is not None else 0
    return Quality(round(score, 2), quality_badge(score), status, due, round(cadence_penalty(due, today), 2), overdue)
