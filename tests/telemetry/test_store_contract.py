"""The TelemetryStore contract, run unchanged on SQLite and on the real Postgres the suite starts."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from groundsearch.store.telemetry_base import TelemetryStore
from groundsearch.telemetry.record import RequestRecord, ShadowRecord

NOW = dt.datetime(2026, 12, 1, 10, 0, tzinfo=dt.UTC)


def rec(i: str, tenant: str = "acme", *, at: dt.datetime = NOW, terms: tuple[str, ...] = ("t1",),
        results: tuple[str, ...] = ("docs:a", "docs:b")) -> RequestRecord:
    return RequestRecord(id=i, tenant=tenant, created_at=at, surface="search", status="ok", query_hash="h" + i,
                         query_terms=terms, tier="rules", confidence=0.9, format="table", domains=("docs",),
                         latency_ms={"classify": 1.5, "total": 9.0}, total_ms=9.0, degraded=("gate: '…'",),
                         prompt_tokens=10, completion_tokens=5, cost_usd=0.001,
                         usage={"stages": {"intent": {"calls": 1}}}, result_ids=results)


def test_records_round_trip_in_order_and_by_tenant(telemetry_backend: Callable[[], TelemetryStore]) -> None:
    store = telemetry_backend()
    first, second = rec("r1", at=NOW - dt.timedelta(minutes=5)), rec("r2", "globex")
    store.record(second)
    store.record(first)
    assert store.requests(NOW - dt.timedelta(hours=1)) == [first, second]
    assert store.requests(NOW - dt.timedelta(hours=1), tenant="globex") == [second]
    assert store.requests(NOW - dt.timedelta(hours=1), NOW) == [first]  # until is exclusive
    assert store.request_results("acme", "r1") == ("docs:a", "docs:b")
    assert store.request_results("globex", "r1") is None  # another tenant's request reads as unknown


def test_secret_is_made_once(telemetry_backend: Callable[[], TelemetryStore]) -> None:
    store = telemetry_backend()
    key = store.secret()
    assert len(key) == 32 and store.secret() == key


def test_retention_purge_and_shadows(telemetry_backend: Callable[[], TelemetryStore]) -> None:
    store = telemetry_backend()
    store.record(rec("old", at=NOW - dt.timedelta(days=40)))
    store.record(rec("new"))
    store.record_shadow(ShadowRecord(NOW - dt.timedelta(days=40), "h", "rules", True))
    store.record_shadow(ShadowRecord(NOW, "h2", "prototypes", False, ("format",)))
    assert store.purge(NOW - dt.timedelta(days=30)) == 2
    assert [r.id for r in store.requests(NOW - dt.timedelta(days=100))] == ["new"]
    assert store.shadows(NOW - dt.timedelta(days=100)) == [ShadowRecord(NOW, "h2", "prototypes", False, ("format",))]


def test_term_counts_are_per_tenant(telemetry_backend: Callable[[], TelemetryStore]) -> None:
    store = telemetry_backend()
    store.record(rec("a", terms=("x", "y")))
    store.record(rec("b", terms=("x",)))
    store.record(rec("c", "globex", terms=("z", "x")))
    assert store.term_counts("acme", NOW - dt.timedelta(days=1), 10) == [("x", 2), ("y", 1)]
    assert store.term_counts("globex", NOW - dt.timedelta(days=1), 1) == [("x", 1)]


def test_feedback_marks_replace_and_delete_per_tenant(telemetry_backend: Callable[[], TelemetryStore]) -> None:
    store = telemetry_backend()
    assert store.feedback_stats("acme", ["docs:a"]) == {}  # no marks
    mark = store.put_feedback("acme", "r1", "docs:a", True, owner="k1")
    assert store.feedback_stats("acme", ["docs:a"]) == {"docs:a": (1, 1)}  # one mark
    again = store.put_feedback("acme", "r1", "docs:a", False, owner="k1")  # the same request marks once: replaced
    assert again.id == mark.id and store.feedback_stats("acme", ["docs:a"]) == {"docs:a": (0, 1)}
    for i in range(2, 7):
        store.put_feedback("acme", f"r{i}", "docs:a", True, owner=f"k{i}")
    assert store.feedback_stats("acme", ["docs:a", "docs:b"]) == {"docs:a": (5, 6)}  # many keys
    assert store.feedback_stats("globex", ["docs:a"]) == {}  # another tenant sees none of them
    assert not store.delete_feedback("globex", mark.id, owner="k1")  # nor can it delete them
    assert store.delete_feedback("acme", mark.id, owner="k1")
    assert store.feedback_stats("acme", ["docs:a"]) == {"docs:a": (5, 5)}
    for i in range(7, 10):  # one key marking many searches is one voice: its latest mark
        store.put_feedback("acme", f"r{i}", "docs:a", i < 9, owner="k2")
    assert store.feedback_stats("acme", ["docs:a"]) == {"docs:a": (4, 5)}
    for i in range(7, 10):  # owner '' has no key to tell people apart: each of its marks counts
        store.put_feedback("acme", f"r{i}", "docs:a", True, owner="")
    assert store.feedback_stats("acme", ["docs:a"]) == {"docs:a": (7, 8)}
    assert not store.delete_feedback("acme", mark.id, owner="k1")
