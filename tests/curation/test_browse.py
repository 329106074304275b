"""Browse: the pure ordering and cursor, then GET /api/browse over HTTP with filters, sorts and bad input."""

from __future__ import annotations

import datetime as dt

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from groundsearch.errors import InvalidInput
from groundsearch.query.browse import browse_page
from groundsearch.query.quality import quality_score

from .conftest import TODAY, auth, day

DAY = dt.date(2026, 6, 15)

rows_strategy = st.lists(
    st.tuples(st.sampled_from([None, dt.date(2026, 1, 1), dt.date(2026, 5, 1)]),
              st.sampled_from([None, "2026-06-01", "2026-07-01"]),
              st.sampled_from([None, "verified", "flagged"])),
    max_size=40,
).map(lambda rs: [(f"id{n:02d}", *r) for n, r in enumerate(rs)])


@settings(max_examples=60, deadline=None)
@given(rows=rows_strategy, limit=st.integers(1, 7), sort=st.sampled_from(["date", "quality", "relevance"]))
def test_paging_visits_every_row_once_in_order_even_with_ties(rows, limit: int, sort: str) -> None:
    seen: list[str] = []
    cursor = None
    while True:
        page = browse_page(rows, sort, limit, today=DAY, cursor=cursor)  # type: ignore[arg-type]
        assert len(page.item_ids) <= limit and page.total == len(rows)
        seen.extend(page.item_ids)
        cursor = page.next_cursor
        if cursor is None:
            break
    assert sorted(seen) == sorted(r[0] for r in rows) and len(seen) == len(set(seen))
    whole = browse_page(rows, sort, 1000, today=DAY).item_ids  # type: ignore[arg-type]
    assert tuple(seen) == whole


def test_sorts_mean_what_they_say() -> None:
    rows = [("old", dt.date(2020, 1, 1), None, "verified"), ("new", dt.date(2026, 6, 1), None, "flagged"),
            ("mid", dt.date(2025, 6, 1), None, None), ("undated", None, None, "verified")]
    assert browse_page(rows, "date", 10, today=DAY).item_ids == ("new", "mid", "old", "undated")
    assert browse_page(rows, "quality", 10, today=DAY).item_ids == ("old", "undated", "mid", "new")
    # relevance: quality halving per year of age: mid 90·0.5^(380/365) ≈ 43.6 > old 100·0.5^6.5 ≈ 1.1
    assert browse_page(rows, "relevance", 10, today=DAY).item_ids == ("undated", "new", "mid", "old")


def test_a_cursor_keeps_the_day_it_was_issued_on() -> None:
    rows = [(f"i{n}", None, "2026-06-20", None) for n in range(3)] + [("j", None, None, None)]
    first = browse_page(rows, "quality", 2, today=DAY)
    later = browse_page(rows, "quality", 2, today=DAY + dt.timedelta(days=30), cursor=first.next_cursor)
    assert later.today == DAY and first.item_ids + later.item_ids == browse_page(rows, "quality", 9, today=DAY).item_ids


@pytest.mark.parametrize("cursor", ["garbage", "e30", "WyJ4Il0"])
def test_foreign_cursors_are_refused(cursor: str) -> None:
    with pytest.raises(InvalidInput, match="cursor"):
        browse_page([("a", None, None, None)], "date", 1, today=DAY, cursor=cursor)
    date_cursor = browse_page([("a", None, None, None), ("b", None, None, None)], "date", 1, today=DAY).next_cursor
    with pytest.raises(InvalidInput, match="cursor"):
        browse_page([("a", None, None, None)], "quality", 1, today=DAY, cursor=date_cursor)


# ------------------------------------------------------------------------------------------------ over HTTP


def browse(url: str, token: str, **params):
    return httpx.get(f"{url}/api/browse", params=params, headers=auth(token))


def test_browse_without_a_query_pages_the_tenants_published_items(served) -> None:
    url, tokens, engine = served
    ids: list[str] = []
    cursor = None
    while True:
        body = browse(url, tokens["acme"], limit=7, **({"cursor": cursor} if cursor else {})).json()
        ids += [i["item_id"] for i in body["items"]]
        cursor = body["next_cursor"]
        if not cursor:
            break
    stored = engine.store.get_many(ids)
    assert len(ids) == len(set(ids)) == body["total"]
    assert all(stored[i].tenant == "acme" and stored[i].status == "published" for i in ids)
    dates = [stored[i].date for i in ids]
    assert dates == sorted(dates, reverse=True)


def test_quality_sort_badges_and_review_filters(served) -> None:
    url, tokens, engine = served
    body = browse(url, tokens["acme"], sort="quality", limit=100).json()
    for shown in body["items"]:
        item = engine.store.get(shown["item_id"])
        due = item.fields.get("next_review_date")
        expected = quality_score(due, str(item.fields.get("review_status", "unverified")), TODAY)
        assert shown["quality"]["score"] == pytest.approx(expected, abs=0.005)  # shown to 2 decimals
    scores = [i["quality"]["score"] for i in body["items"]]
    assert scores == sorted(scores, reverse=True) and scores[0] == 100.0
    flagged = body["items"][-1]
    assert flagged["quality"] == {"score": 10.0, "badge": "low", "review_status": "flagged",
                                  "next_review_date": day(40).isoformat(), "cadence_penalty": 40.0, "overdue_days": 40}
    overdue = browse(url, tokens["acme"], overdue_review="true").json()
    assert [i["quality"]["review_status"] for i in overdue["items"]] == ["flagged"]
    due_soon = browse(url, tokens["acme"], review_due_within_days="30").json()
    assert {i["quality"]["overdue_days"] for i in due_soon["items"]} == {0, 40} and due_soon["total"] == 2
    verified = browse(url, tokens["acme"], review_status="verified").json()
    assert verified["total"] == 2
    fresh = browse(url, tokens["acme"], freshness="fresh", filter="product=alpha").json()
    assert fresh["total"] > 0 and all(i["fields"]["product"] == "alpha" for i in fresh["items"])
    assert all((TODAY - dt.date.fromisoformat(i["date"])).days <= 90 for i in fresh["items"])


@pytest.mark.parametrize(("params", "needle"), [
    ({"review_status": "approved"}, "review_status"), ({"review_due_within_days": "400"}, "1 to 365"),
    ({"overdue_review": "maybe"}, "overdue_review"), ({"freshness": "new"}, "freshness"),
    ({"sort": "random"}, "sort"), ({"cursor": "garbage"}, "cursor"), ({"filter": "nofield"}, "FIELD=VALUE"),
    ({"filter": "colour=red"}, "colour"), ({"collections": "nope"}, "nope"),
])
def test_bad_browse_input_is_400_naming_the_problem(served, params: dict, needle: str) -> None:
    url, tokens, _ = served
    r = browse(url, tokens["acme"], **params)
    assert r.status_code == 400, r.text
    assert needle in r.json()["error"]["message"] or needle in r.text


def test_search_takes_the_review_filters_too(served) -> None:
    url, tokens, _ = served
    r = httpx.post(f"{url}/api/search", json={"query": "curation notes", "filters": {"review_status": "flagged"}},
                   headers=auth(tokens["acme"]))
    assert r.status_code == 200, r.text
    assert {x["fields"].get("review_status") for x in r.json()["results"]} == {"flagged"}
    bad = httpx.post(f"{url}/api/search", json={"query": "x", "filters": {"review_due_within_days": "0"}},
                     headers=auth(tokens["acme"]))
    assert bad.status_code == 400 and "review_due_within_days" in bad.json()["error"]["message"]


def test_browse_never_shows_another_tenants_items_or_drafts(served) -> None:
    """Attack: globex's viewer browses with every filter loosened; acme's items and the draft must stay hidden.
    Fails if ``browse_rows`` ignores the filter's tenant (checked by compiling it with ``tenant=None``)."""
    url, tokens, engine = served
    body = browse(url, tokens["globex"], limit=100, review_status=["verified", "unverified", "flagged"]).json()
    stored = engine.store.get_many([i["item_id"] for i in body["items"]])
    assert body["total"] == 6 and {s.tenant for s in stored.values()} == {"globex"}
    acme = browse(url, tokens["acme"], limit=100).json()
    assert all(engine.store.get(i["item_id"]).status == "published" for i in acme["items"])


def test_oversized_cursor_is_refused(served) -> None:
    url, tokens, _ = served
    r = browse(url, tokens["acme"], cursor="A" * 3000)
    assert r.status_code == 400 and "cursor" in r.text
