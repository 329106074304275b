"""The planted phishing page in real headless Chromium: the page says what "verified" means on every sentence,
marks the flagged ones, and offers no link to the attacker's address."""

from __future__ import annotations

import shutil
import urllib.parse
from typing import Any

import httpx
import pytest

from .conftest import CHROMIUM, web_fixtures
from .test_safety import ATTACKER_OWNED, PHISHING
pytestmark = pytest.mark.skipif(shutil.which(CHROMIUM) is None, reason="apt-get install -y chromium")


def _plant(c: httpx.Client) -> None:
    for name, text in (("billing-access.md", PHISHING), ("billing-renewal.md", ATTACKER_OWNED)):
        r = c.post("/api/items", files={"file": (name, text.encode(), "text/markdown")})
        assert r.status_code == 200, r.text


phished, page = web_fixtures("phished", _plant)


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
