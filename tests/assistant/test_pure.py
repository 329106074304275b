"""Pure parts of the assistant: constraint arrays, boosts, signals, the retrieval query, Mermaid, tool-call parsing."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from groundsearch.assistant.config import assistants_from
from groundsearch.assistant.dossier import boost_order, constraints_from_sources
from groundsearch.assistant.render import validate_mermaid
from groundsearch.assistant.signals import retrieval_query, update_signals
from groundsearch.models.tool_calls import calls_from_message
from groundsearch.settings import load_settings

ASSISTANT = assistants_from(load_settings(env={}))["default"]


def test_constraint_arrays_are_exact_for_fixed_sources() -> None:
    sources = [
        {"n": 1, "url": "https://b.example/2", "entities": ["hnsw", "pgvector"], "fields": {"product": "PGVector"}},
        {"n": 2, "url": "https://a.example/1", "entities": ["BM25"], "fields": {"authors": ["Ann Lee", "bo chen"],
                                                                             "venue": "SIGIR 2024"}},
        {"n": 3, "url": "https://b.example/2", "entities": ["bm25"], "fields": {}},
        {"n": 4, "url": None, "entities": [], "fields": {"product": "Atlas"}},
    ]
    supported, urls = constraints_from_sources(sources)
    assert supported == ("Ann Lee", "Atlas", "BM25", "bo chen", "hnsw", "PGVector", "SIGIR 2024")
    assert urls == ("https://b.example/2", "https://a.example/1")
    assert constraints_from_sources(list(reversed(sources)))[0] == supported  # order of sources does not matter


@given(st.lists(st.sampled_from(["alpha beta", "gamma", "beta gamma", "delta", "x"]), max_size=8),
       st.lists(st.sampled_from(["alpha", "gamma", "zeta"]), max_size=3))
def test_boost_is_a_permutation_with_matches_first(titles, entities) -> None:
    results = [{"title": t, "snippet": "", "fields": {}, "id": i} for i, t in enumerate(titles)]
    out = boost_order(results, entities)
    assert sorted(r["id"] for r in out) == list(range(len(results)))  # nothing excluded, nothing duplicated
    matched = [any(e in r["title"].split() for e in entities) for r in out]
    assert matched == sorted(matched, reverse=True)


def test_signals_read_replace_and_drop() -> None:
    signals, dropped = update_signals(ASSISTANT, [], "I'm a data scientist with a budget of $2k per month", turn=1)
    assert {s["signal"]: s["value"] for s in signals} == {"role": "data scientist", "budget": "$2k per month"}
    again, dropped = update_signals(ASSISTANT, signals, "Actually the budget is $5k", turn=2)
    assert {s["signal"]: s["value"] for s in again}["budget"] == "$5k" and dropped[0]["reason"] == "replaced"
    gone, dropped = update_signals(ASSISTANT, again, "forget the budget", turn=3)
    assert [s["signal"] for s in gone] == ["role"] and dropped[0]["signal"] == "budget"
    none, _ = update_signals(ASSISTANT, [], "I'm not a manager", turn=1)
    assert none == []
    scale, _ = update_signals(ASSISTANT, [], "We have 2 million documents.", turn=1)
    denied, dropped = update_signals(ASSISTANT, scale, "No, we don't have 2 million documents.", turn=2)
    assert denied == [] and dropped[0]["reason"] == "contradicted"  # measured with the real model's turn


def test_signal_clauses_never_reach_the_query() -> None:
    assert retrieval_query(ASSISTANT, "compare LoRA and QLoRA, I'm a research engineer") == "compare LoRA and QLoRA"
    assert retrieval_query(ASSISTANT, "which index for 2 million documents?") == "which index for 2 million documents?"
    assert retrieval_query(ASSISTANT, "best reranker. Our budget is $300 a month") == "best reranker"


def test_mermaid_subset() -> None:
    assert validate_mermaid("flowchart LR\n  A[Ingest] --> B(Index) -->|query| C{Answer}\n  %% note\n  C --- D") is None
    for bad in ("", "sequenceDiagram\n A->>B: hi", "flowchart TD", "flowchart TD\n A[x\"] --> B",
                "flowchart TD\n A --> B; click A call alert()", "graph XY\n A --> B"):
        assert validate_mermaid(bad) is not None, bad


def test_tool_calls_from_a_llamacpp_text_answer() -> None:
    offered = ["ask_discovery_question"]
    bare = {"content": '{"name": "ask_discovery_question", "arguments": {"signal": "scale", "question": "How many?"}}'}
    calls, text = calls_from_message(bare, offered)
    assert [(c.name, c.arguments["signal"]) for c in calls] == [("ask_discovery_question", "scale")] and text == ""
    tagged = {"content": 'Sure.\n<tool_call>\n{"name": "ask_discovery_question", "arguments": {"signal": "role", '
                         '"question": "Role?"}}\n</tool_call>'}
    calls, text = calls_from_message(tagged, offered)
    assert calls[0].arguments["signal"] == "role" and text == "Sure."
    two = {"content": '{"name": "prepare_dossier", "arguments": "{\\"query\\": \\"q\\"}"} {"name": '
                      '"ask_discovery_question", "arguments": {"signal": "product", "question": "Which?"}}'}
    calls, text = calls_from_message(two, ["prepare_dossier", "ask_discovery_question"])
    assert [c.name for c in calls] == ["prepare_dossier", "ask_discovery_question"] and text == ""
    assert calls[0].arguments == {"query": "q"}
    other = {"content": '{"name": "delete_everything", "arguments": {}}'}
    assert calls_from_message(other, offered) == ((), other["content"])  # not offered: stays text
    wire = {"content": None, "tool_calls": [{"id": "x", "function": {"name": "ask_discovery_question",
                                                                     "arguments": '{"signal": "budget"}'}}]}
    assert calls_from_message(wire, offered)[0][0].arguments == {"signal": "budget"}
