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
from dataclasses import dataclass

from ..ingest.entities import extract_entities, normalize_entity
from ..settings import RetrievalSettings, Settings
from ..types import Fusion, GateJudge, Intent, Leg, MergeRule, Profile, RetrievalPattern, RetrievalPlan, Rewrite, SearchRequest
from .filters import request_filter, validate_query
from .gate import grounded_aggregate, judge_threshold, of_its_words, threshold_for
from .language import unreadable
from .rewrite import reformulate, sub_queries

__all__ = ["FEEDBACK_WITHOUT_GRAPH", "MAX_GRAPH_SEEDS", "QUESTION", "PLAN_PROFILES", "RECENCY_WORDS", "PlanProfile", "plan_retrieval", "plan_profile"]

# Words that mean "newest first" even when no horizon was given ("latest AI trends").
RECENCY_WORDS = re.compile(r"\b(latest|newest|recent(ly)?|trend(s|ing)?|new|this (week|month|year))\b", re.I)
# A bridge question describes an entity instead of naming it ("the association which published X", "the state
# where Y died"): answering needs a hop from the named entity to the described one, which is what the graph
# leg walks. On MuSiQue-100 hybrid+graph lifted Recall@5 0.603 -> 0.657 (bench-retrieval.md); 59 of its 100
# questions match this, 16 of SciFact's 1,109 claims and none of RGB's questions.
BRIDGE = re.compile(r"\b(?:the|a|an)\s+(?:[\w'’-]+\s+){0,5}?(?:which|that|who|whom|whose|where|when)\b", re.I)
# An entity-seeking question ("Who…?", "When did…?", "In which country…?") asks for something the query does
# not name, found by hopping from what it does name: the graph leg's job. On MuSiQue-100's tuning half the
# graph leg on every question, fused in two stages (query.fusion.zscore_graph_fusion), lifts Recall@5 0.654
# (bridge questions only) → 0.702; claims are not questions, and on 100 SciFact train claims that fusion
# cost nDCG@10 0.729 → 0.642. "How"/"why" and yes/no questions ask for an explanation or a verdict.
QUESTION = re.compile(r"\?\s*$|^\W*(?:(?:in|on|at|from|of|to|by|for|with)\s+)?(?:who|whom|whose|what|which|when|where)\b",
                      re.I)
NOT_ENTITY_QUESTION = re.compile(r"^\W*(?:how|why|is|are|was|were|do|does|did|can|could|should|will|would|has|have|had)\b",
                                 re.I)
# Seeds beyond a handful dilute Personalized PageRank's restart mass until it is nearly uniform.
MAX_GRAPH_SEEDS = 8
# Multi-hop and comparison questions need deeper candidate pools: the second hop's evidence rarely
# ranks in the first leg's top 100 on its own (MuSiQue-style questions).
COMPLEX_K_FACTOR = 2
MAX_K_PER_LEG = 1000
# Rewrites are routed only where they measured better (bench-retrieval.md, MuSiQue-100 Recall@5, hybrid
# 0.603): keyword PRF 0.578, dense Rocchio 0.590, topic-keyword multi-query 0.344 — none is adopted for
# medium or complex questions. A comparison with two named targets still splits (one sub-query per target:
# each target must be found, whatever the other's vocabulary); that case is not in either benchmark.
# HippoRAG 2 seeds the walk with passages too: the entities of the best few dense hits carry the question's
# bridge entities ("the association which published X" → the passage naming the association).
GRAPH_PASSAGE_SEEDS = 3
REWRITE_BY_COMPLEXITY: dict[str, Rewrite] = {"simple": "none", "medium": "none", "complex": "multi_query"}
# Dense feedback from the top 2 fused hits (query.rewrite.ROCCHIO_DOCS) where only the text legs run: SciFact
# train nDCG@10 0.735 → 0.741 (held-out test 0.734 → 0.737); with the graph leg it measured no gain (MuSiQue
# tuning half R@5 0.705 either way), and over RRF fusion it was never measured better.
FEEDBACK_WITHOUT_GRAPH: Rewrite = "rocchio"


@dataclass(frozen=True, slots=True)
class PlanProfile:
    """A named set of overrides of the planner's own decisions; ``None`` leaves a decision to the planner.

    This is how ``eval`` and ``bench`` name a retriever: each one is a profile run through this planner and
    the same ``Retriever`` as ``search`` (Anserini's regression configs run the searcher users run), so a
    figure always describes a path users can get. ``default`` overrides nothing: it *is* search.
    """

    name: str
    scoring: Profile | None = None  # the request's scoring profile (rrf / weighted / keyword / vector)
    graph: bool | None = None  # force the graph leg on (seeded from the query) or off
    graph_only: bool = False  # the graph leg alone
    rewrite: Rewrite | None = None
    rerank: bool | None = None
    fusion: Fusion | None = None  # force RRF (the baseline "hybrid") or z-score fusion


PLAN_PROFILES: dict[str, PlanProfile] = {p.name: p for p in (
    PlanProfile("default"),
    PlanProfile("bm25", scoring="keyword"),
    PlanProfile("dense", scoring="vector"),
    PlanProfile("hybrid", scoring="rrf", graph=False, rewrite="none", rerank=False, fusion="rrf"),
    PlanProfile("zscore", scoring="rrf", graph=False, rewrite="none", rerank=False, fusion="zscore"),
    PlanProfile("weighted", scoring="weighted", graph=False, rewrite="none", rerank=False),
    PlanProfile("graph", graph_only=True, rewrite="none", rerank=False),
    PlanProfile("hybrid+graph", scoring="rrf", graph=True, rewrite="none", rerank=False, fusion="rrf"),
    PlanProfile("zscore+graph", scoring="rrf", graph=True, rewrite="none", rerank=False, fusion="zscore"),
    PlanProfile("zscore+rocchio", scoring="rrf", graph=False, rewrite="rocchio", rerank=False, fusion="zscore"),
    PlanProfile("hybrid+prf", scoring="rrf", graph=False, rewrite="prf", rerank=False, fusion="rrf"),
    PlanProfile("hybrid+rocchio", scoring="rrf", graph=False, rewrite="rocchio", rerank=False, fusion="rrf"),
    PlanProfile("hybrid+multi", scoring="rrf", graph=False, rewrite="multi_query", rerank=False, fusion="rrf"),
    PlanProfile("zscore+hyde", scoring="rrf", graph=False, rewrite="hyde", rerank=False, fusion="zscore"),
    PlanProfile("zscore+rerank", scoring="rrf", graph=False, rewrite="none", rerank=True, fusion="zscore"),
    PlanProfile("hybrid+rerank", scoring="rrf", graph=False, rewrite="none", rerank=True, fusion="rrf"),
)}


def plan_profile(name: str) -> PlanProfile:
    """The named profile; ``KeyError`` lists the known names."""
    try:
        return PLAN_PROFILES[name]
    except KeyError:
        raise KeyError(f"unknown plan profile {name!r}; known: {', '.join(PLAN_PROFILES)}") from None


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


def _fusion(legs: tuple[Leg, ...], scoring: Profile, r: RetrievalSettings, profile: PlanProfile | None,
            question: bool = False) -> tuple[Fusion, int]:
    """Keyword + vector fuse by z-scores (SciFact train nDCG@10 0.720 → 0.735 over RRF k=60). With the graph
    leg, an entity-seeking question fuses in two stages: the z-scored text ranking meets the graph's in an
    RRF at ``graph_question_k``, graph ranks weighted ``graph_weight`` (MuSiQue tuning half R@5 0.702; RRF
    over all three legs 0.654, z-scores of all three 0.609-0.638 — PageRank mass is heavy-tailed, so its
    z-scores are dominated by the seeds). Other graph-routed requests keep RRF over the three legs at
    ``graph_rrf_k``: on the SciFact train claims routed to the graph (comparisons, bridge phrases) it cost
    0.002 nDCG@10 where the two stages cost 0.003. Figures: BENCHMARKS.md, issue 12."""
    forced = profile.fusion if profile is not None else None
    if "graph" in legs:
        if (forced or r.fusion) == "zscore" and (question or forced == "zscore"):
            return "zscore", r.graph_question_k
        return "rrf", r.graph_rrf_k
    if scoring != "rrf" or len(legs) < 2:
        return "rrf", r.rrf_k
    return forced or r.fusion, r.rrf_k


def plan_retrieval(
    intent: Intent,
    request: SearchRequest,
    settings: Settings,
    *,
    tenant: str | None,
    today: dt.date,
    embedder_id: str = "",
    profile: PlanProfile | None = None,
    stored_gate: float | None = None,
    has_llm: bool = False,
    judge_id: str = "",
) -> RetrievalPlan:
    """Decide collections, pattern, legs, filters, k, rewrite, rerank, gate (threshold, depth, retry),
    horizon relaxation and merge rule for one request. ``stored_gate`` is the gate threshold calibrated on
    the store's data for the embedder ``embedder_id`` (else the table's for it); ``judge_id`` names the
    retriever's multilingual judge, if it has one (``query.judge``); ``profile`` overrides decisions by name
    (eval / bench retrievers).

    Raises ``InvalidQuery`` / ``InvalidFilter`` / ``UnknownCollection`` for bad user input, exactly as
    plain search does: the planner validates what the user typed, never what the intent guessed.
    """
    query = validate_query(request.query)
    reasons: list[str] = []
    if profile is not None and profile.scoring is not None:
        request = request.model_copy(update={"profile": profile.scoring})
    if profile is not None and profile.name != "default":
        reasons.append(f"plan profile {profile.name}")
    base = request_filter(settings.collections, request, tenant=tenant, today=today)

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
    forced_graph = profile.graph if profile is not None else None
    passage_seeds = 0
    question = False
    if profile is not None and profile.graph_only:
        seeds = _graph_seeds(intent, query)
        legs = ("graph",)
        reasons.append(f"graph leg alone: Personalized PageRank seeded from {', '.join(seeds) or '(no entity)'}")
    elif request.profile in ("keyword", "vector"):
        legs = (request.profile,)
        reasons.append(f"profile {request.profile}: that leg alone")
    else:
        legs = ("keyword", "vector")
        bridge = bool(BRIDGE.search(query))
        question = bool(QUESTION.search(query)) and not NOT_ENTITY_QUESTION.search(query)
        wants_graph = (intent.retrieval_pattern in ("kg", "hybrid") or "kg" in intent.domains
                       or bool(intent.comparison_targets) or bridge or question)
        if forced_graph is not None:
            wants_graph = forced_graph
        seeds = _graph_seeds(intent, query) if wants_graph else ()
        if seeds:
            legs = ("keyword", "vector", "graph")
            passage_seeds = GRAPH_PASSAGE_SEEDS
            if pattern == "pipeline":
                pattern = "kg"
            why = ("the plan profile" if forced_graph else "comparison targets" if intent.comparison_targets
                   else f"pattern {intent.retrieval_pattern}" if intent.retrieval_pattern in ("kg", "hybrid")
                   else "a bridge question: an entity described, not named" if bridge
                   else "an entity-seeking question: the answer is an entity it does not name" if question
                   else "domain kg")
            reasons.append(f"graph-aware ({why}): Personalized PageRank (damping 0.5, synonym edges at cosine >= 0.8) "
                           f"seeded from {', '.join(seeds)} and the entities of the top {passage_seeds} vector hits")
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
        rewrite, why = "none", "complex, but no two targets to split the question on"
    fusion, rrf_k = _fusion(legs, request.profile, settings.retrieval, profile, question)
    if rewrite == "none" and legs == ("keyword", "vector") and fusion == "zscore":
        rewrite, why = FEEDBACK_WITHOUT_GRAPH, "dense feedback from the top 2 where only the text legs run"
    if profile is not None and profile.rewrite is not None:
        rewrite, why = profile.rewrite, "the plan profile"
    subs: tuple[str, ...] = ()
    if legs == ("graph",):
        rewrite, why = "none", "the graph leg alone"
    elif legs == ("vector",) and rewrite == "prf":
        rewrite, why = "none", "expansion terms only help the keyword leg"
    elif legs == ("keyword",) and rewrite == "rocchio":
        rewrite, why = "none", "dense feedback needs the vector leg"
    elif merge == "recency" and rewrite != "none":
        rewrite, why = "none", "results are ordered by recency, so a relevance re-fusion would be undone"
    if rewrite == "multi_query":
        subs = tuple(sub_queries(intent, query))
        if not subs:
            rewrite, why = "none", "multi-query, but nothing to split the question on"
    if rewrite == "hyde" and not has_llm:
        rewrite, why = "none", "HyDE needs a configured LLM"
    elif rewrite == "hyde" and "vector" not in legs:
        rewrite, why = "none", "HyDE moves the vector leg, which this plan does not run"
    reasons.append(f"rewrite {rewrite} ({why})" + (f": {' | '.join(subs)}" if subs else ""))

    r = settings.retrieval
    if fusion == "rrf":
        reasons.append(f"fuse by RRF (k={rrf_k})")
    elif "graph" in legs:
        reasons.append(f"fuse keyword + vector by z-scored leg scores, then RRF (k={rrf_k}) with the graph leg's "
                       f"ranks weighted {r.graph_weight:g}")
    else:
        reasons.append("fuse by z-scored leg scores (equal weights)")
    rerank = r.reranker != "none" and legs != ("graph",)
    if profile is not None and profile.rerank is not None:
        rerank = profile.rerank and r.reranker != "none"
    if rerank:
        reasons.append(f"rerank the fused top {r.rerank_depth} with the {r.reranker} reranker")
    else:
        reasons.append("no rerank" if r.reranker != "none" else "no rerank (no reranker configured)")

    if request.threshold is not None:
        gate = request.threshold
        reasons.append(f"gate threshold {gate:g} (from the request)")
    else:
        gate = threshold_for(embedder_id, r.gate_threshold, stored_gate)
        source = "configured" if r.gate_threshold is not None else (
            f"calibrated on this store's data for {embedder_id}" if stored_gate is not None
            else f"calibrated for {embedder_id}" if gate > 0 else f"none calibrated for {embedder_id or 'this embedder'}")
        reasons.append(f"gate threshold {gate:g} ({source})")
    judge: GateJudge = "vector"
    if gate > 0 and request.threshold is None:
        foreign = unreadable(query, embedder_id)
        if foreign is not None:
            # a cosine of text the embedder can't read measures the language, not the relevance
            why = (f"the request reads as {foreign.lang} (p {foreign.probability:.2f}), which "
                   f"{embedder_id.split('@')[0]} does not read" if foreign.by != "script" else
                   f"the request is written mostly outside the Latin script ({foreign.probability:.0%} of its "
                   f"letters, reads as {foreign.lang}), which {embedder_id.split('@')[0]} does not read")
            multilingual = r.gate_multilingual_threshold
            gate = judge_threshold(foreign.lang) if multilingual is None else multilingual
            if judge_id and gate > 0:
                judge = "multilingual"
                reasons.append(f"gate judged by {judge_id} over the candidates at {gate:g}: {why}")
            else:
                gate = 0.0
                reasons.append(f"gate not judged: {why}")
    if gate > 0 and request.threshold is None and (base.collections or intent.domains):
        specs = [s for s in (settings.collection(c) for c in collections) if s is not None]
        grounded = grounded_aggregate(query, intent.format, specs)
        if grounded is not None:
            # an aggregate is answered by the records as a whole; its cosine to any one record says nothing
            gate, judge = 0.0, "vector"
            what = (f"a {intent.format} request over {grounded[0]}, which the request names ({grounded[1]!r})"
                    if intent.format != "default" else
                    f"a question counting {grounded[0]} by a stored field it names ({grounded[1]!r})")
            reasons.append(f"gate passed by grounding: {what}; the best cosine is not judged")
    retry = reformulate(intent, query) if gate > 0 else None
    if retry is not None and judge == "multilingual" and not of_its_words(retry, query):
        # the topic keywords are read ASCII-only: "svíčkovou" comes back as "sv kovou", and e5 scores such
        # fragments higher than the request itself (an off-topic Czech request passed on its retry at 0.80)
        reasons.append(f"no reformulation: {retry!r} is not made of the request's own words")
        retry = None
    if gate > 0:
        reasons.append(f"gate judges the fused top {r.gate_depth} before paging; "
                       + (f"below it, retry once as {retry!r}" if retry else "below it, no reformulation to try"))
    relax = f.date_from is not None and base.date_from is None and base.date_to is None
    if relax:
        reasons.append("a planned collection left empty by the horizon is searched again without it")

    return RetrievalPlan(
        query=query,
        collections=collections,
        pattern=pattern,
        legs=legs,
        profile=request.profile,
        k_per_leg=k,
        rrf_k=rrf_k,
        fusion=fusion,
        filter=f,
        limit=request.limit,
        offset=request.offset,
        merge=merge,
        rewrite=rewrite,
        gate_threshold=gate,
        gate_judge=judge,
        graph_seeds=seeds,
        reasons=tuple(reasons),
        rerank=rerank,
        rerank_depth=r.rerank_depth if rerank else 0,
        sub_queries=subs,
        gate_depth=r.gate_depth,
        reformulation=retry,
        relax_horizon=relax,
        graph_passage_seeds=passage_seeds,
        graph_weight=r.graph_weight,
    )
