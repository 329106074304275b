"""Query-language and LIKE syntax in user text over the real app (round 10), on SQLite and on the real Postgres.

tests/security/test_query_syntax.py drives the stores directly; this goes through the routes users call —
search (JSON and GET), its field filters, browse filters, preview — with the characters a query parser or a
``LIKE`` pattern gives meaning to: ``"``, ``*``, ``NEAR``, ``-``, ``%``, ``_``, ``\\``, ``field:term``,
unbalanced parentheses. Every one must be answered (200, or a 400 that says what is wrong; never a 500),
must stay inside the caller's tenant and published items, and a filter value must match only itself.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .conftest import Server, backend_server

TENANT, OTHER = "syntax-r10", "syntax-r10-other"
PRODUCTS = ["Acme", "Ac%e", "A_me", "Ac\\me", "Acme*", "(Acme", 'Ac"me', "Beta"]
TEXTS = ['"', "*", "NEAR(acme beta)", "acme NEAR/2 beta", "-acme", "acme -beta", "%", "%acme%", "_", "a_me", "\\",
         "acme\\", "title:acme", "tenant:" + OTHER, "status:draft", "product:Acme", "(acme", "acme)", "((acme",
         '"acme', 'acme"', "acme AND", "OR", "NOT acme", "acme^9", "acme~2", "[a TO z]", "{acme", "+acme", "acme*",
         "*:*", "'; DROP TABLE items; --", "acme' OR '1'='1", "\\\"acme\\\"", "acme:*", "ac*me", "?", "a OR b OR"]


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with backend_server(request, tmp_path_factory.mktemp(f"syntax-{request.param}")) as served:
        editor = served.client(served.key("editor", TENANT))
        rows = [{"id": f"p{i}", "product": p, "version": "1.0", "notes": f"acme beta release notes {i}"}
                for i, p in enumerate(PRODUCTS)]
        r = editor.post("/api/items/records", json={"collection": "rel", "records": rows})
        assert r.status_code == 200 and r.json()["added"] == len(PRODUCTS), r.text
        other = served.client(served.key("editor", OTHER))
        r = other.post("/api/items/records", json={"collection": "rel", "records": [
            {"id": "x1", "product": "Acme", "version": "other-9z", "notes": "acme beta secret of the other tenant"}]})
        assert r.status_code == 200, r.text
        yield served


def _answered(r: object) -> None:
    assert r.status_code in (200, 400), (r.status_code, r.text[:300])  # type: ignore[attr-defined]
    if r.status_code == 400:  # type: ignore[attr-defined]
        code = r.json()["error"]["code"]  # type: ignore[attr-defined]
        assert code in ("VALIDATION_FAILED", "INVALID_QUERY", "INVALID_FILTER"), code


def _products(hits: list[dict]) -> list[str]:
    return sorted(h["fields"]["product"] for h in hits)


@pytest.mark.parametrize("text", TEXTS)
def test_attack_syntax_in_the_query_is_answered_and_stays_in_the_tenant(server: Server, text: str) -> None:
    viewer = server.client(server.key("viewer", TENANT))
    for r in (viewer.post("/api/search", json={"query": text, "limit": 100}),
              viewer.post("/api/search", json={"query": text, "limit": 100, "profile": "keyword"}),
              viewer.get("/api/search", params={"q": text}),
              viewer.get("/api/search/preview", params={"q": text})):
        _answered(r)
        assert "other-9z" not in r.text and "secret of the other tenant" not in r.text, r.text[:500]


@pytest.mark.parametrize("value", PRODUCTS + ["%", "_", "*", "A%", "Ac_e", "\\", "acme", "Ac\\%e"])
def test_attack_a_filter_value_matches_only_itself(server: Server, value: str) -> None:
    """A ``LIKE``-compiled filter would let ``%`` match every product and ``A_me`` match ``Acme``; keyword values
    compare case-insensitively, nothing more."""
    viewer = server.client(server.key("viewer", TENANT))
    expected = [p for p in PRODUCTS if p.casefold() == value.casefold()]
    r = viewer.post("/api/search", json={"query": "acme beta release notes", "limit": 100,
                                         "filters": {"product": value}})
    _answered(r)
    assert set(_products(r.json()["results"])) == set(expected), r.json()["results"]
    r = viewer.get("/api/browse", params={"filter": f"product={value}", "limit": 100})
    _answered(r)
    assert [i["fields"]["product"] for i in r.json()["items"]] == expected, r.json()["items"]


@pytest.mark.parametrize("prefix", ["%", "_", "\\", "Ac%", "A_", "Ac\\", "(", '"'])
def test_attack_preview_wildcards_are_literal(server: Server, prefix: str) -> None:
    viewer = server.client(server.key("viewer", TENANT))
    r = viewer.get("/api/search/preview", params={"q": prefix, "limit": 20})
    _answered(r)
    titles = [i["title"] for i in r.json()["items"]]
    assert all(prefix.casefold() in t.casefold() for t in titles), titles
