"""The cadence penalty at every boundary of the schedule in issue 14, and the quality score it feeds."""

from __future__ import annotations

import datetime as dt

import pytest

from groundsearch.query.quality import (
    cadence_penalty, item_quality, parse_review_date, parse_review_status, quality_badge, quality_score,
)
from groundsearch.types import Item

TODAY = dt.date(2026, 6, 15)


def due_in(days: int) -> dt.date:
    return TODAY + dt.timedelta(days=days)


def test_no_date_no_penalty() -> None:
    assert cadence_penalty(None, TODAY) == 0.0


@pytest.mark.parametrize(("days_left", "penalty"), [
    (365, 0.0), (31, 0.0),  # more than 30 days before due: none
    (30, 0.0), (29, 10 / 30), (15, 5.0), (1, 10 * 29 / 30), (0, 10.0),  # graduated over the last 30 days
    (-1, 15.0), (-14, 15.0),  # 1–14 days overdue
    (-15, 25.0), (-30, 25.0),  # 15–30 days overdue
    (-31, 40.0), (-400, 40.0),  # beyond
])
def test_schedule_boundaries(days_left: int, penalty: float) -> None:
    assert cadence_penalty(due_in(days_left), TODAY) == pytest.approx(penalty)


def test_graduated_part_is_monotonic() -> None:
    values = [cadence_penalty(due_in(d), TODAY) for d in range(31, -1, -1)]
    assert values == sorted(values) and values[0] == 0.0 and values[-1] == 10.0


def test_quality_combines_cadence_and_status() -> None:
    assert quality_score(None, "verified", TODAY) == 100.0
    assert quality_score(None, "unverified", TODAY) == 90.0
    assert quality_score(due_in(-31), "flagged", TODAY) == 10.0
    assert quality_score(due_in(-1), "verified", TODAY) == 85.0
    assert quality_badge(85.0) == "high" and quality_badge(84.9) == "medium" and quality_badge(59.9) == "low"


def test_item_quality_reads_typed_or_text_fields_and_tolerates_bad_stored_values() -> None:
    item = Item(id="a", collection="docs", title="t", text="x",
                fields={"next_review_date": "2026-06-01", "review_status": "Verified"})
    q = item_quality(item, TODAY)
    assert (q.review_status, q.next_review_date, q.overdue_days, q.cadence_penalty, q.score) == (
        "verified", dt.date(2026, 6, 1), 14, 15.0, 85.0)
    broken = Item(id="b", collection="docs", title="t", text="x",
                  fields={"next_review_date": "soon", "review_status": "great"})
    assert item_quality(broken, TODAY).score == 90.0


@pytest.mark.parametrize("bad", ["2026-13-01", "20260101", "2026-06", "tomorrow"])
def test_bad_review_dates_are_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="YYYY-MM-DD"):
        parse_review_date(bad)


def test_bad_review_status_is_refused() -> None:
    with pytest.raises(ValueError, match="verified"):
        parse_review_status("approved")
