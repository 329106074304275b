"""The MCP tool is scoped to one tenant (issue 9, item 9), driven over stdio with the official SDK client.

``groundsearch mcp`` serves the default tenant ``''`` unless ``GROUNDSEARCH_MCP_TENANT`` (or ``--tenant``)
names another; every tenant at once only with ``GROUNDSEARCH_MCP_ALL_TENANTS=true`` (or ``--all-tenants``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from groundsearch.errors import NotFound
from groundsearch.interfaces.mcp_server import FindResult
from groundsearch.types import SearchFilter, SearchRequest

from tests.aio import run_in_own_loop

from .conftest import open_engine

GROUNDSEARCH = Path(sys.executable).parent / "groundsearch"
DOCS = {"": "# Public guide\n\nThe Marmot handbook for everyone.\n",
        "acme": "# Acme plan\n\nThe Marmot acquisition at Acme.\n",
        "globex": "# Globex plan\n\nThe Marmot divestment at Globex.\n"}


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    tmp = tmp_path_factory.mktemp("mcp-tenant")
    ids = {}
    with open_engine(tmp) as engine:
        for tenant, text in DOCS.items():
            path = tmp / f"plan-{tenant or 'public'}.md"
            path.write_text(text)
            assert engine.ingest([path], "docs", tenant=tenant).added == 1
        for tenant in DOCS:
            keys = [k for k, _ in engine.store.keyword_search("marmot", SearchFilter(tenant=tenant), 5).hits]
            ids[tenant] = next(iter(engine.store.hydrate(keys).values())).item.id
    return tmp, ids


def call(tmp: Path, env: dict[str, str], args: list[str], calls: list[dict[str, Any]]) -> list[Any]:
    async def run() -> list[Any]:
        params = StdioServerParameters(command=str(GROUNDSEARCH), args=["--config", str(tmp / "groundsearch.toml"),
                                                                         "--data-dir", str(tmp / "data"), "mcp", *args],
                                       env={"PATH": os.environ.get("PATH", ""), "GROUNDSEARCH_EMBEDDER": "hash",
                                            # the code under test: a worktree's, not the installed one
                                            "PYTHONPATH": os.environ.get("PYTHONPATH", ""), **env},
                                       cwd=str(tmp))
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return [await session.call_tool("find", arguments) for arguments in calls]

    return run_in_own_loop(run, 120)


def _titles(result: Any) -> set[str]:
    assert not result.is_error, result.content[0].text
    return {h.title for h in FindResult.model_validate(result.structured_content).results}


def test_mcp_sees_the_default_tenant_only_by_default(kb: tuple[Path, dict[str, str]]) -> None:
    tmp, ids = kb
    found, similar = call(tmp, {}, [], [{"query": "marmot plan", "limit": 20}, {"similar_to": ids["acme"]}])
    assert _titles(found) == {"Public guide"}
    assert similar.is_error  # another tenant's item is unknown here, not a seed for neighbours


def test_mcp_tenant_setting_scopes_every_call(kb: tuple[Path, dict[str, str]]) -> None:
    tmp, ids = kb
    found, similar, docs = call(tmp, {"GROUNDSEARCH_MCP_TENANT": "acme"}, [], [
        {"query": "marmot plan", "limit": 20}, {"similar_to": ids["acme"], "limit": 20},
        {"query": "marmot", "kind": "documents", "limit": 20}])
    assert _titles(found) == {"Acme plan"} and _titles(docs) == {"Acme plan"}
    assert _titles(similar) == set()
    (flagged,) = call(tmp, {}, ["--tenant", "globex"], [{"query": "marmot plan", "limit": 20}])
    assert _titles(flagged) == {"Globex plan"}


def test_mcp_all_tenants_only_when_configured(kb: tuple[Path, dict[str, str]]) -> None:
    tmp, _ = kb
    (everything,) = call(tmp, {"GROUNDSEARCH_MCP_ALL_TENANTS": "true"}, [], [{"query": "marmot plan", "limit": 20}])
    assert _titles(everything) == {"Public guide", "Acme plan", "Globex plan"}


def call_tools(tmp: Path, env: dict[str, str], calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """``call`` for any of the tools: ``(tool name, arguments)`` pairs, in one session."""
    async def run() -> list[Any]:
        params = StdioServerParameters(command=str(GROUNDSEARCH), args=["--config", str(tmp / "groundsearch.toml"),
                                                                         "--data-dir", str(tmp / "data"), "mcp"],
                                       env={"PATH": os.environ.get("PATH", ""), "GROUNDSEARCH_EMBEDDER": "hash",
                                            # the code under test: a worktree's, not the installed one
                                            "PYTHONPATH": os.environ.get("PYTHONPATH", ""), **env},
                                       cwd=str(tmp))
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return [await session.call_tool(name, arguments) for name, arguments in calls]

    return run_in_own_loop(run, 120)


def test_mcp_chat_and_feedback_stay_in_the_tools_tenant(kb: tuple[Path, dict[str, str]]) -> None:
    """Round 11 probe (held): the ``chat`` and ``feedback`` tools are scoped like ``find``. A tool configured for
    acme chats over acme's sources only; a conversation id another tenant's key started is a new conversation to
    it, never theirs continued; a request id of a globex search is unknown to its ``feedback``; and its own
    conversation is unknown to a globex key and to an acme key (owner ``mcp``)."""
    tmp, ids = kb
    with open_engine(tmp) as engine:
        globex_search = engine.search(SearchRequest(query="marmot plan"), tenant="globex")
        assert any(r.item_id == ids["globex"] for r in globex_search.results)
        from groundsearch.assistant.turn import fold_chat, history, run_turn

        theirs = fold_chat(run_turn(engine, "marmot divestment plan", tenant="globex", search_tenant="globex",
                                    owner="globexkey01"))
    acme = {"GROUNDSEARCH_MCP_TENANT": "acme"}
    chat, again, feedback = call_tools(tmp, acme, [
        ("chat", {"message": "marmot plan"}),
        ("chat", {"message": "marmot plan", "conversation_id": theirs["conversation_id"]}),
        ("feedback", {"request_id": globex_search.diagnostics.request_id, "item_id": ids["globex"], "useful": True}),
    ])
    assert not chat.is_error, chat.content[0].text
    sources = {s["item_id"] for s in chat.structured_content["dossier"]["sources"]}
    assert sources == {ids["acme"]}, sources
    assert again.structured_content["turn"] == 1  # a conversation of its own under that id, not globex's second turn
    assert {s["item_id"] for s in again.structured_content["dossier"]["sources"]} == {ids["acme"]}
    assert feedback.content[0].text.startswith("error: no request"), feedback.content[0].text
    with open_engine(tmp) as engine:
        mine = chat.structured_content["conversation_id"]
        for tenant, owner in (("globex", "globexkey01"), ("acme", "acmekey0001")):
            with pytest.raises(NotFound):
                history(engine, mine, tenant=tenant, owner=owner)
        assert len(history(engine, theirs["conversation_id"], tenant="globex", owner="globexkey01")["turns"]) == 1
        assert engine.feedback_stats("globex", [ids["globex"]]) == {}


def test_attack_similar_to_pages_end_where_the_http_route_ends(kb: tuple[Path, dict[str, str]]) -> None:
    """``/api/items/{id}/similar`` reaches at most 100 neighbours; the MCP tool paged ``similar_to`` up to offset
    10,000, so one call (a model can be talked into it by a retrieved page) asked the store for 40,204 vector
    candidates and read each candidate's vectors: 0.35 s instead of 0.005 s on a 3,000-item store, growing with
    it. Past 100 is now a tool error naming the bound; within it paging is unchanged."""
    tmp, ids = kb
    deep, edge, within = call(tmp, {}, [], [{"similar_to": ids[""], "offset": 10_000},
                                            {"similar_to": ids[""], "offset": 95, "limit": 10},
                                            {"similar_to": ids[""], "offset": 90, "limit": 10}])
    for refused in (deep, edge):
        assert refused.is_error and "100" in refused.content[0].text, refused.content[0].text
    assert not within.is_error, within.content[0].text
