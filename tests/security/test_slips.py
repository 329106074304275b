"""Attack: small contract slips — deep JSON, huge file names, date forms — each must get its own precise 400."""

from __future__ import annotations

import pytest

from .conftest import Server


def _error(r):  # type: ignore[no-untyped-def]
    assert r.status_code == 400, (r.status_code, r.text[:300])
    return r.json()["error"]


def test_deeply_nested_json_is_named_as_such(server: Server) -> None:
    body = '{"query": "atlas", "hints": ' + "[" * 5000 + "]" * 5000 + "}"
    with server.client(server.key("viewer", "slips-a")) as c:
        error = _error(c.post("/api/search", content=body, headers={"Content-Type": "application/json"}))
    assert "nest" in error["message"].lower() and "UTF-8" not in error["message"], error
    assert error["details"]["fields"][0]["type"] == "json_too_deep"


def test_invalid_utf8_still_says_utf8(server: Server) -> None:
    with server.client(server.key("viewer", "slips-a")) as c:
        error = _error(c.post("/api/search", content=b'{"query": "\xff\xfe"}',
                              headers={"Content-Type": "application/json"}))
    assert "UTF-8" in error["message"]


def test_five_thousand_character_file_name_is_named_as_such(server: Server) -> None:
    name = "n" * 5000 + ".md"
    with server.client(server.key("editor", "slips-b")) as c:
        error = _error(c.post("/api/items", files={"file": (name, b"# Title\n\nSome text here.", "text/markdown")}))
    assert "file name" in error["message"] and "UTF-8" not in error["message"], error
    assert error["details"]["field"] == "file"


@pytest.mark.parametrize("value", ["9999-12", "9999-12-31", "2025-02", "2024-02-29", "0001-01"])
def test_documented_date_forms_behave_the_same_for_both_ends(server: Server, value: str) -> None:
    with server.client(server.key("viewer", "slips-c")) as c:
        for key in ("date_from", "date_to"):
            r = c.post("/api/search", json={"query": "atlas", "filters": {key: value}})
            assert r.status_code == 200, (key, value, r.text[:300])


@pytest.mark.parametrize("value", ["20250101", "2025-W01-1", "2025-001", "2025", "2025-13", "2025-02-30",
                                   "2025-1-5", "2025-01-01T00:00"])
def test_undocumented_date_forms_are_rejected_naming_the_forms(server: Server, value: str) -> None:
    with server.client(server.key("viewer", "slips-c")) as c:
        for key in ("date_from", "date_to"):
            error = _error(c.post("/api/search", json={"query": "atlas", "filters": {key: value}}))
            assert "YYYY-MM-DD" in error["message"] and "YYYY-MM" in error["message"], (key, value, error)
            assert error["details"]["field"] == key


def test_month_range_is_inclusive_of_the_whole_month() -> None:
    import datetime as dt

    from groundsearch.query.filters import build_filter
    from groundsearch.types import CollectionSpec

    specs = [CollectionSpec(name="docs", kind="documents")]
    f = build_filter(specs, filters={"date_from": "9999-12", "date_to": "9999-12"})
    assert (f.date_from, f.date_to) == (dt.date(9999, 12, 1), dt.date(9999, 12, 31))
    f = build_filter(specs, filters={"date_from": "2024-02", "date_to": "2024-02"})
    assert (f.date_from, f.date_to) == (dt.date(2024, 2, 1), dt.date(2024, 2, 29))
