"""Intent + request + settings → ``RetrievalPlan``. Pure and deterministic: no clock, no I/O.

"Plan, then run": every decision retrieval will carry out is made here, recorded as one ``reasons`` line
each, and printed by ``groundsearch search --explain``. What the user typed explicitly (collections,
filters, a threshold, a scoring profile) always wins over what the intent cascade guessed.

The planner never sees document text, so nothing stored in the corpus (including prompt-injection
text inside documents) can change a plan.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re

from ..ingest.entities import extract_entities, normalize_entity
from ..settings import Settings
from ..types import Intent, Leg, MergeRule, RetrievalPattern, RetrievalPlan, Rewrite, SearchRequest
from .filters import request_filter, validate_query

__all__ = ["MAX_GRAPH_SEEDS", "RECENCY_WORDS", "plan_retrieval"]

# Words that mean "newest first" even when no horizon was given ("latest AI trends").
RECENCY_WORDS = re.compile(r"\b(latest|newest|recent(ly)?|trend(s|ing)?|new|this (week|month|year))\b", re.I)
# Seeds beyond a handful dilute Personalized PageRank's restart mass until it is nearly uniform.
MAX_GRAPH_SEEDS = 8
# Multi-hop and comparison questions need deeper candidate pools: the second hop's evidence rarely
# ranks in the first leg's top 100 on its own (MuSiQue-style questions).
COMPLEX_K_FACTOR = 2
MAX_K_PER_LEG = 1000
REWRITE_BY_COMPLEXITY: dict[str, Rewrite] = {"simple": "none", "medium": "prf", "complex": "multi_query"}


def _collections_for(intent: Intent, settings: Settings) -> tuple[tuple[str, ...], list[str]]:
    """Intent domains → configured collections (``settings.domains``; a domain named like a collection
    maps to it). Unknown domains are ignored with a reason rather than failing the request."""
    out: dict[str, None] = {}
    reasons = []
    for domain in intent.domains:
        targets = settings.domains.get(domain)
        if targets is None and settings.collection(domain) is not None:
            targets = (domain,)
        if targets is None:
            reasons.append(f"domain {domain!r} maps to no collection; ignored")
            continue
        for t in targets:
            out[t] = None
        reasons.append(f"domain {domain!r} → {', '.join(targets) or '(nothing)'}")
    return tuple(out), reasons


def _graph_seeds(intent: Intent, query: str) -> tuple[str, ...]:
    """Entities the graph walk starts from: comparison targets first, then names in the query, then topics."""
    names = [*intent.comparison_targets, *extract_entities(query), *intent.topic_keywords]
    seen: dict[str, None] = {}
    for name in names:
        norm = normalize_entity(name)
        if len(norm) >= 2:
            seen.setdefault(norm, None)
    return tuple(seen)[:MAX_GRAPH_SEEDS]


def plan_retrieval(
    intent: Intent,
    request: SearchRequest,
    settings: Settings,
    *,
    tenant: str | None,
    today: dt.date,
) -> RetrievalPlan:
    """Decide collections, pattern, legs, filters, k, rewrite, merge rule and gate for one request.

    Raises ``InvalidQuery`` / ``InvalidFilter`` / ``UnknownCollection`` for bad user input, exactly as
    plain search does: the planner validates what the user typed, never what the intent guessed.
    """
    query = validate_query(request.query)
    reasons: list[str] = []
    base = request_filter(settings.collections, request, tenant=tenant)

    # ---- collections and pattern ------------------------------------------------------------------
    if base.collections:
        collections = base.collections
        reasons.append(f"collections from the request: {', '.join(collections)}")
    else:
        collections, domain_reasons = _collections_for(intent, settings)
        reasons.extend(domain_reasons)
        if not collections:
            reasons.append("no domain mapped: every collection, searched together")
    pattern: RetrievalPattern = "agentic" if len(collections) > 1 else "pipeline"
    if pattern == "agentic":
        reasons.append(f"{len(collections)} collections: agentic fan-out, one hybrid retrieval each")

    # ---- legs ---------------------------------------------------------------------------------------
    legs: tuple[Leg, ...]
    seeds: tuple[str, ...] = ()
    if request.profile in ("keyword", "vector"):
        legs = (request.profile,)
        reasons.append(f"profile {request.profile}: that leg alone")
    else:
        legs = ("keyword", "vector")
        wants_graph = (intent.retrieval_pattern in ("kg", "hybrid") or "kg" in intent.domains
                       or bool(intent.comparison_targets))
        seeds = _graph_seeds(intent, query) if wants_graph else ()
        if seeds:
            legs = ("keyword", "vector", "graph")
            if pattern == "pipeline":
                pattern = "kg"
            why = "comparison targets" if intent.comparison_targets else f"pattern {intent.retrieval_pattern}"
            reasons.append(f"graph-aware ({why}): Personalized PageRank seeded from {', '.join(seeds)}")
        elif wants_graph:
            reasons.append("graph leg wanted but the query names no entity to seed it; skipped")
        reasons.append(f"profile {request.profile}")

    # ---- horizon → date filter (the user's own date filter wins) ---------------------------------
    f = dataclasses.replace(base, collections=collections)
    horizon = request.hints.horizon_days if request.hints and request.hints.horizon_days else intent.horizon_days
    if base.date_from is not None or base.date_to is not None:
        reasons.append("date range from the request")
    elif horizon:
        f = dataclasses.replace(f, date_from=today - dt.timedelta(days=horizon))
        reasons.append(f"horizon {horizon} days: date_from {f.date_from.isoformat()}")

    # ---- depth, rewrite, merge, gate -------------------------------------------------------------
    k = settings.retrieval.k_per_leg
    if intent.complexity == "complex":
        k = min(k * COMPLEX_K_FACTOR, MAX_K_PER_LEG)
    reasons.append(f"k per leg {k} ({intent.complexity})")
    merge: MergeRule = "fused_score"
    if pattern == "agentic" and (horizon or RECENCY_WORDS.search(query)):
        merge = "recency"
        reasons.append("merge by recency (the request asks for latest / trends)")
    elif pattern == "agentic":
        reasons.append("merge by fused score")
    rewrite = REWRITE_BY_COMPLEXITY[intent.complexity]
    why = intent.complexity
    if rewrite == "multi_query" and len(intent.comparison_targets) < 2:
        rewrite, why = "prf", "complex, but no two targets to split the question on"
    if legs == ("vector",):
        rewrite, why = "none", "expansion terms only help the keyword leg"
    elif merge == "recency" and rewrite != "none":
        rewrite, why = "none", "results are ordered by recency, so a relevance re-fusion would be undone"
    reasons.append(f"rewrite {rewrite} ({why})")
    gate = request.threshold if request.threshold is not None else settings.retrieval.gate_threshold
    reasons.append(f"gate threshold {gate:g}" + (" (from the request)" if request.threshold is not None else ""))

    return RetrievalPlan(
        query=query,
        collections=collections,
        pattern=pattern,
        legs=legs,
        profile=request.profile,
        k_per_leg=k,
        rrf_k=settings.retrieval.rrf_k,
        filter=f,
        limit=request.limit,
        offset=request.offset,
        merge=merge,
        rewrite=rewrite,
        gate_threshold=gate,
        graph_seeds=seeds,
        reasons=tuple(reasons),
    )
