"""Probe (round 5, no hole found): the keyword leg keeps the default tenant and another apart, on one store.

The default tenant's name is the empty string. Written against the single shared keyword index, where
``inert_clauses`` drops the tenant clause when the term dictionary's first tenant terms are all the caller's: ``''``
sorts first, so a judgement reading one term too few would have let the default tenant's searches see the other
tenant's items (checked then: with ``terms_with_prefix(..., limit=1)`` this test failed). Since d69e9a6 (one
tantivy index per tenant and visibility class) the partition choice and the tenant clause each keep the tenants
apart: re-checked on that code, the test fails only when both ignore the tenant (``wanted_partitions`` returning
every partition and the tenant clause never added), and passes with either one alone. On a fresh store holding
exactly the default tenant and one other, each sees only its own items through the keyword leg, the operator both.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .conftest import Server, backend_server, upload


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with backend_server(None, tmp_path_factory.mktemp("inert-tenant")) as server:  # nothing else in this index
        yield server


def _titles(server: Server, key: str) -> set[str]:
    r = server.client(key).post("/api/search", json={"query": "zephyrine gasket", "profile": "keyword"})
    assert r.status_code == 200, r.text
    return {x["title"] for x in r.json()["results"]}


def test_two_tenants_in_one_keyword_index_one_of_them_the_default(server: Server) -> None:
    for tenant in ("", "solo"):
        editor = server.client(server.key("editor", tenant))
        text = f"# Zephyrine gasket {tenant or 'default'}\n\nThe zephyrine gasket seals the pump.\n"
        assert upload(editor, "gasket.md", text).status_code == 200
    assert _titles(server, server.key("viewer", "")) == {"Zephyrine gasket default"}
    assert _titles(server, server.key("viewer", "solo")) == {"Zephyrine gasket solo"}
    everyone = _titles(server, server.key("admin", "", all_tenants=True))
    assert everyone == {"Zephyrine gasket default", "Zephyrine gasket solo"}
