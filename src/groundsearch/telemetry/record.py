"""The telemetry record of one request, built from the pipeline's own events (no second bookkeeping)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["RequestRecord", "ShadowRecord", "record_from"]


@dataclass(frozen=True, slots=True)
class RequestRecord:
    id: str
    tenant: str
    created_at: dt.datetime  # UTC
    surface: str  # search / ask / mcp / chat
    status: str  # ok / invalid / aborted / error
    query_hash: str
    query_terms: tuple[str, ...] = ()  # term HMACs (privacy.hash_terms)
    query_text: str | None = None  # only with telemetry.store_raw_query, after redaction
    query_chars: int = 0
    tier: str | None = None
    confidence: float | None = None
    format: str | None = None
    domains: tuple[str, ...] = ()
    complexity: str | None = None
    cache_hit: bool = False
    model: str | None = None
    prompt_version: str | None = None
    latency_ms: Mapping[str, float] = field(default_factory=dict)
    total_ms: float | None = None
    degraded: tuple[str, ...] = ()  # privacy.reason() of each note
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    usage: Mapping[str, Any] = field(default_factory=dict)
    result_ids: tuple[str, ...] = ()  # item ids shown, in order: what feedback on this request may mark


@dataclass(frozen=True, slots=True)
class ShadowRecord:
    created_at: dt.datetime
    query_hash: str
    winner_tier: str
    agreed: bool | None  # None: the LLM tier gave no intent
    fields: tuple[str, ...] = ()  # the compared fields that differed


def record_from(events: Sequence[Any], *, base: Mapping[str, Any], reasons: Any) -> dict[str, Any]:
    """Record fields the pipeline's events carry: the intent, the results shown, the diagnostics.

    ``reasons`` turns each degraded note into its stored form (:func:`privacy.reason` bound to the query).
    """
    out: dict[str, Any] = dict(base)
    for event in events:
        data = event.data
        if event.name == "intent":
            intent = data.get("intent") or {}
            out.update(tier=data.get("tier"), cache_hit=bool(data.get("cache_hit")), model=data.get("model"),
                       confidence=intent.get("confidence"), format=intent.get("format"),
                       domains=tuple(intent.get("domains") or ()), complexity=intent.get("complexity"))
        elif event.name == "results":
            out["result_ids"] = tuple(dict.fromkeys(r["item_id"] for r in data.get("results") or ()))
        elif event.name == "complete":
            diag = data.get("diagnostics") or {}
            usage = diag.get("usage") or {}
            out.update(latency_ms=dict(diag.get("latency_ms") or {}),
                       total_ms=data.get("total_latency_ms"),
                       degraded=tuple(reasons(n) for n in diag.get("degraded") or ()),
                       prompt_tokens=int(usage.get("prompt_tokens") or 0),
                       completion_tokens=int(usage.get("completion_tokens") or 0),
                       cost_usd=float(usage.get("cost_usd") or 0.0), usage=usage)
            if usage.get("models") and not out.get("model"):
                out["model"] = " > ".join(usage["models"])
    return out
