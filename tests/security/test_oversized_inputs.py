"""Oversized and over-many inputs on every endpoint that takes text, over the real app: each is a clear 4xx
naming the limit or the field, and nothing already stored is lost.

A probe with no hole found; each case fails if its bound goes (e.g. without the 200-character filter-value limit
a 60,000-character value is searched, 200; without the body limit 9,000 filter values reach SQLite's variable
limit). Chat messages and bodies are attacked in ``test_chat_bounds.py``, uploads in ``test_uploads.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from .conftest import Server, titles, upload

Q = "orrery ledger"
CASES: dict[str, tuple[Callable[[httpx.Client, httpx.Client], httpx.Response], int, str]] = {
    "many filter values": (lambda c, _: c.post("/api/search", json={
        "query": Q, "filters": {"product": [f"v{i}" for i in range(9000)]}}), 413, "max_bytes"),
    "many filter fields": (lambda c, _: c.post("/api/search", json={
        "query": Q, "filters": {f"k{i}": "v" for i in range(5000)}}), 400, "unknown filter field"),
    "long filter value": (lambda c, _: c.post("/api/search", json={
        "query": Q, "filters": {"product": "v" * 60_000}}), 400, "longer than 200"),
    "long date bound": (lambda c, _: c.post("/api/search", json={
        "query": Q, "filters": {"date_from": "2" * 60_000}}), 400, "longer than 200"),
    "long collection name": (lambda c, _: c.post("/api/search", json={
        "query": Q, "collections": ["d" * 60_000]}), 400, "unknown collection"),
    "long domain hint": (lambda c, _: c.post("/api/search", json={
        "query": Q, "hints": {"domain": "d" * 60_000}}), 400, "hints.domain"),
    "long session id": (lambda c, _: c.post("/api/search", json={"query": Q, "session_id": "s" * 60_000}),
                        400, "session_id"),
    "long GET query": (lambda c, _: c.get("/api/search", params={"q": "orrery " * 2000}), 400, "query.q"),
    "long typeahead": (lambda c, _: c.get("/api/search/preview", params={"q": "a" * 12_000}), 400, "query.q"),
    "many browse filters": (lambda c, _: c.get("/api/browse", params=[
        ("filter", f"product=v{i}") for i in range(1500)]), 400, "the limit is 50"),
    "long browse filter": (lambda c, _: c.get("/api/browse", params={"filter": "product=" + "v" * 12_000}),
                           400, "longer than 200"),
    "many review statuses": (lambda c, _: c.get("/api/browse", params=[("review_status", "verified")] * 1500),
                             400, "the limit is 50"),
    "long browse cursor": (lambda c, _: c.get("/api/browse", params={"cursor": "c" * 5000}), 400, "cursor"),
    "many records": (lambda c, _: c.post("/api/items/records", json={
        "collection": "rel", "records": [{"id": str(i)} for i in range(6000)]}), 413, "max_bytes"),
    "long key label": (lambda _, op: op.post("/api/keys", json={"role": "viewer", "tenant": "t",
                                                                "label": "l" * 60_000}), 400, "label"),
    "long key tenant": (lambda _, op: op.post("/api/keys", json={"role": "viewer", "tenant": "t" * 60_000}),
                        400, "tenant"),
    "long assistant name": (lambda c, _: c.post("/api/chat", json={"message": "hi", "assistant": "a" * 65}),
                            400, "assistant"),
    "many link checks": (lambda c, _: c.post("/api/validate-urls", json={"urls": ["http://example.com/"] * 5000}),
                         413, "max_bytes"),
    "long feedback ids": (lambda c, _: c.post("/api/feedback", json={"request_id": "r" * 65, "item_id": "i",
                                                                     "useful": True}), 400, "request_id"),
}


@pytest.fixture(scope="module")
def clients(server: Server) -> tuple[httpx.Client, httpx.Client]:
    editor = server.client(server.key("editor", "oversized"))
    assert upload(editor, "kept.md", "# Orrery ledger\n\nThe orrery ledger kept before the attack.\n"
                  ).status_code == 200
    return editor, server.client(server.key("admin", "", all_tenants=True))


@pytest.mark.parametrize("case", list(CASES))
def test_attack_an_oversized_input_is_a_clear_4xx_and_nothing_is_lost(
        clients: tuple[httpx.Client, httpx.Client], case: str) -> None:
    send, status, named = CASES[case]
    editor, operator = clients
    r = send(editor, operator)
    assert r.status_code == status, (r.status_code, r.text[:300])
    error: dict[str, Any] = r.json()["error"]
    assert named in str(error), error
    assert "Orrery ledger" in titles(editor, Q)
