"""The planner is pure: same inputs, same plan; each branch of the decision table, and invariants."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings as hsettings, strategies as st

from groundsearch.errors import InvalidFilter, UnknownCollection
from groundsearch.query.gate import CALIBRATED_THRESHOLDS
from groundsearch.query.planner import PLAN_PROFILES, plan_retrieval
from groundsearch.settings import Settings
from groundsearch.types import CollectionSpec, FieldSpec, Hints, Intent, SearchRequest

TODAY = dt.date(2026, 11, 29)

SETTINGS = Settings(
    collections=(
        CollectionSpec(name="docs", kind="documents"),
        CollectionSpec(name="releases", kind="records",
                       fields=(FieldSpec("product"), FieldSpec("date", "date"), FieldSpec("summary", "text"))),
        CollectionSpec(name="papers", kind="records",
                       fields=(FieldSpec("title", "text"), FieldSpec("venue"), FieldSpec("date", "date"))),
    ),
    domains={"docs": ("docs",), "releases": ("releases",), "research": ("papers",), "kg": ("docs", "papers")},
)


def plan(intent: Intent, **request: object):
    return plan_retrieval(intent, SearchRequest(query=request.pop("query", "ai agents"), **request), SETTINGS,
                          tenant=None, today=TODAY)


def test_single_domain_is_a_pipeline() -> None:
    p = plan(Intent(domains=("releases",)))
    assert (p.collections, p.pattern, p.legs, p.merge) == (("releases",), "pipeline", ("keyword", "vector"), "fused_score")
    assert p.filter.collections == ("releases",)
    assert any("releases" in r for r in p.reasons)


def test_several_domains_fan_out() -> None:
    p = plan(Intent(domains=("research", "releases")))
    assert p.collections == ("papers", "releases")
    assert p.pattern == "agentic"


def test_latest_or_trends_merges_by_recency() -> None:
    assert plan(Intent(domains=("research", "releases")), query="latest AI trends").merge == "recency"
    assert plan(Intent(domains=("research", "releases")), query="what is trending in AI").merge == "recency"
    assert plan(Intent(domains=("research", "releases")), query="vector databases").merge == "fused_score"


def test_no_domain_searches_everything_once() -> None:
    p = plan(Intent())
    assert p.collections == () and p.pattern == "pipeline"


def test_unknown_domain_is_ignored_with_a_reason() -> None:
    p = plan(Intent(domains=("weather", "releases")))
    assert p.collections == ("releases",)
    assert any("weather" in r and "ignored" in r for r in p.reasons)


def test_comparison_targets_add_the_graph_leg_with_seeds() -> None:
    p = plan(Intent(domains=("docs",), comparison_targets=("pgvector", "HNSW")), query="pgvector vs HNSW")
    assert p.legs == ("keyword", "vector", "graph")
    assert p.pattern == "kg"
    assert p.graph_seeds[:2] == ("pgvector", "hnsw")


def test_kg_domain_fans_out_with_graph_leg() -> None:
    p = plan(Intent(domains=("kg",), retrieval_pattern="kg"), query="how does OpenAI relate to RAG")
    assert p.pattern == "agentic" and "graph" in p.legs
    assert "openai" in p.graph_seeds


def test_graph_wanted_without_entities_is_skipped_and_said() -> None:
    p = plan(Intent(retrieval_pattern="kg"), query="how do these relate")
    assert "graph" not in p.legs
    assert any("no entity" in r for r in p.reasons)


def test_horizon_becomes_date_from_relative_to_today() -> None:
    p = plan(Intent(horizon_days=90))
    assert p.filter.date_from == TODAY - dt.timedelta(days=90)
    hinted = plan(Intent(horizon_days=90), hints=Hints(horizon_days=30))
    assert hinted.filter.date_from == TODAY - dt.timedelta(days=30)


def test_request_dates_and_collections_win_over_intent() -> None:
    p = plan(Intent(domains=("releases",), horizon_days=90), collections=("papers",),
             filters={"date_from": "2020-01-01"})
    assert p.collections == ("papers",)
    assert p.filter.date_from == dt.date(2020, 1, 1)


def test_request_threshold_wins_over_settings() -> None:
    assert plan(Intent()).gate_threshold == 0.0  # no embedder named: nothing calibrated, so the gate is off
    assert plan(Intent(), threshold=0.4).gate_threshold == 0.4


def test_gate_threshold_is_the_one_calibrated_for_the_embedder_unless_configured() -> None:
    minilm = "all-MiniLM-L6-v2-int8_8199be6f699a"
    p = plan_retrieval(Intent(), SearchRequest(query="ai agents"), SETTINGS, tenant=None, today=TODAY,
                       embedder_id=minilm)
    assert p.gate_threshold == CALIBRATED_THRESHOLDS["all-MiniLM-L6-v2"] and p.gate_depth == 10
    assert any("calibrated for all-MiniLM" in r for r in p.reasons)
    off = SETTINGS.model_copy(update={"retrieval": SETTINGS.retrieval.model_copy(update={"gate_threshold": 0.0})})
    assert plan_retrieval(Intent(), SearchRequest(query="ai agents"), off, tenant=None, today=TODAY,
                          embedder_id=minilm).gate_threshold == 0.0


def test_the_plan_names_the_gate_retry_and_horizon_relaxation() -> None:
    p = plan(Intent(topic_keywords=("zebra", "umbrella"), horizon_days=30), query="tell me about zebra umbrella",
             threshold=0.5)
    assert p.reformulation == "zebra umbrella" and p.relax_horizon
    assert plan(Intent(topic_keywords=("zebra",)), query="zebra things").reformulation is None  # gate off: no retry
    fixed = plan(Intent(horizon_days=30), filters={"date_from": "2026-01-01"})
    assert not fixed.relax_horizon  # the user's own date bound is never relaxed


def test_multi_query_sub_queries_are_in_the_plan() -> None:
    c = plan(Intent(complexity="complex", comparison_targets=("pgvector", "qdrant"), topic_keywords=("latency",)),
             query="pgvector vs qdrant latency")
    assert c.rewrite == "multi_query" and c.sub_queries == ("pgvector latency", "qdrant latency")
    assert any("pgvector latency | qdrant latency" in r for r in c.reasons)


def test_plan_profiles_override_by_name_and_default_overrides_nothing() -> None:
    intent = Intent(complexity="medium", comparison_targets=("pgvector",))

    def with_profile(name: str):
        return plan_retrieval(intent, SearchRequest(query="pgvector index"), SETTINGS, tenant=None, today=TODAY,
                              profile=PLAN_PROFILES[name])

    assert with_profile("default") == plan(intent, query="pgvector index")
    assert with_profile("hybrid").legs == ("keyword", "vector") and with_profile("hybrid").rewrite == "none"
    assert with_profile("bm25").legs == ("keyword",)
    assert with_profile("graph").legs == ("graph",) and with_profile("graph").graph_seeds[0] == "pgvector"
    assert with_profile("hybrid+graph").legs == ("keyword", "vector", "graph")
    assert with_profile("hybrid+rocchio").rewrite == "rocchio"
    assert not with_profile("hybrid+rerank").rerank  # no reranker configured: nothing to run
    e5 = SETTINGS.model_copy(update={"retrieval": SETTINGS.retrieval.model_copy(update={"reranker": "e5"})})
    p = plan_retrieval(intent, SearchRequest(query="pgvector index"), e5, tenant=None, today=TODAY,
                       profile=PLAN_PROFILES["hybrid+rerank"])
    assert p.rerank and p.rerank_depth == e5.retrieval.rerank_depth


def test_rewrite_and_depth_follow_complexity() -> None:
    # dense feedback wherever only the text legs run under z-score fusion (SciFact train +0.006 nDCG@10)
    assert plan(Intent(complexity="simple")).rewrite == "rocchio"
    medium = plan(Intent(complexity="medium"))
    assert medium.rewrite == "rocchio" and any("dense feedback from the top 2" in r for r in medium.reasons)
    c = plan(Intent(complexity="complex", comparison_targets=("a1", "b2")))
    assert plan(Intent(domains=("research", "releases"), complexity="medium"), query="latest").rewrite == "none"
    assert c.rewrite == "multi_query" and c.k_per_leg == 2 * SETTINGS.retrieval.k_per_leg
    assert plan(Intent(complexity="complex")).rewrite == "rocchio"  # nothing to split on
    assert plan(Intent(complexity="complex"), profile="vector").rewrite == "none"
    # not with the graph leg (no gain measured on MuSiQue), nor over RRF (never measured better)
    assert plan(Intent(comparison_targets=("pgvector",))).rewrite == "none"
    assert plan(Intent(), profile="weighted").rewrite == "none"
    assert plan_retrieval(Intent(), SearchRequest(query="ai agents"), SETTINGS, tenant=None, today=TODAY,
                          profile=PLAN_PROFILES["hybrid"]).rewrite == "none"


def test_an_entity_seeking_question_gets_the_graph_leg_and_a_claim_does_not() -> None:
    for q in ("When was the director of Titanic born?", "In which country is Heidelberg University",
              "who founded Qdrant"):
        p = plan(Intent(), query=q)
        assert "graph" in p.legs and any("entity-seeking question" in r for r in p.reasons), q
    for q in ("Qdrant was founded in Berlin.", "How does HNSW build its graph?", "Is pgvector faster than Qdrant?",
              "pgvector index"):
        assert "graph" not in plan(Intent(), query=q).legs, q


def test_single_leg_profiles_drop_the_other_legs() -> None:
    assert plan(Intent(comparison_targets=("x1",)), profile="keyword").legs == ("keyword",)


def test_bad_user_input_is_rejected_by_name() -> None:
    with pytest.raises(UnknownCollection):
        plan(Intent(), collections=("nope",))
    with pytest.raises(InvalidFilter):
        plan(Intent(), filters={"colour": "red"})


domains = st.lists(st.sampled_from(["docs", "releases", "research", "kg", "other"]), max_size=4, unique=True)
intents = st.builds(
    Intent,
    domains=domains.map(tuple),
    retrieval_pattern=st.sampled_from(["pipeline", "agentic", "kg", "hybrid"]),
    format=st.sampled_from(["default", "table", "chart", "timeline", "graph"]),
    horizon_days=st.none() | st.integers(1, 3650),
    comparison_targets=st.lists(st.text(min_size=1, max_size=12), max_size=3).map(tuple),
    topic_keywords=st.lists(st.text(min_size=1, max_size=12), max_size=4).map(tuple),
    complexity=st.sampled_from(["simple", "medium", "complex"]),
)


@given(intents, st.text(min_size=1, max_size=80).filter(lambda s: s.strip() and "\x00" not in s))
@hsettings(max_examples=200, deadline=None)
def test_plans_are_deterministic_and_consistent(intent: Intent, query: str) -> None:
    a = plan(intent, query=query)
    b = plan(intent, query=query)
    assert a == b
    assert set(a.collections) <= set(SETTINGS.collection_names)
    assert a.filter.collections == a.collections
    assert (a.pattern == "agentic") == (len(a.collections) > 1)
    assert ("graph" in a.legs) == bool(a.graph_seeds)
    assert len(a.graph_seeds) <= 8
    if intent.horizon_days:
        assert a.filter.date_from == TODAY - dt.timedelta(days=intent.horizon_days)
    assert a.reasons


def test_a_bridge_question_gets_the_graph_leg_seeded_from_its_named_entities() -> None:
    p = plan(Intent(), query="Who was the first president of the association which published Journal of Psychotherapy "
                              "Integration?")
    assert p.legs == ("keyword", "vector", "graph") and "journal of psychotherapy integration" in p.graph_seeds
    assert p.graph_passage_seeds == 3 and any("bridge question" in r for r in p.reasons)
    assert "graph" not in plan(Intent(), query="Journal of Psychotherapy Integration publisher").legs
    # "which …" asks for an entity, so the graph leg is wanted (session 3, MuSiQue R@5), but nothing is named
    p = plan(Intent(), query="which vector database is fastest")
    assert "graph" not in p.legs and any("names no entity" in r for r in p.reasons)


def test_fusion_is_planned_zscore_for_two_legs_rrf_with_the_graph_leg_and_for_the_baseline() -> None:
    two = plan(Intent(), query="pgvector index")
    assert (two.fusion, two.legs) == ("zscore", ("keyword", "vector"))
    assert any("z-scored" in r for r in two.reasons)
    graph = plan(Intent(comparison_targets=("pgvector",)), query="pgvector index")
    assert "graph" in graph.legs and (graph.fusion, graph.rrf_k) == ("rrf", SETTINGS.retrieval.graph_rrf_k)
    # an entity-seeking question: z-scored text legs, then RRF with the graph's weighted ranks
    asked = plan(Intent(topic_keywords=("pgvector",)), query="Who maintains pgvector?")
    assert "graph" in asked.legs and (asked.fusion, asked.rrf_k) == ("zscore", SETTINGS.retrieval.graph_question_k)
    assert asked.graph_weight == SETTINGS.retrieval.graph_weight and any("then RRF" in r for r in asked.reasons)
    old = plan_retrieval(Intent(topic_keywords=("pgvector",)), SearchRequest(query="Who maintains pgvector?"), SETTINGS, tenant=None, today=TODAY,
                         profile=PLAN_PROFILES["hybrid+graph"])
    assert (old.fusion, old.rrf_k) == ("rrf", SETTINGS.retrieval.graph_rrf_k)  # session 2's fusion, by name
    forced = plan_retrieval(Intent(comparison_targets=("pgvector",)), SearchRequest(query="pgvector index"), SETTINGS,
                            tenant=None, today=TODAY, profile=PLAN_PROFILES["zscore+graph"])
    assert "graph" in forced.legs and forced.fusion == "zscore"
    assert plan(Intent(), query="pgvector index", profile="weighted").fusion == "rrf"  # re-scores RRF's union
    baseline = plan_retrieval(Intent(), SearchRequest(query="pgvector index"), SETTINGS, tenant=None, today=TODAY,
                              profile=PLAN_PROFILES["hybrid"])
    assert (baseline.fusion, baseline.rrf_k) == ("rrf", SETTINGS.retrieval.rrf_k)
    rrf = SETTINGS.model_copy(update={"retrieval": SETTINGS.retrieval.model_copy(update={"fusion": "rrf"})})
    assert plan_retrieval(Intent(), SearchRequest(query="pgvector index"), rrf, tenant=None, today=TODAY).fusion == "rrf"
