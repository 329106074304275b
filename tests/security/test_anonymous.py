"""Every API route as an anonymous caller (no key, and a malformed one) over the real app with keys required.

The routes are read from the app's own OpenAPI schema, so a route added later without ``requires(...)`` fails here by name.
Only the load-balancer probe (``/api/search/health``, liveness only: ``test_health_disclosure.py``) is open.
"""

from __future__ import annotations

import re

import pytest

from groundsearch.interfaces.api import create_app

from .conftest import Server, open_engine

OPEN = {("GET", "/api/search/health")}


def _routes() -> list[tuple[str, str]]:
    import tempfile
    from pathlib import Path

    engine = open_engine(Path(tempfile.mkdtemp(prefix="gs-anon-")))
    try:
        app = create_app(engine, engine.settings)
        found = sorted({(m.upper(), path) for path, ops in app.openapi()["paths"].items() if path.startswith("/api/")
                        for m in ops})
    finally:
        engine.close()
    assert len(found) > 20, found  # the app's routes were found, not an empty list that passes
    return found


ROUTES = _routes()


@pytest.mark.parametrize(("method", "path"), ROUTES, ids=[f"{m} {p}" for m, p in ROUTES])
@pytest.mark.parametrize("key", [None, "gs_nothex_forged"], ids=["no key", "forged key"])
def test_attack_no_route_answers_an_anonymous_caller(server: Server, method: str, path: str,
                                                     key: str | None) -> None:
    url = re.sub(r"\{[^}]+\}", "x1", path)
    with server.client(key) as c:
        r = c.request(method, url, json={} if method in ("POST", "PUT", "PATCH") else None)
    if (method, path) in OPEN:
        assert r.status_code == 200
    else:
        assert r.status_code == 401, (method, url, r.status_code, r.text[:200])
