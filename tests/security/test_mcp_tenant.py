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

from groundsearch.interfaces.mcp_server import FindResult
from groundsearch.types import SearchFilter

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
                                       env={"PATH": os.environ.get("PATH", ""), "GROUNDSEARCH_EMBEDDER": "hash", **env},
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
