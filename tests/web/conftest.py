"""Headless Debian Chromium (Playwright with ``executable_path``) against the real app on the real demo corpus.

The demo engine is the integration suite's (real SQLite store, real MiniLM, the full pipeline, no LLM). Every
request that leaves 127.0.0.1 is aborted and counted, so the page is proven to work offline (the chart library
is served by the app from the installed ``plotly`` package).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from groundsearch.engine import Engine
from groundsearch.interfaces.api import create_app
from tests.api.live import serve
from tests.integration.conftest import demo_engine  # noqa: F401  (the session fixture, shared)

CHROMIUM = "/usr/bin/chromium"
# Screenshots land in a temp folder so a test run never dirties the checkout; refresh the committed ones with
# GROUNDSEARCH_UPDATE_SCREENSHOTS=1 ./run test tests/web
SCREENSHOTS = (Path(__file__).resolve().parents[2] / "docs" / "screenshots"
               if os.environ.get("GROUNDSEARCH_UPDATE_SCREENSHOTS") == "1"
               else Path(tempfile.gettempdir()) / "groundsearch-screenshots")

pytestmark = pytest.mark.skipif(shutil.which(CHROMIUM) is None, reason="apt-get install -y chromium")

# Expect timeouts sized for a busy machine (2 shared cores, load 15): auto-waiting returns as soon as the condition
# holds, so a generous ceiling costs nothing when the page is right and only delays a real failure. It is also the
# default of every bare ``expect`` in these tests (Playwright's own is 5 s, which a loaded machine overran).
LOADED_MS = 30_000


@pytest.fixture(scope="session", autouse=True)
def expect_timeout_for_a_busy_machine() -> None:
    from playwright.sync_api import expect

    expect.set_options(timeout=LOADED_MS)


def app_for(engine: Engine) -> Any:
    api = engine.settings.api.model_copy(update={"search_per_minute": 10_000, "preview_per_minute": 10_000})
    return create_app(engine, engine.settings.model_copy(update={"api": api}))


@pytest.fixture(scope="session")
def demo_url(demo_engine: Engine) -> Iterator[str]:  # noqa: F811
    with serve(app_for(demo_engine)) as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.skip("Chromium is not installed: apt-get install -y chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--disable-gpu", "--disable-quic"])
        yield b
        b.close()


class Page:
    """A fresh browser context per test, offline, collecting console errors and external requests."""

    def __init__(self, browser: Any, width: int, height: int) -> None:
        self.context = browser.new_context(viewport={"width": width, "height": height})
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.external: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

        def route(r: Any) -> None:
            if r.request.url.startswith(("http://127.0.0.1", "data:", "blob:")):
                r.continue_()
            else:
                self.external.append(r.request.url)
                r.abort()

        self.context.route("**/*", route)

    def shot(self, name: str) -> None:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(SCREENSHOTS / name))  # the viewport: what a user sees first


@pytest.fixture
def desktop(browser: Any) -> Iterator[Page]:
    p = Page(browser, 1280, 900)
    yield p
    p.context.close()
    assert p.external == [], f"the page tried to reach the network: {p.external}"
    assert p.errors == [], f"console errors: {p.errors}"


@pytest.fixture
def phone(browser: Any) -> Iterator[Page]:
    p = Page(browser, 390, 844)
    yield p
    p.context.close()
    assert p.external == [] and p.errors == []
