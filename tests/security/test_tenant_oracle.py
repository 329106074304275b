"""Attack on item ids (round 10): may an upload learn that an id exists in another tenant?

Ids carry their tenant unambiguously (ingest/ids.py), but a store written before that encoding (5b43b22 left
tenants unescaped, 44052e9 default-tenant record keys) can hold an item whose id reads as another tenant's:
tenant ``x:b``'s record ``c`` stored as ``rel:x:b:c`` is tenant ``x``'s record ``b:c``. Ingest refused to
overwrite it and said why — "item id 'rel:x:b:c' belongs to another tenant" — so tenant ``x`` could probe,
record key by record key, which items tenant ``x:b`` (or the default tenant) has. Each case plants what the
older code wrote, reopens the store as an upgraded server does, and compares the probe's answer with the
answer for a fresh id. Over the real app, with real keys, on SQLite and on the real Postgres.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

import pytest

from groundsearch.interfaces.api import create_app
from groundsearch.interfaces.api.auth import KeyStore
from groundsearch.types import Chunk, Item, ItemWrite
from tests.api.live import serve

from .conftest import Server, on_postgres, open_engine

# (owner tenant, the id the older code gave its record, the prober's tenant, the key the prober uploads)
LEGACY = [
    ("oracle-x:b", "rel:oracle-x:b:c", "oracle-x", "b:c"),  # before 5b43b22: tenant not percent-encoded
    ("", "rel:oracle-y:r1", "oracle-y", "r1"),  # before 44052e9: default-tenant key "oracle-y:r1" not escaped
]


def _legacy_write(tenant: str, item_id: str) -> ItemWrite:
    text = f"confidential roadmap of {tenant or 'the default tenant'}"
    item = Item(id=item_id, collection="rel", title="Vaultcore 9.9", text=text, tenant=tenant,
                fields={"id": item_id.split(":", 1)[1], "product": "Vaultcore", "version": "9.9", "notes": text},
                content_hash=f"legacy-{item_id}", source="/old/records.jsonl")
    return ItemWrite(item=item, chunks=(Chunk(id=f"{item_id}#0", item_id=item_id, position=0, text=text),))


@contextmanager
def upgraded_server(request: pytest.FixtureRequest, tmp: Path) -> Iterator[Server]:
    """A server over a store an older version wrote ``LEGACY`` into, reopened by this version."""
    engine = open_engine(tmp)
    dsn = request.getfixturevalue("postgres_database")() if request.param == "postgres" else None
    if dsn is not None:
        engine = on_postgres(engine, dsn)
    engine.store.upsert([_legacy_write(owner, item_id) for owner, item_id, _, _ in LEGACY])
    engine.store.meta_set("id_scheme", "0")  # the older version's store: no id scheme recorded
    engine.close()
    engine = open_engine(tmp)
    if dsn is not None:
        engine = on_postgres(engine, dsn)
    keys = KeyStore(tmp / "keys.json")
    with engine, serve(create_app(engine, engine.settings, keys=keys)) as url:
        yield Server(url, engine, keys, tmp)


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with upgraded_server(request, tmp_path_factory.mktemp(f"oracle-{request.param}")) as served:
        yield served


def _row(key: str, notes: str) -> dict[str, str]:
    return {"id": key, "product": "Vaultcore", "version": "1.0", "notes": notes}


def _answer(r: object) -> tuple[int, dict[str, object]]:
    body = r.json()  # type: ignore[attr-defined]
    return r.status_code, {k: v for k, v in body.items() if k != "seconds"}  # type: ignore[attr-defined]


@pytest.mark.parametrize(("owner", "legacy_id", "prober", "key"), LEGACY)
def test_attack_an_upload_cannot_tell_another_tenants_id_from_a_fresh_one(
        server: Server, owner: str, legacy_id: str, prober: str, key: str) -> None:
    """Before the fix the probe of the planted id was a 400 naming it ("belongs to another tenant"), the probe
    of a fresh key a 200 with ``added: 1``: one bit per key about another tenant's items."""
    attacker = server.client(server.key("editor", prober))
    probe = attacker.post("/api/items/records", json={"collection": "rel", "records": [_row(key, "probe")]})
    fresh = attacker.post("/api/items/records", json={"collection": "rel", "records": [
        _row(key + "-fresh", "fresh")]})
    assert _answer(probe) == _answer(fresh), (probe.text, fresh.text)
    assert probe.status_code == 200 and probe.json()["added"] == 1
    # the prober's record is its own, under the id its key gives it
    mine = attacker.get(f"/api/items/{quote(legacy_id, safe=':')}")
    assert mine.status_code == 200 and "probe" in mine.json()["text"], mine.text
    assert "confidential" not in mine.text

    # the owner's item is untouched: same text, still the owner's alone, still found by the owner
    viewer = server.client(server.key("viewer", owner))
    hits = viewer.post("/api/search", json={"query": "confidential roadmap vaultcore", "limit": 50}).json()
    theirs = [h for h in hits["results"] if "confidential" in h["snippet"]]
    assert len(theirs) == 1, hits
    item = viewer.get(f"/api/items/{quote(theirs[0]['item_id'], safe=':')}")
    assert item.status_code == 200 and item.json()["text"] == f"confidential roadmap of {owner or 'the default tenant'}"
    assert attacker.get(f"/api/items/{quote(theirs[0]['item_id'], safe=':')}").status_code == 404
    seen = attacker.post("/api/search", json={"query": "confidential roadmap vaultcore", "limit": 50}).json()
    assert not [h for h in seen["results"] if "confidential" in h["snippet"]]
