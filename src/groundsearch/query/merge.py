"""Merging fan-out lanes by recency: one collection's newest dates must not starve the others."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence

from ..types import EvidenceHit

__all__ = ["interleave_by_recency"]


def interleave_by_recency(collections: Sequence[str], hits: Iterable[EvidenceHit]) -> list[EvidenceHit]:
    """Union by recency, taken in turns: each collection's hits newest first, then round-robin.

    A single global date sort lets the collection with the newest dates starve the others (releases
    dated this year bury every paper), which defeats a fan-out the user asked for ("research *and*
    product releases"). Each collection's list is already its most relevant hits, so recency orders
    within relevance, and every collection gets an equal share of the first page.
    """
    lanes: dict[str, list[EvidenceHit]] = {name: [] for name in collections}
    for hit in hits:
        lanes.setdefault(hit.item.collection, []).append(hit)
    for lane in lanes.values():
        lane.sort(key=lambda h: (h.item.date or dt.date.min, h.score, h.chunk.id), reverse=True)
    out: list[EvidenceHit] = []
    for i in range(max((len(lane) for lane in lanes.values()), default=0)):
        out.extend(lane[i] for lane in lanes.values() if i < len(lane))
    return out
