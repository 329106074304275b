"""Attack (session 17): the MCP ``find`` tool's ``similar_to`` and ``collections`` had no size limits.

Over HTTP an item id is at most ``MAX_ITEM_ID_CHARS`` characters (``/api/feedback``'s ``item_id``, and the MCP
``feedback`` tool's), a collection name at most ``MAX_COLLECTION_CHARS`` (``/api/items/records``, uploads), and a
repeatable list at most ``MAX_FILTER_VALUES`` values (``/api/browse``); the body limit bounds the rest. Stdio has
no body limit, so a model could hand ``find`` a 200,000-character seed id — looked up in the store and echoed
whole in the error it wrote back into its own context — or 20,000 collection names. Each is now a tool error
naming the field and its limit, short, before any work; driven over stdio with the official SDK client.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from groundsearch.types import MAX_COLLECTION_CHARS, MAX_ITEM_ID_CHARS
from groundsearch.query.filters import MAX_FILTER_VALUES

from .conftest import open_engine
from .test_mcp_tenant import call


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("mcp-bounds")
    with open_engine(tmp) as engine:
        path = tmp / "guide.md"
        path.write_text("# Public guide\n\nThe Marmot handbook for everyone.\n")
        assert engine.ingest([path], "docs").added == 1
    return tmp


def test_attack_oversized_similar_to_and_collections_are_clear_tool_errors(kb: Path) -> None:
    long_id, long_name = "i" * 200_000, "d" * 60_000
    many = ["docs"] * 20_000
    seed, name, names, fine_id, fine_names = call(kb, {}, [], [
        {"similar_to": long_id},
        {"query": "marmot", "collections": [long_name]},
        {"query": "marmot", "collections": many},
        {"similar_to": "i" * MAX_ITEM_ID_CHARS},  # at the limit: an unknown id, not a size error
        {"query": "marmot", "collections": ["docs"] * MAX_FILTER_VALUES},
    ])
    for result, field, limit in ((seed, "similar_to", MAX_ITEM_ID_CHARS), (name, "collections", MAX_COLLECTION_CHARS),
                                 (names, "collections", MAX_FILTER_VALUES)):
        text = result.content[0].text
        assert result.is_error, text[:300]
        assert field in text and str(limit) in text, text[:300]
        assert len(text) < 2_000, f"the error echoes the input: {len(text)} characters"
    assert fine_id.is_error and "no item with id" in fine_id.content[0].text  # the store was asked, as before
    assert not fine_names.is_error and "Public guide" in fine_names.content[0].text
