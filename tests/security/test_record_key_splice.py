"""Attack on record ids (round 4): a record's own key must not splice another tenant's scope into its id.

A record's id is ``collection:`` + the percent-encoded tenant + ``:`` + its ``id_field`` value, and the default
tenant ``''`` has no tenant segment at all. So a default-tenant editor writing ``{"id": "acme:r1"}`` stored
``rel:acme:r1`` — the id of tenant ``acme``'s record ``r1``. The pipeline's foreign-id guard kept it from
replacing an item acme already had, but a squat made first turned acme's own upload of ``r1`` (its whole file)
into a 400. Over the real app, with real keys, on SQLite and on the real Postgres.
"""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import quote

import pytest

from .conftest import Server, backend_server, titles


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with backend_server(request, tmp_path_factory.mktemp(f"splice-{request.param}")) as server:
        yield server


def _row(key: str, notes: str) -> dict[str, str]:
    return {"id": key, "product": "Vaultcore", "version": "2.0", "notes": notes}


def test_attack_a_default_tenant_key_cannot_squat_another_tenants_record_id(server: Server) -> None:
    """Before the escape the squat landed under ``rel:splice-acme:r1`` and acme's upload of ``r1`` was a 400
    ("item id ... belongs to another tenant; nothing was written"): one row blocked acme's whole file."""
    victim = server.client(server.key("editor", "splice-acme"))
    victim_viewer = server.client(server.key("viewer", "splice-acme"))
    attacker = server.client(server.key("editor", ""))
    squat = attacker.post("/api/items/records", json={"collection": "rel", "records": [
        _row("splice-acme:r1", "squatted by the default tenant")]})
    assert squat.status_code == 200 and squat.json()["added"] == 1, squat.text
    assert victim_viewer.get("/api/items/rel:splice-acme:r1").status_code == 404  # nothing under acme's id

    own = victim.post("/api/items/records", json={"collection": "rel", "records": [
        _row("r1", "genuine release notes of acme"), _row("r2", "more genuine notes of acme")]})
    assert own.status_code == 200, own.text
    assert own.json()["added"] == 2
    item = victim_viewer.get("/api/items/rel:splice-acme:r1")
    assert item.status_code == 200 and "genuine" in item.json()["text"]
    assert "squatted" not in " ".join(h["snippet"] for h in victim_viewer.post(
        "/api/search", json={"query": "squatted vaultcore release notes", "limit": 50}).json()["results"])
    # the attacker's record is its own, under an id of its own
    mine = [h["item_id"] for h in attacker.post("/api/search", json={"query": "squatted default tenant", "limit": 50}
                                                ).json()["results"] if "squatted" in h["snippet"]]
    assert len(mine) == 1 and mine[0] != "rel:splice-acme:r1"
    assert attacker.get(f"/api/items/{quote(mine[0], safe=':')}").status_code == 200
    assert "Vaultcore 2.0" in titles(server.client(server.key("viewer", "")), "squatted default tenant")


def test_attack_keys_that_differ_only_in_escapes_stay_two_records(server: Server) -> None:
    """The encoding that keeps ``:`` out of a default-tenant key must itself be one-to-one: ``a:b`` and the
    literal ``a%3Ab`` are two records, never one replacing the other."""
    editor = server.client(server.key("editor", ""))
    viewer = server.client(server.key("viewer", ""))
    r = editor.post("/api/items/records", json={"collection": "rel", "records": [
        _row("esc:b", "escape test colon"), _row("esc%3Ab", "escape test percent")]})
    assert r.status_code == 200, r.text  # escaping ``:`` alone: "two records share the id" (a 400)
    assert r.json()["added"] == 2
    found = viewer.post("/api/search", json={"query": "escape test", "limit": 50}).json()["results"]
    assert len({h["item_id"] for h in found if "escape test" in h["snippet"]}) == 2
