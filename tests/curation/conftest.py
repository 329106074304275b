"""A small dated corpus written straight into a real SQLite store, served by the real app over HTTP, with API
keys for two tenants: every number trending and browse show can be recomputed from this store."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

import pytest

from groundsearch.engine import Engine
from groundsearch.interfaces.api import create_app
from groundsearch.interfaces.api.auth import KeyStore
from groundsearch.models.factory import build_embedder
from groundsearch.settings import load_settings
from groundsearch.types import Chunk, Item, ItemWrite
from tests.api.live import serve

CONFIG = """
[collections.releases]
kind = "records"
fields = { product = "keyword", date = "date", notes = "text", url = "url" }
title = "{product}"
text_fields = ["notes"]
date_field = "date"
url_field = "url"
source_field = "product"

[collections.docs]
kind = "documents"
"""
TODAY = dt.date.today()


def day(ago: int) -> dt.date:
    return TODAY - dt.timedelta(days=ago)


def release(n: int, product: str, ago: int, entities: tuple[str, ...], *, tenant: str = "acme",
            review: dict | None = None, status: str = "published") -> Item:
    return Item(id=f"r{n:03d}", collection="releases", title=f"{product} {n}", text=f"notes {n} " + " ".join(entities),
                url=f"https://example.org/{product}/{n}", date=day(ago), tenant=tenant, status=status,  # type: ignore[arg-type]
                fields={"product": product, "date": day(ago), **(review or {})}, content_hash=f"h{n}")


def corpus() -> list[Item]:
    items = []
    n = 0
    # "vector search": 6 items from 4 products in the last 30 days, 1 per earlier window → rising, VERIFIED
    for product, ago in (("alpha", 2), ("beta", 5), ("gamma", 9), ("delta", 12), ("alpha", 20), ("beta", 28)):
        items.append(release(n := n + 1, product, ago, ("vector search", "rust")))
    for ago in (40, 75, 100, 130):
        items.append(release(n := n + 1, "alpha", ago, ("vector search",)))
    # "rust": steady, 2 per window in the baseline
    for ago in (35, 50, 65, 80, 95, 110, 125, 140):
        items.append(release(n := n + 1, "omega", ago, ("rust",)))
    # "quantization": 2 items from one product only → SPECULATIVE; "graphs": 3 items, 2 products → EMERGING
    for ago in (3, 6):
        items.append(release(n := n + 1, "zeta", ago, ("quantization",)))
    for product, ago in (("eta", 4), ("theta", 8), ("eta", 15)):
        items.append(release(n := n + 1, product, ago, ("graphs",)))
    # another tenant's burst and a draft: neither may ever be counted for acme
    for ago in (1, 2, 3, 4, 5, 6):
        items.append(release(n := n + 1, f"other{ago}", ago, ("secret topic",), tenant="globex"))
    items.append(release(n := n + 1, "alpha", 1, ("draft topic",), status="draft"))
    # review cadence: one verified not due, one due in 10 days, one flagged and 40 days overdue
    items.append(release(n := n + 1, "kappa", 200, ("curation",),
                         review={"review_status": "verified", "next_review_date": day(-100)}))
    items.append(release(n := n + 1, "kappa", 210, ("curation",),
                         review={"review_status": "verified", "next_review_date": day(-10)}))
    items.append(release(n := n + 1, "kappa", 220, ("curation",),
                         review={"review_status": "flagged", "next_review_date": day(40)}))
    return items


def writes(items: list[Item], entities_of) -> list[ItemWrite]:
    return [ItemWrite(item=i, chunks=(Chunk(id=f"{i.id}#0", item_id=i.id, position=0, text=i.text,
                                            entities=entities_of(i)),)) for i in items]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str], Engine]]:
    from groundsearch.store.sqlite import SQLiteStore

    tmp = tmp_path_factory.mktemp("curation")
    (tmp / "groundsearch.toml").write_text(CONFIG, encoding="utf-8")
    settings = load_settings(tmp / "groundsearch.toml", env={}, data_dir=str(tmp / "data"), embedder="hash")
    settings = settings.model_copy(update={"api": settings.api.model_copy(update={
        "local_mode": False, "search_per_minute": 10_000, "preview_per_minute": 10_000})})
    embedder = build_embedder(settings)
    store = SQLiteStore.open(settings.data_dir / "store", dim=embedder.dim)
    store.upsert(writes(corpus(), lambda i: tuple(e for e in ENTITIES if e in i.text)))
    keys = KeyStore(tmp / "keys.json")
    tokens = {"acme": keys.create("viewer", tenant="acme")[1], "globex": keys.create("viewer", tenant="globex")[1]}
    with Engine(settings, store, embedder) as engine, serve(create_app(engine, keys=keys)) as url:
        yield url, tokens, engine


ENTITIES = ("vector search", "rust", "quantization", "graphs", "secret topic", "draft topic", "curation")


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}

