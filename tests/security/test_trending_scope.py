"""Trending as an attacker sees it, on SQLite and on the real Postgres: ``/api/trending`` and the trending table a
"what's trending" search carries must count only the caller's own tenant's published items.

The fixture corpus (tests/curation/conftest.py) plants another tenant's burst ("secret topic", six items from
six sources: it would rank first) and a draft of the caller's own tenant ("draft topic"). A viewer of acme — and
an editor of acme asking for drafts — must see neither; globex sees its own burst only.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from groundsearch.engine import Engine
from groundsearch.interfaces.api import create_app
from groundsearch.interfaces.api.auth import KeyStore
from groundsearch.models.factory import build_embedder
from groundsearch.settings import load_settings
from tests.api.live import serve
from tests.curation.conftest import CONFIG, ENTITIES, corpus, writes

HIDDEN = {"secret topic", "draft topic"}


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict]]:
    tmp: Path = tmp_path_factory.mktemp(f"trend-{request.param}")
    (tmp / "groundsearch.toml").write_text(CONFIG, encoding="utf-8")
    settings = load_settings(tmp / "groundsearch.toml", env={}, data_dir=str(tmp / "data"), embedder="hash")
    settings = settings.model_copy(update={"api": settings.api.model_copy(update={
        "local_mode": False, "search_per_minute": 10_000, "preview_per_minute": 10_000})})
    embedder = build_embedder(settings)
    if request.param == "postgres":
        from groundsearch.store.postgres import PostgresStore

        dsn = request.getfixturevalue("postgres_database")()
        settings = settings.model_copy(update={"database_url": dsn})
        store = PostgresStore.open(dsn, dim=embedder.dim)
    else:
        from groundsearch.store.sqlite import SQLiteStore

        store = SQLiteStore.open(settings.data_dir / "store", dim=embedder.dim)
    store.upsert(writes(corpus(), lambda i: tuple(e for e in ENTITIES if e in i.text)))
    keys = KeyStore(tmp / "keys.json")
    tokens = {"viewer": keys.create("viewer", tenant="acme")[1], "editor": keys.create("editor", tenant="acme")[1],
              "globex": keys.create("viewer", tenant="globex")[1]}
    with Engine(settings, store, embedder) as engine, serve(create_app(engine, keys=keys)) as url:
        yield url, {k: {"Authorization": f"Bearer {v}"} for k, v in tokens.items()}


def _searched_topics(url: str, headers: dict, **body) -> set[str]:  # type: ignore[no-untyped-def]
    r = httpx.post(f"{url}/api/search", json={"query": "what's trending in the last 30 days?", **body},
                   headers=headers, timeout=60)
    assert r.status_code == 200, r.text
    tables = [s for s in r.json()["structured_results"] if s.get("collection") == "trending"]
    assert tables, "no trending table: the probe would prove nothing"
    return {row[0] for t in tables for row in t["rows"]}


@pytest.mark.parametrize("mode", ["default", "temporal", "thematic"])
def test_attack_trending_counts_only_the_callers_published_items(served: tuple[str, dict], mode: str) -> None:
    url, auth = served
    for who in ("viewer", "editor"):
        r = httpx.get(f"{url}/api/trending", params={"horizon_days": 30, "mode": mode}, headers=auth[who])
        assert r.status_code == 200, r.text
        shown = {t["topic"] for t in r.json()["topics"]} | {name for t in r.json()["topics"]
                                                           for name, _ in t.get("related", [])}
        assert shown and not shown & HIDDEN, (who, shown)
    theirs = httpx.get(f"{url}/api/trending", params={"horizon_days": 30, "mode": mode}, headers=auth["globex"])
    assert {t["topic"] for t in theirs.json()["topics"]} == {"secret topic"}  # the burst exists, for its tenant


def test_attack_the_trending_table_of_a_search_stays_in_the_tenant(served: tuple[str, dict]) -> None:
    url, auth = served
    assert not _searched_topics(url, auth["viewer"]) & HIDDEN
    assert "draft topic" not in _searched_topics(url, auth["editor"])  # drafts only when asked for
    assert "secret topic" not in _searched_topics(url, auth["editor"], include_drafts=True)
    assert _searched_topics(url, auth["globex"]) == {"secret topic"}
