"""Curation filters: request values → SearchFilter, and a clear InvalidFilter for every bad value."""

from __future__ import annotations

import datetime as dt

import pytest

from groundsearch.errors import InvalidFilter
from groundsearch.query.filters import build_filter
from groundsearch.types import CollectionSpec, FieldSpec

TODAY = dt.date(2026, 6, 15)
SPECS = (CollectionSpec("docs"), CollectionSpec("releases", kind="records", fields=(FieldSpec("product"),)))


def f(**filters: str | list[str]):
    return build_filter(SPECS, filters=filters, today=TODAY)


def test_overdue_and_due_within_bound_the_next_review_date() -> None:
    assert f(overdue_review="true").review_due_before == dt.date(2026, 6, 14)
    assert f(review_due_within_days="1").review_due_before == dt.date(2026, 6, 16)
    assert f(review_due_within_days="365").review_due_before == dt.date(2027, 6, 15)
    # both: the tighter bound (overdue items are also due within any number of days)
    assert f(overdue_review="true", review_due_within_days="30").review_due_before == dt.date(2026, 6, 14)


def test_review_status_membership_in_canonical_order() -> None:
    assert f(review_status=["Flagged", "verified"]).review_statuses == ("verified", "flagged")


@pytest.mark.parametrize(("value", "window"), [
    ("fresh", (dt.date(2026, 3, 17), TODAY)),
    ("aging", (dt.date(2025, 6, 15), dt.date(2026, 3, 16))),
    ("stale", (None, dt.date(2025, 6, 14))),
])
def test_freshness_is_a_date_window_on_the_item_date(value: str, window: tuple) -> None:
    got = f(freshness=value)
    assert (got.date_from, got.date_to) == window


def test_freshness_intersects_an_explicit_date_range() -> None:
    got = f(freshness="fresh", date_from="2026-05-01", date_to="2026-12-31")
    assert (got.date_from, got.date_to) == (dt.date(2026, 5, 1), TODAY)
    with pytest.raises(InvalidFilter, match="after"):
        f(freshness="stale", date_from="2026-01-01")


@pytest.mark.parametrize(("filters", "message"), [
    ({"overdue_review": "yes"}, "only value is 'true'"),
    ({"overdue_review": ["true", "true"]}, "exactly one value"),
    ({"review_due_within_days": "0"}, "from 1 to 365"),
    ({"review_due_within_days": "366"}, "from 1 to 365"),
    ({"review_due_within_days": "-3"}, "from 1 to 365"),
    ({"review_due_within_days": "7.5"}, "from 1 to 365"),
    ({"review_due_within_days": "٣"}, "from 1 to 365"),  # a non-ASCII digit is not a number here
    ({"review_status": "approved"}, "must be one of"),
    ({"freshness": "new"}, "must be one of"),
])
def test_bad_values_name_the_filter_and_what_it_accepts(filters: dict, message: str) -> None:
    with pytest.raises(InvalidFilter, match=message) as info:
        f(**filters)
    assert info.value.details["field"] == next(iter(filters))


def test_records_carry_review_fields_typed_and_refuse_bad_ones(tmp_path) -> None:
    from groundsearch.errors import IngestError
    from groundsearch.ingest.records import record_draft

    spec = CollectionSpec("releases", kind="records", fields=(FieldSpec("product"), FieldSpec("summary", "text")))
    draft = record_draft({"product": "Acme", "summary": "s", "next_review_date": "2026-07-01", "review_status": "FLAGGED"},
                         spec, tmp_path / "r.jsonl", line=1)
    assert draft.fields["next_review_date"] == dt.date(2026, 7, 1) and draft.fields["review_status"] == "flagged"
    with pytest.raises(IngestError, match="line 2.*YYYY-MM-DD|YYYY-MM-DD.*line 2"):
        record_draft({"product": "Acme", "summary": "s", "next_review_date": "next week"}, spec, tmp_path / "r.jsonl", line=2)


def test_the_planner_anchors_review_filters_on_its_own_today() -> None:
    from groundsearch.query.planner import plan_retrieval
    from groundsearch.settings import Settings
    from groundsearch.types import Intent, SearchRequest

    request = SearchRequest(query="policy", filters={"overdue_review": "true", "freshness": "fresh"})
    plan = plan_retrieval(Intent(), request, Settings(collections=SPECS), tenant=None, today=TODAY)
    assert plan.filter.review_due_before == dt.date(2026, 6, 14)
    assert (plan.filter.date_from, plan.filter.date_to) == (dt.date(2026, 3, 17), TODAY)
