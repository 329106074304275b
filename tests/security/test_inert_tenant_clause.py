"""Probe (round 5, no hole found): the keyword leg's dropped filter clauses never drop the tenant wrongly.

The embedded keyword index leaves out a filter clause that "cannot exclude any indexed document", judged from the
term dictionary (``keyword_tantivy.inert_clauses``): with one tenant in the index, the tenant clause goes. The
default tenant's name is the empty string, the first term of the dictionary, so a judgement that read one term too
few would think a two-tenant index holds only the default tenant and let its searches see the other's items. On a
fresh store holding exactly the default tenant and one other, each sees only its own items through the keyword
leg alone, and the operator both. (Checked able to fail: with ``terms_with_prefix(..., limit=1)`` the default
tenant's search returned the other tenant's item.)
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
