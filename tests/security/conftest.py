"""A real server with API keys from a real ``KeyStore``, shared by the attack tests of one module.

Tests use tenant names unique to themselves, so they can share one server without seeing each other's items.
The hash embedder keeps ingest fast: these tests check who may see and change what, not ranking quality.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import httpx
import numpy as np
import pytest

from groundsearch.engine import Engine
from groundsearch.interfaces.api import create_app
from groundsearch.interfaces.api.auth import KeyStore
from groundsearch.settings import load_settings
from tests.api.live import serve

CONFIG = """
[collections.docs]
kind = "documents"

[collections.notes]
kind = "documents"

[collections.rel]
kind = "records"
id_field = "id"
title = "{product} {version}"
text_fields = ["notes"]
fields = { id = "keyword", product = "keyword", version = "keyword", notes = "text" }
"""


@dataclass
class Server:
    url: str
    engine: Engine
    keys: KeyStore
    tmp: Path

    def key(self, role: str, tenant: str, **kw: Any) -> str:
        return self.keys.create(role, tenant=tenant, **kw)[1]

    def client(self, key: str | None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=60)


TERMINAL = ("completed", "failed", "cancelled")


def wait_until(ready: Callable[[], bool], seconds: float = 300, what: str = "condition") -> None:
    """Poll ``ready`` until it holds. The deadline is a liveness bound far above any measured figure, so a slow,
    busy machine makes the test slower, never red."""
    deadline = time.monotonic() + seconds
    while not ready():
        assert time.monotonic() < deadline, f"{what} did not hold within {seconds}s"
        time.sleep(0.05)


POLL_FIRST_S, POLL_MAX_S = 0.05, 2.0  # job polling backs off to one request per 2 s: 30 a minute at most


def wait_job(c: httpx.Client, job_id: str, seconds: float = 300) -> dict[str, Any]:
    """The job's final state once it leaves queued/running (a liveness bound, not a speed check).

    A job's status is read from the key's preview budget (``api.preview_per_minute``, 60 by default), so polling
    backs off (0.05 s doubling to ``POLL_MAX_S``) and a 429 is waited out for its ``Retry-After``: polling ten
    times a second spent the budget in 6 s, and any job slower than that failed the test for the machine's
    speed. The product's limit is left as it is."""
    deadline = time.monotonic() + seconds
    pause = POLL_FIRST_S
    while True:
        r = c.get(f"/api/jobs/{job_id}")
        if r.status_code == 429:
            wait = float(r.headers.get("Retry-After", POLL_MAX_S))
            assert time.monotonic() + wait < deadline, f"job status still rate limited after {seconds}s: {r.text}"
            time.sleep(wait)
            continue
        assert r.status_code == 200, r.text
        job = r.json()
        if job["status"] in TERMINAL:
            return job
        assert time.monotonic() < deadline, f"job still {job['status']} after {seconds}s: {job}"
        time.sleep(pause)
        pause = min(POLL_MAX_S, pause * 2)


def stop(proc: subprocess.Popen[str]) -> None:
    """End a ``groundsearch serve`` subprocess: asked first, so it closes its store; killed if it hangs, and reaped
    either way so no server outlives the test holding its port or data directory."""
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


def open_engine(tmp: Path, **chat: Any) -> Engine:
    """The security engine on SQLite in ``tmp``, with ``chat`` settings over the defaults."""
    from groundsearch.models.factory import build_embedder
    from groundsearch.store.sqlite import SQLiteStore  # after the embedder import (see tests/api/live.py)

    config = tmp / "groundsearch.toml"
    config.write_text(CONFIG, encoding="utf-8")
    settings = load_settings(config, env={}, data_dir=str(tmp / "data"), embedder="hash")
    api = settings.api.model_copy(update={"local_mode": False, "search_per_minute": 100_000,
                                          "preview_per_minute": 100_000, "ingest_per_minute": 100_000,
                                          "keys_per_minute": 100_000})
    settings = settings.model_copy(update={"api": api, "chat": settings.chat.model_copy(update=chat)})
    embedder = build_embedder(settings)
    return Engine(settings, SQLiteStore.open(settings.data_dir / "store", dim=embedder.dim), embedder)


def on_postgres(engine: Engine, dsn: str) -> Engine:
    """``engine``'s settings and embedder over the real Postgres at ``dsn``: items, conversations and telemetry
    all in that database (``engine`` is closed)."""
    from groundsearch.store.pg_telemetry import PgTelemetry
    from groundsearch.store.postgres import PostgresStore

    settings = engine.settings.model_copy(update={"database_url": dsn})
    embedder = engine.embedder
    engine.close()
    return Engine(settings, PostgresStore.open(dsn, dim=embedder.dim), embedder, telemetry=PgTelemetry.open(dsn))


@contextmanager
def backend_server(request: pytest.FixtureRequest | None, tmp: Path, **chat: Any) -> Iterator[Server]:
    """The security server on the backend ``request.param`` names (``sqlite`` or ``postgres``; SQLite when
    ``request`` is ``None``), with ``chat`` settings over the defaults."""
    engine = open_engine(tmp, **chat)
    if request is not None and request.param == "postgres":
        engine = on_postgres(engine, request.getfixturevalue("postgres_database")())
    keys = KeyStore(tmp / "keys.json")
    with engine, serve(create_app(engine, engine.settings, keys=keys)) as url:
        yield Server(url, engine, keys, tmp)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("security")
    engine = open_engine(tmp)
    keys = KeyStore(tmp / "keys.json")
    with engine, serve(create_app(engine, engine.settings, keys=keys)) as url:
        yield Server(url, engine, keys, tmp)


class GatedEmbedder:
    """The hash embedder, but batch ``hold_at`` waits for ``release``: an ingest job is provably mid-file."""

    def __init__(self, inner: Any, hold_at: int) -> None:
        self.inner, self.dim, self.model_id = inner, inner.dim, inner.model_id
        self.hold_at, self.calls = hold_at, 0
        self.holding, self.release = threading.Event(), threading.Event()
        self.batches: list[str] = []  # each batch's texts, joined: which file the worker embedded when

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed_queries(texts)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        self.batches.append(" ".join(texts))
        if self.calls == self.hold_at:
            self.holding.set()
            assert self.release.wait(60), "the test never released the embedder"
        return self.inner.embed_passages(texts)


class Gated(NamedTuple):
    url: str
    keys: KeyStore | None  # None: local mode
    embedder: GatedEmbedder


@contextmanager
def gated_server(tmp: Path, *, keyed: bool = False, hold_at: int = 2, background: bool = False,
                 **api: Any) -> Iterator[Gated]:
    """A real server whose embedder holds batch ``hold_at`` (0: never), with API keys when ``keyed`` (local mode
    otherwise) and ``api`` settings over the defaults; the embedder is released when the server stops. With
    ``background``, vectors are filled by the background embedder, as under ``groundsearch serve``."""
    from groundsearch.models.factory import build_embedder
    from groundsearch.store.sqlite import SQLiteStore  # after the embedder import (see tests/api/live.py)

    config = tmp / "groundsearch.toml"
    config.write_text(CONFIG, encoding="utf-8")
    settings = load_settings(config, env={}, data_dir=str(tmp / "data"), embedder="hash")
    settings = settings.model_copy(update={"api": settings.api.model_copy(update={"local_mode": not keyed, **api})})
    embedder = GatedEmbedder(build_embedder(settings), hold_at=hold_at)
    engine = Engine(settings, SQLiteStore.open(settings.data_dir / "store", dim=embedder.dim), embedder)
    keys = KeyStore(tmp / "keys.json") if keyed else None
    if background:
        engine.start_background_embedding(interval=0.05)
    try:
        with engine, serve(create_app(engine, keys=keys)) as url:
            yield Gated(url, keys, embedder)
    finally:
        embedder.release.set()


@pytest.fixture
def held(tmp_path: Path) -> Iterator[Gated]:
    """A keyed server whose embedder holds the second batch: the first big upload stays mid-file, and later
    uploads stay queued behind it."""
    with gated_server(tmp_path, keyed=True) as served:
        yield served


def chat(client: httpx.Client, message: str, **body: Any) -> dict[str, Any]:
    r = client.post("/api/chat", json={"message": message, **body})
    assert r.status_code == 200, r.text
    return r.json()


def upload(client: httpx.Client, name: str, text: str, collection: str | None = None) -> httpx.Response:
    data = {"collection": collection} if collection else {}
    return client.post("/api/items", files={"file": (name, text.encode(), "text/markdown")}, data=data)


def upload_file(client: httpx.Client, name: str, body: bytes, *, background: bool = True) -> httpx.Response:
    """POST one markdown file to /api/items, as a background job (202 and a job id) unless ``background`` is off."""
    params = {"background": "true"} if background else {}
    return client.post("/api/items", params=params, files={"file": (name, body, "text/markdown")})


def titles(client: httpx.Client, query: str, **body: Any) -> list[str]:
    r = client.post("/api/search", json={"query": query, "limit": 50, **body})
    assert r.status_code == 200, r.text
    return [x["title"] for x in r.json()["results"]]


def preview_ids(client: httpx.Client, prefix: str) -> list[str]:
    r = client.get("/api/search/preview", params={"q": prefix, "limit": 20})
    assert r.status_code == 200, r.text
    return [x["item_id"] for x in r.json()["items"]]


CHROMIUM = "/usr/bin/chromium"


@contextmanager
def local_app(tmp: Path, plant: Any) -> Iterator[str]:
    """The API fixture corpus in local mode (the web page's own mode), plus what ``plant(client)`` uploads."""
    from tests.api.live import make_engine, make_settings

    with make_engine(tmp, make_settings(tmp)) as engine, serve(create_app(engine)) as url:
        with httpx.Client(base_url=url, timeout=60) as c:
            plant(c)
        yield url


@contextmanager
def offline_page() -> Iterator[Any]:
    """One page of headless Debian Chromium that can reach 127.0.0.1 only."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--disable-gpu", "--disable-quic"])
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.route("**/*", lambda r: r.continue_() if r.request.url.startswith("http://127.0.0.1") else r.abort())
        yield context.new_page()
        browser.close()


def web_fixtures(url_name: str, plant: Any) -> tuple[Any, Any]:
    """Module fixtures ``<url_name>`` (``local_app`` with ``plant``) and ``page`` (``offline_page`` over it);
    assign both in the test module: ``planted, page = web_fixtures("planted", plant)``."""

    @pytest.fixture(scope="module", name=url_name)
    def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
        with local_app(tmp_path_factory.mktemp(url_name), plant) as base:
            yield base

    @pytest.fixture(scope="module", name="page")
    def page(request: pytest.FixtureRequest) -> Iterator[Any]:
        request.getfixturevalue(url_name)  # the server first, so the page's first load finds it
        with offline_page() as opened:
            yield opened

    return url, page
