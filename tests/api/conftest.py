from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from groundsearch.engine import Engine
from groundsearch.interfaces.api import create_app

from .live import make_engine, serve


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with make_engine(tmp_path_factory.mktemp("api")) as e:
        yield e


@pytest.fixture(scope="module")
def base_url(engine: Engine) -> Iterator[str]:
    # Generous limits: this server is shared by many tests; the rate-limit tests build their own app.
    api = engine.settings.api.model_copy(update={"search_per_minute": 10_000, "preview_per_minute": 10_000})
    with serve(create_app(engine, engine.settings.model_copy(update={"api": api}))) as url:
        yield url


@pytest.fixture
def client(base_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base_url, timeout=30) as c:
        yield c


def fresh(tmp_path: Path, **api: object) -> Engine:
    from .live import make_settings

    settings = make_settings(tmp_path)
    settings = settings.model_copy(update={"api": settings.api.model_copy(update=api)})
    return make_engine(tmp_path, settings)
