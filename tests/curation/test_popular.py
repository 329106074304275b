"""Popular topics come from what the tenant's users searched (telemetry term counts), else from the corpus."""

from __future__ import annotations

import httpx
import pytest

from groundsearch.types import SearchFilter

from .conftest import auth


def popular(url: str, token: str) -> list[str]:
    r = httpx.get(f"{url}/api/search/suggestions", params={"limit": 5}, headers=auth(token))
    assert r.status_code == 200
    return r.json()["suggestions"]


def search(url: str, token: str, query: str) -> None:
    r = httpx.post(f"{url}/api/search", json={"query": query}, headers=auth(token))
    assert r.status_code == 200, r.text


def test_popular_topics_follow_the_tenants_own_searches(served) -> None:
    """Attack: globex searches "rust" (a word of acme's corpus too) more than anyone; acme's popular topics must
    still be acme's searches only (it would fail were the term counts not per tenant: globex's "rust" would lead)."""
    url, tokens, engine = served
    if engine.recorder is None:
        pytest.skip("telemetry is off in this configuration")
    before = popular(url, tokens["acme"])  # no searches yet: the corpus's entities (cold start)
    assert before == [t for t, _ in engine.store.top_terms(SearchFilter(tenant="acme"), 5)]
    for _ in range(4):
        search(url, tokens["globex"], "rust")
    for _ in range(2):
        search(url, tokens["acme"], "quantization")
    search(url, tokens["acme"], "curation")
    assert popular(url, tokens["acme"]) == ["quantization", "curation"]
    # "rust" is no word of globex's own corpus, so its searches stay hashes (never named) and globex sees its
    # corpus's entities; acme's searches never reach it either
    assert popular(url, tokens["globex"]) == ["secret topic"]
