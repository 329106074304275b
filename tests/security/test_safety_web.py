"""The planted phishing page in real headless Chromium: the page says what "verified" means on every sentence,
marks the flagged ones, and offers no link to the attacker's address."""

from __future__ import annotations

import shutil
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from groundsearch.interfaces.api import create_app
from tests.api.live import make_engine, make_settings, serve

from .test_safety import ATTACKER_OWNED, PHISHING

CHROMIUM = "/usr/bin/chromium"
pytestmark = pytest.mark.skipif(shutil.which(CHROMIUM) is None, reason="apt-get install -y chromium")


@pytest.fixture(scope="module")
def phished(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("phish-web")
    settings = make_settings(tmp)
    with make_engine(tmp, settings) as engine, serve(create_app(engine)) as url:
        with httpx.Client(base_url=url, timeout=60) as c:
            for name, text in (("billing-access.md", PHISHING), ("billing-renewal.md", ATTACKER_OWNED)):
                r = c.post("/api/items", files={"file": (name, text.encode(), "text/markdown")})
                assert r.status_code == 200, r.text
        yield url


@pytest.fixture(scope="module")
def page(phished: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--disable-gpu", "--disable-quic"])
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.route("**/*", lambda r: r.continue_() if r.request.url.startswith("http://127.0.0.1") else r.abort())
        yield context.new_page()
        browser.close()


def test_the_page_marks_flagged_sentences_and_offers_no_attacker_link(page: Any, phished: str) -> None:
    from playwright.sync_api import expect

    page.goto(f"{phished}/?q={urllib.parse.quote('how do I keep access to the billing portal')}")
    prose = page.locator("#prose > span")
    expect(prose.first).to_be_visible(timeout=60_000)
    titles = [prose.nth(i).get_attribute("title") or "" for i in range(prose.count())]
    texts = [prose.nth(i).inner_text() for i in range(prose.count())]
    assert any(t.startswith("flagged, not verified:") for t in titles), titles
    for text, title in zip(texts, titles):
        assert title, text  # every sentence says what its mark means
        if "evil.example" in text or "password" in text.lower():
            assert not title.startswith("verified"), (text, title)
    assert all("not a claim that it is true" in t for t in titles if t.startswith("verified")), titles
    assert page.locator('#evidence a[href*="evil.example"]').count() == 0
    expect(page.locator("#evidence .safety").first).to_be_visible()
