"""Feedback that ranks, conservatively: the bounded boost at its bounds on both backends, and the API's
tenant boundary attacked over real HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from groundsearch.engine import Engine
from groundsearch.interfaces.api import create_app
from groundsearch.interfaces.api.auth import KeyStore
from groundsearch.types import SearchRequest
from tests.api.conftest import fresh
from tests.api.live import FIXTURES, make_settings, serve

QUERY = "vector search configuration"


@pytest.fixture(params=["sqlite", "postgres"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    from groundsearch.models.factory import build_embedder

    settings = make_settings(tmp_path)
    embedder = build_embedder(settings)
    if request.param == "sqlite":
        from groundsearch.store.sqlite import SQLiteStore
        from groundsearch.store.sqlite_telemetry import SQLiteTelemetry

        store, telemetry = (SQLiteStore.open(tmp_path / "store", dim=embedder.dim),
                            SQLiteTelemetry.open(tmp_path / "telemetry.sqlite"))
    else:
        from groundsearch.store.pg_telemetry import PgTelemetry
        from groundsearch.store.postgres import PostgresStore

        dsn = request.getfixturevalue("postgres_database")()
        store, telemetry = PostgresStore.open(dsn, dim=embedder.dim), PgTelemetry.open(dsn)
    with Engine(settings, store, embedder, telemetry=telemetry) as e:
        e.ingest([FIXTURES / "docs"], "docs")
        yield e


def scores(engine: Engine) -> tuple[str, dict[str, float], list[str]]:
    r = engine.search(SearchRequest(query=QUERY, profile="weighted", limit=10))
    best: dict[str, float] = {}
    for hit in r.results:
        best.setdefault(hit.item_id, hit.score)
    assert r.diagnostics.request_id
    return r.diagnostics.request_id, best, [h.id for h in r.results]


def mark(engine: Engine, item: str, useful: bool) -> None:
    rid, _, _ = scores(engine)  # each mark needs a request that showed the item
    engine.add_feedback(rid, item, useful)


def test_boost_at_its_bounds(engine: Engine) -> None:
    rid, base, order = scores(engine)
    top, second, third = list(base)[:3]
    assert scores(engine)[1:] == (base, order)  # no marks: the weighted ranking is the plain one, exactly

    engine.add_feedback(rid, second, True)  # one mark is not evidence
    assert scores(engine)[1:] == (base, order)

    mark(engine, second, True)  # two useful marks: x (1 + 0.03 x 1)
    mark(engine, third, False)
    mark(engine, third, False)  # two "not useful": no lift, and never a penalty
    _, now, _ = scores(engine)
    assert now[second] == pytest.approx(base[second] * 1.03, rel=1e-9)
    assert now[third] == pytest.approx(base[third], rel=1e-12)
    assert now[top] == pytest.approx(base[top], rel=1e-12)

    for useful in (True, False, True):  # many marks: 4 useful of 5 -> x (1 + 0.03 x 0.8)
        mark(engine, second, useful)
    _, many, _ = scores(engine)
    assert many[second] == pytest.approx(base[second] * (1 + 0.03 * 4 / 5), rel=1e-9)
    assert engine.feedback_stats(None, [second, third]) == {second: (4, 5), third: (0, 2)}


def test_unknown_request_or_an_item_it_did_not_show_is_not_found(engine: Engine) -> None:
    from groundsearch.errors import NotFound

    rid, base, _ = scores(engine)
    with pytest.raises(NotFound):
        engine.add_feedback("0" * 32, next(iter(base)), True)
    with pytest.raises(NotFound):
        engine.add_feedback(rid, "docs:never-shown", True)


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    tmp = tmp_path_factory.mktemp("feedback-keyed")
    engine = fresh(tmp, local_mode=False, search_per_minute=1000, preview_per_minute=1000)
    store = KeyStore(tmp / "keys.json")
    keys = {"a": store.create("viewer", tenant="acme")[1], "b": store.create("viewer", tenant="globex")[1],
            "editor_a": store.create("editor", tenant="acme")[1]}
    with engine, serve(create_app(engine, keys=store)) as url:
        yield url, keys


def test_a_tenant_cannot_mark_or_unmark_for_another(keyed: tuple[str, dict[str, str]]) -> None:
    url, keys = keyed
    h = {k: {"Authorization": f"Bearer {v}"} for k, v in keys.items()}
    up = httpx.post(f"{url}/api/items", headers=h["editor_a"], files={
        "file": ("quasar-notes.md", b"# Quasar tuning notes\n\nQuasar tuning for vector search.\n", "text/markdown")})
    assert up.status_code == 200
    a = httpx.post(f"{url}/api/search", json={"query": "quasar tuning"}, headers=h["a"]).json()
    rid_a = a["diagnostics"]["request_id"]
    item_a = next(r["item_id"] for r in a["results"] if r["title"] == "Quasar tuning notes")
    mine = httpx.post(f"{url}/api/feedback", json={"request_id": rid_a, "item_id": item_a, "useful": True},
                      headers=h["a"])
    assert mine.status_code == 201

    # globex replays acme's request id: the request is acme's, so for globex it does not exist
    stolen = httpx.post(f"{url}/api/feedback", json={"request_id": rid_a, "item_id": item_a, "useful": False},
                        headers=h["b"])
    assert stolen.status_code == 404
    # globex names acme's item on a request of its own, which never showed it
    rid_b = httpx.post(f"{url}/api/search", json={"query": "quasar tuning"},
                       headers=h["b"]).json()["diagnostics"]["request_id"]
    planted = httpx.post(f"{url}/api/feedback", json={"request_id": rid_b, "item_id": item_a, "useful": True},
                         headers=h["b"])
    assert planted.status_code == 404
    # and cannot delete acme's mark by its id
    assert httpx.delete(f"{url}/api/feedback/{mine.json()['id']}", headers=h["b"]).status_code == 404
    assert httpx.delete(f"{url}/api/feedback/{mine.json()['id']}", headers=h["a"]).status_code == 204
    assert httpx.delete(f"{url}/api/feedback/{mine.json()['id']}", headers=h["a"]).status_code == 404
    assert httpx.post(f"{url}/api/feedback", json={"request_id": rid_a, "item_id": item_a}, headers=h["a"]
                      ).status_code == 400  # "useful" is required
