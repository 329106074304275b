"""Tenants whose names are one Unicode normalisation apart stay two tenants (round 11 probe, held).

The operator names tenants; nothing normalises them. ``café`` composed (NFC) and decomposed (NFD), ``acme`` and its
fullwidth ``ａｃｍｅ`` (NFKC folds it to ``acme``), and ``acme`` with a zero-width space are five tenants: each
uploads the same file name and the same record key, and none of them reads, searches, previews, counts or
overwrites another's. Every place a tenant name is keyed — item ids (percent-encoded), upload folders and keyword
partitions (SHA-256 of the exact name), the vector index's tenant codes, the intent cache, budgets, conversations —
compares the exact string; this test would catch any that folded it (NFKC is applied to query text, never to a
tenant). Over the real app with real keys, on SQLite and on the real Postgres.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from urllib.parse import quote

import pytest

from .conftest import Server, backend_server, chat, preview_ids, titles, upload

TENANTS = {
    "nfc": unicodedata.normalize("NFC", "café"),
    "nfd": unicodedata.normalize("NFD", "café"),
    "ascii": "acme",
    "fullwidth": "ａｃｍｅ",
    "zwsp": "ac\u200bme",
}


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with backend_server(request, tmp_path_factory.mktemp(f"unicode-{request.param}")) as server:
        yield server


def test_tenants_one_normalisation_apart_never_cross(server: Server) -> None:
    assert len(set(TENANTS.values())) == 5 and unicodedata.normalize("NFKC", TENANTS["fullwidth"]) == "acme"
    editors = {n: server.client(server.key("editor", t)) for n, t in TENANTS.items()}
    viewers = {n: server.client(server.key("viewer", t)) for n, t in TENANTS.items()}
    for name, editor in editors.items():
        r = upload(editor, "plan.md", f"# Tapir plan {name}\n\nThe tapir migration plan of {name}, secret {name}.\n")
        assert r.status_code == 200 and r.json()["added"] == 1, r.text
        rec = editor.post("/api/items/records", json={"collection": "rel", "records": [
            {"id": "r1", "product": "Tapirdb", "version": name, "notes": f"release notes of {name}"}]})
        assert rec.status_code == 200 and rec.json()["added"] == 1, rec.text  # never "belongs to another tenant"
    for name, viewer in viewers.items():
        own = {f"Tapir plan {name}", f"Tapirdb {name}"}
        for query in ("tapir migration plan secret", "tapirdb release notes"):
            seen = titles(viewer, query)
            assert set(seen) == own and len(seen) == 2, (name, query, seen)  # its two items, nobody else's
        record_id = f"rel:{quote(TENANTS[name], safe='')}:r1"
        got = viewer.get(f"/api/items/{quote(record_id, safe=':')}")
        assert got.status_code == 200 and got.json()["fields"]["version"] == name, (name, got.text)
        for other, tenant in TENANTS.items():
            if other != name:
                theirs = f"rel:{quote(tenant, safe='')}:r1"
                assert viewer.get(f"/api/items/{quote(theirs, safe=':')}").status_code == 404, (name, other)
        previews = preview_ids(viewer, "tapir")
        assert len(previews) == 2 and all(quote(TENANTS[name], safe="") in i for i in previews), (name, previews)
        suggestions = " ".join(viewer.get("/api/search/suggestions").json()["suggestions"]).casefold()
        assert not any(o in suggestions for o in TENANTS if o != name), (name, suggestions)
        dossier = chat(viewer, "tapir migration plan")["dossier"]
        assert dossier["sources"] and {s["title"] for s in dossier["sources"]} <= own, name
    for client in (*editors.values(), *viewers.values()):
        client.close()
