"""Drive `groundsearch mcp` over stdio with the official SDK client: both content kinds, paging, similar-to."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from groundsearch.interfaces.mcp_server import FindHit, FindResult, render_markdown
from tests.aio import run_in_own_loop
from tests.api.live import CONFIG, make_engine, make_settings

GROUNDSEARCH = Path(sys.executable).parent / "groundsearch"


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("mcp")
    with make_engine(tmp, make_settings(tmp)) as engine:  # ingests the fixture corpus into tmp/data
        reviewed = tmp / "reviewed.jsonl"  # one record a curator flagged, for the review filters
        reviewed.write_text('{"product": "Atlas", "version": "0.1", "date": "2020-01-01", "notes": "legacy atlas", '
                            '"review_status": "flagged", "next_review_date": "2021-01-01"}\n', encoding="utf-8")
        assert not engine.ingest([reviewed], "releases").errors
    path = tmp / "server.toml"
    path.write_text(f'data_dir = "{tmp / "data"}"\nembedder = "hash"\n' + CONFIG, encoding="utf-8")
    return path


def call(config: Path, calls: list[dict[str, Any]], tool: str = "find") -> tuple[list[str], list[Any]]:
    async def run() -> tuple[list[str], list[Any]]:
        params = StdioServerParameters(command=str(GROUNDSEARCH), args=["--config", str(config), "mcp"],
                                       env={"PATH": os.environ.get("PATH", "")}, cwd=str(config.parent))
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = [t.name for t in (await session.list_tools()).tools]
            results = [await session.call_tool(tool, arguments) for arguments in calls]
            return tools, results

    return run_in_own_loop(run, 120)


def test_find_returns_markdown_and_structured_content_with_paging(config: Path) -> None:
    tools, (first, second, records, similar, bad) = call(config, [
        {"query": "atlas vector search", "limit": 2},
        {"query": "atlas vector search", "limit": 2, "offset": 2},
        {"query": "atlas release", "kind": "records", "filters": {"product": "Atlas"}},
        {"similar_to": "PLACEHOLDER"},
        {"query": "x", "filters": {"colour": "red"}},
    ])
    assert sorted(tools) == ["chat", "feedback", "find"]

    page1 = FindResult.model_validate(first.structured_content)
    page2 = FindResult.model_validate(second.structured_content)
    assert not first.is_error and len(page1.results) == 2
    assert page1.has_more and page1.next_offset == 2
    assert page2.offset == 2 and {h.id for h in page1.results}.isdisjoint({h.id for h in page2.results})
    markdown = first.content[0].text
    assert first.content[0].type == "text"
    assert page1.results[0].id in markdown and page1.results[0].title in markdown
    assert "offset=2" in markdown

    rec = FindResult.model_validate(records.structured_content)
    assert rec.results and all(h.collection == "releases" and h.title.startswith("Atlas") for h in rec.results)

    assert similar.is_error and "PLACEHOLDER" in similar.content[0].text  # unknown id: a clear tool error
    assert bad.is_error and "colour" in bad.content[0].text


def test_similar_to_and_documents(config: Path) -> None:
    _, (docs,) = call(config, [{"query": "atlas upgrading migration", "kind": "documents", "limit": 5}])
    found = FindResult.model_validate(docs.structured_content)
    assert found.results and len({h.item_id for h in found.results}) == len(found.results)
    assert all(h.collection == "docs" for h in found.results)
    item = found.results[0].item_id
    _, (sim,) = call(config, [{"similar_to": item, "limit": 2}])
    similar = FindResult.model_validate(sim.structured_content)
    assert not sim.is_error and similar.similar_to == item
    assert len(similar.results) == 2 and item not in {h.item_id for h in similar.results}
    assert similar.has_more


def test_markdown_is_truncated_at_10000_characters() -> None:
    hit = FindHit(id="c", item_id="i", collection="docs", title="T", snippet="word " * 300, score=1.0)
    result = FindResult(query="q", similar_to=None, kind="chunks", offset=0, limit=50, has_more=False,
                        next_offset=None, results=[hit] * 50)
    text = render_markdown(result)
    assert len(text) <= 10_000 and text.endswith("the structured content has every result]")
    assert len(render_markdown(result.model_copy(update={"results": [hit]}))) < 10_000


def test_chat_tool_keeps_a_conversation(config: Path) -> None:
    """Two turns over stdio: the second continues the first by its id, and sees the signal it stated."""
    _, (first,) = call(config, [{"message": "atlas release notes"}], tool="chat")
    assert not first.is_error
    cid = first.structured_content["conversation_id"]
    assert f"conversation_id: {cid}" in first.content[0].text
    _, (second,) = call(config, [{"message": "we have 3 million documents", "conversation_id": cid}], tool="chat")
    assert second.structured_content["turn"] == 2
    assert [s["signal"] for s in second.structured_content["dossier"]["qualification_signals"]] == ["scale"]


def test_find_takes_the_review_filters(config: Path) -> None:
    _, (flagged, overdue, bad) = call(config, [
        {"query": "atlas", "kind": "records", "filters": {"review_status": "flagged"}},
        {"query": "atlas", "kind": "records", "filters": {"overdue_review": "true", "freshness": "stale"}},
        {"query": "atlas", "filters": {"review_due_within_days": "0"}},
    ])
    assert [h.title for h in FindResult.model_validate(flagged.structured_content).results] == ["Atlas 0.1"]
    assert [h.title for h in FindResult.model_validate(overdue.structured_content).results] == ["Atlas 0.1"]
    assert bad.is_error and "review_due_within_days" in bad.content[0].text
