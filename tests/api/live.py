"""A real uvicorn server on a free loopback port, in a thread: tests talk to the app over real HTTP."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn

from groundsearch.engine import Engine
from groundsearch.models.factory import build_embedder
from groundsearch.settings import Settings, load_settings

FIXTURES = Path(__file__).parent / "fixtures"

CONFIG = """
[collections.docs]
kind = "documents"
description = "product documentation"

[collections.releases]
kind = "records"
description = "software releases"
fields = { product = "keyword", version = "keyword", date = "date", notes = "text", url = "url" }
title = "{product} {version}"
text_fields = ["notes"]
date_field = "date"
url_field = "url"
table_columns = ["product", "version", "date"]
"""


@contextmanager
def serve(app: Any) -> Iterator[str]:
    """Yield the base URL of ``app`` served by uvicorn until the block ends."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def make_settings(tmp: Path, **overrides: Any) -> Settings:
    config = tmp / "groundsearch.toml"
    config.write_text(CONFIG, encoding="utf-8")
    return load_settings(config, env={}, data_dir=str(tmp / "data"), embedder="hash", **overrides)


def make_engine(tmp: Path, settings: Settings | None = None, *, engine_cls: type[Engine] = Engine) -> Engine:
    """An engine over a real SQLite store holding the fixture corpus; the hash embedder keeps it fast.

    API tests check the adapter (routing, errors, streaming, auth), so ranking quality is not the point here;
    the browser and load tests use the real MiniLM model.
    """
    # Imported here, not at module top: importing usearch (under the SQLite store) before onnxruntime
    # segfaults in this environment, and the browser tests import this module before MiniLM loads.
    from groundsearch.store.sqlite import SQLiteStore

    settings = settings or make_settings(tmp)
    embedder = build_embedder(settings)  # settings.embedder is "hash" here
    store = SQLiteStore.open(settings.data_dir / "store", dim=embedder.dim)
    engine = engine_cls(settings, store, embedder)
    report = engine.ingest([FIXTURES / "docs"], "docs")
    assert not report.errors, report.errors
    report = engine.ingest([FIXTURES / "releases.jsonl"], "releases")
    assert not report.errors, report.errors
    return engine
