"""The typeahead refuses what search refuses, over the real app (HTTP, a real key): one validator
(``query.filters.validate_query``) for both, not a copy that drifts.

Before the fix ``GET /api/search/preview?q=num%00bat`` answered 200 with a list, where every search form answered
400 for the same text; the preview passed it on to the store's LIKE / title scan, the path that 500ed on Postgres
for other routes (test_nul_bytes.py).
"""

from __future__ import annotations

import pytest

from groundsearch.types import MAX_QUERY_CHARS

from .conftest import Server, upload

CASES = {
    "nul": "num\x00bat",
    "nul at the end": "numbat\x00",
    "nul inside spaces": "  \x00  ",
    "over-long": "numbat " * (MAX_QUERY_CHARS // 7 + 1),
    "padded": "   numbat   ",
    "plain": "numbat",
}


def _verdict(r) -> tuple[int, str | None]:
    return r.status_code, (r.json().get("error") or {}).get("code") if r.status_code >= 400 else None


@pytest.mark.parametrize("case", list(CASES))
def test_attack_the_preview_takes_a_query_search_refuses(server: Server, case: str) -> None:
    q = CASES[case]
    with server.client(server.key("editor", "preview-nul")) as c:
        assert upload(c, "numbat.md", "# Numbat notes\n\nNumbats eat termites.\n").status_code == 200
        searched = _verdict(c.get("/api/search", params={"q": q}))
        posted = _verdict(c.post("/api/search", json={"query": q}))
        previewed = c.get("/api/search/preview", params={"q": q})
    assert searched == posted, (searched, posted)
    assert _verdict(previewed) == searched, f"preview answered {previewed.status_code} where search answered {searched}"
    if searched[0] == 200:
        assert [i["title"] for i in previewed.json()["items"]] == ["Numbat notes"]


def test_an_empty_prefix_is_still_an_empty_list(server: Server) -> None:
    """The one documented difference: the typeahead is asked before anything is typed, and answers nothing."""
    with server.client(server.key("viewer", "preview-nul")) as c:
        for q in ("", "   "):
            r = c.get("/api/search/preview", params={"q": q})
            assert r.status_code == 200 and r.json()["items"] == []
