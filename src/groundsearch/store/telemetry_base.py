"""The ``TelemetryStore`` protocol: request records, shadow comparisons and feedback marks, per backend.

Kept apart from :class:`~groundsearch.store.base.Store` because it is operational data with its own
retention, written once per request: the embedded backend keeps it in its own SQLite file beside the store
(a search never waits on the ingest writer), Postgres in the same database (migration 0004). Every read and
write of feedback takes the caller's tenant; a mark of one tenant is invisible to every other. Within a tenant a
mark belongs to its owner (the HTTP key's id; ``''`` for every-tenant callers and for marks from before owners,
migration 0008): only that owner replaces or deletes it, while the ranking signal counts every mark.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..telemetry.record import RequestRecord, ShadowRecord

__all__ = ["Feedback", "TelemetryStore"]


@dataclass(frozen=True, slots=True)
class Feedback:
    id: str
    tenant: str
    request_id: str
    item_id: str
    useful: bool
    created_at: dt.datetime
    owner: str = ""


@runtime_checkable
class TelemetryStore(Protocol):
    def secret(self) -> bytes:
        """This deployment's HMAC key, made (once, race-free) on first use."""
        ...

    def record(self, rec: RequestRecord) -> None: ...

    def record_shadow(self, rec: ShadowRecord) -> None: ...

    def requests(self, since: dt.datetime, until: dt.datetime | None = None,
                 tenant: str | None = None) -> list[RequestRecord]:
        """Records created in ``[since, until)``, oldest first; ``tenant=None``: every tenant (operators)."""
        ...

    def shadows(self, since: dt.datetime, until: dt.datetime | None = None) -> list[ShadowRecord]: ...

    def request_results(self, tenant: str, request_id: str) -> tuple[str, ...] | None:
        """The item ids request ``request_id`` of ``tenant`` showed; ``None`` if no such request of that tenant."""
        ...

    def purge(self, before: dt.datetime) -> int:
        """Delete request and shadow records older than ``before`` (retention); returns how many."""
        ...

    def term_counts(self, tenant: str, since: dt.datetime, limit: int) -> list[tuple[str, int]]:
        """Term hashes of ``tenant``'s queries since ``since`` by the number of requests using them."""
        ...

    def put_feedback(self, tenant: str, request_id: str, item_id: str, useful: bool, *, owner: str) -> Feedback:
        """One mark per (tenant, owner, request, item): marking again replaces that owner's earlier mark, never
        another owner's (theirs stays, and this one is a mark of its own)."""
        ...

    def delete_feedback(self, tenant: str, feedback_id: str, *, owner: str) -> bool:
        """Remove ``owner``'s mark in ``tenant``; ``False`` when it has none by that id (another owner's or
        another tenant's reads the same)."""
        ...

    def feedback_owners(self) -> list[tuple[str, str, int]]:
        """``(tenant, owner, marks)`` for every owner with marks: owners and counts, never a mark."""
        ...

    def delete_owner_feedback(self, tenant: str, owner: str) -> int:
        """Remove every mark of ``owner`` in ``tenant`` (a key being revoked); returns how many there were."""
        ...

    def feedback_stats(self, tenant: str, item_ids: Sequence[str]) -> dict[str, tuple[int, int]]:
        """``{item_id: (useful marks, all marks)}`` of ``tenant`` for the marked ones among ``item_ids``: every
        owner's marks count (it is the tenant's ranking signal, and it names no owner and no mark), each key once
        per item by its latest mark — every search is a new request, so counted per mark one key could reach
        ``feedback_min_marks`` alone and outvote its colleagues. Owner ``''`` has no key to tell people apart
        (marks from before owners, every-tenant callers): each of its marks counts."""
        ...

    def close(self) -> None: ...
