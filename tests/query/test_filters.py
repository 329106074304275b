from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from groundsearch.errors import InvalidFilter, InvalidQuery, UnknownCollection
from groundsearch.query.filters import build_filter, parse_filter_args, validate_query
from groundsearch.types import CollectionSpec, FieldFilter, FieldSpec

SPECS = (
    CollectionSpec(name="docs"),
    CollectionSpec(name="releases", kind="records", fields=(FieldSpec("product"), FieldSpec("date", "date"),
                                                             FieldSpec("summary", "text"))),
    CollectionSpec(name="papers", kind="records", fields=(FieldSpec("authors", "list"), FieldSpec("venue"))),
)


def test_validate_query() -> None:
    assert validate_query("  hello  ") == "hello"
    assert validate_query("x" * 2000) == "x" * 2000
    for bad in (None, "", "   \n\t ", "x" * 2001, "a\x00b"):
        with pytest.raises(InvalidQuery):
            validate_query(bad)
    with pytest.raises(InvalidQuery, match="2001 characters; the limit is 2000"):
        validate_query("y" * 2001)


def test_parse_filter_args() -> None:
    assert parse_filter_args(["product=Acme", "product=Beta", "a=b=c"]) == {"product": ["Acme", "Beta"], "a": ["b=c"]}
    for bad in ("noequals", "=value"):
        with pytest.raises(InvalidFilter, match="FIELD=VALUE"):
            parse_filter_args([bad])


def test_build_filter_validates_names() -> None:
    with pytest.raises(UnknownCollection, match="unknown collection 'nope'"):
        build_filter(SPECS, collections=["nope"])
    with pytest.raises(InvalidFilter, match="unknown filter field 'colour'"):
        build_filter(SPECS, filters={"colour": "red"})
    with pytest.raises(InvalidFilter, match="'venue'"):  # venue exists, but not in releases
        build_filter(SPECS, collections=["releases"], filters={"venue": "SIGIR"})
    with pytest.raises(InvalidFilter, match="not a date"):
        build_filter(SPECS, filters={"date_from": "yesterday"})
    with pytest.raises(InvalidFilter, match="after"):
        build_filter(SPECS, filters={"date_from": "2025-02-01", "date_to": "2025-01-01"})
    with pytest.raises(InvalidFilter, match="longer than"):
        build_filter(SPECS, filters={"product": "x" * 201})


def test_build_filter_builds_membership_dates_and_statuses() -> None:
    f = build_filter(SPECS, collections=["releases", "releases"], filters={"product": ["Acme", "Beta", "Acme"],
                     "date_from": "2025-02", "date_to": "2025-02"}, include_drafts=True, tenant="t")
    assert f.collections == ("releases",)
    assert f.fields == (FieldFilter("product", ("Acme", "Beta")),)
    assert (f.date_from, f.date_to) == (dt.date(2025, 2, 1), dt.date(2025, 2, 28))
    assert f.statuses == ("published", "draft") and f.tenant == "t" and not f.include_superseded
    assert build_filter(SPECS).statuses == ("published",)


@given(st.text(max_size=200).filter(lambda s: "\x00" not in s and s.strip()))
def test_user_values_are_carried_literally(value: str) -> None:
    """Whatever the text (SQL, FTS or LIKE syntax), it arrives at the store unchanged, as data."""
    f = build_filter(SPECS, filters={"product": value})
    assert f.fields == (FieldFilter("product", (value.strip(),)),)
