"""Deeply nested JSON where the API does not parse it itself: uploaded record files (``.json``, ``.jsonl``).

Request bodies nested past the parser's depth were already a 400 (``errors.body_error``); a records file is parsed
by the ingest loader, where Python's ``json`` raises ``RecursionError`` — not a ``JSONDecodeError`` — and the
upload answered ``500 INTERNAL``. A client must get a 400 naming the file and the reason, and nothing stored.
"""

from __future__ import annotations

import pytest

from .conftest import Server


def _post(server: Server, key: str, name: str, body: str):  # type: ignore[no-untyped-def]
    client = server.client(key)
    return client.post("/api/items", files={"file": (name, body.encode(), "application/json")},
                       data={"collection": "rel"})


DEEP = 100_000  # far past the C parser's recursion guard
NEARLY = 990  # parses (just under the default recursion limit), then every walk of the value recurses again


@pytest.mark.parametrize(("name", "body"), [
    ("deep.json", "[" * DEEP + "]" * DEEP),
    ("deep.jsonl", '{"id": "d1", "product": "p", "version": "1", "notes": ' + "[" * DEEP + "]" * DEEP + "}\n"),
    ("nearly.json", '[{"id": "n1", "product": "p", "version": "1", "notes": "x", "extra": '
                    + "[" * NEARLY + "]" * NEARLY + "}]"),
    ("nearly-notes.jsonl", '{"id": "n2", "product": "p", "version": "1", "notes": '
                           + "[" * NEARLY + '"deep"' + "]" * NEARLY + "}\n"),
], ids=["json-deep", "jsonl-deep", "json-nearly", "jsonl-nearly"])
def test_attack_a_deeply_nested_records_file_is_a_400_not_a_500(server: Server, name: str, body: str) -> None:
    key = server.key("editor", f"nest-{name}")
    r = _post(server, key, name, body)
    assert r.status_code == 400, (r.status_code, r.text[:300])
    error = r.json()["error"]
    assert error["code"] == "INGEST_FAILED" and name in error["message"] and "nested" in error["message"], error
    assert _stored(server, f"nest-{name}") == 0
    fine = _post(server, key, "fine.json", '[{"id": "ok1", "product": "p", "version": "1", "notes": "fine"}]')
    assert fine.status_code == 200 and fine.json()["added"] == 1, fine.text  # the server is unharmed


def _stored(server: Server, tenant: str) -> int:
    from groundsearch.types import SearchFilter

    return server.engine.store.count(SearchFilter(tenant=tenant, statuses=("published", "draft", "archived")))


@pytest.mark.parametrize("depth", [40, NEARLY])
def test_attack_deep_values_in_posted_records_are_a_400_not_a_500(server: Server, depth: int) -> None:
    """``POST /api/items/records``: the body parses (under the body parser's depth), but its records are written
    out and read back as JSON lines, where a value this deep was not refused."""
    key = server.key("editor", f"nest-body-{depth}")
    body = '{"collection": "rel", "records": [{"id": "b1", "product": "p", "version": "1", "notes": "x", "extra": ' \
        + "[" * depth + "]" * depth + "}]}"
    r = server.client(key).post("/api/items/records", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 400, (r.status_code, r.text[:300])
    assert "nested" in r.json()["error"]["message"], r.text
