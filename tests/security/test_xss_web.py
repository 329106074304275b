"""Markup planted in stored data and in the request, rendered by the real page in real headless Chromium.

An editor controls item titles, record fields (chart and table labels, citations quote their text) and document
text; any caller controls the query, which comes back in notices ("unsupported format", degraded notes). The page
builds every node with ``textContent``/``setAttribute`` (``el()`` in app.js), so markup must arrive as visible
text and never run. Each payload sets ``window.__xss``; the probe also checks the payload text *reached* the page
(without that, a page that showed nothing would pass). It fails when ``el()`` sets ``innerHTML`` for text
(checked by making that change).
"""

from __future__ import annotations

import shutil
import urllib.parse
from typing import Any

import httpx
import pytest

from .conftest import CHROMIUM, web_fixtures

pytestmark = pytest.mark.skipif(shutil.which(CHROMIUM) is None, reason="apt-get install -y chromium")

IMG = '<img src=x onerror="window.__xss=(window.__xss||[]).concat(\'img\')">'
SVG = '<svg onload="window.__xss=(window.__xss||[]).concat(\'svg\')"></svg>'
SCRIPT = "<script>window.__xss=(window.__xss||[]).concat('script')</script>"
RECORDS = [{"product": f"Zorbx{IMG}", "version": f"1.{i}", "date": f"2026-0{i + 1}-10",
            "notes": f"Zorbx release {i} notes {SCRIPT}", "url": "https://example.org/z"} for i in range(4)]
RECORDS += [{"product": f"Quorb{SVG}", "version": f"2.{i}", "date": f"2026-0{i + 1}-20",
             "notes": f"Quorb release {i} notes {IMG}", "url": "https://example.org/q"} for i in range(3)]
DOC = f"# Zorbx handbook {IMG}\n\nThe Zorbx handbook says releases ship monthly. {SCRIPT} {SVG}\n"


def _plant(c: httpx.Client) -> None:
    r = c.post("/api/items/records", json={"collection": "releases", "records": RECORDS})
    assert r.status_code == 200 and not r.json()["errors"], r.text
    r = c.post("/api/items", files={"file": ("zorbx.md", DOC.encode(), "text/markdown")})
    assert r.status_code == 200, r.text


planted, page = web_fixtures("planted", _plant)


def _settled(page: Any, url: str, query: str) -> str:
    page.goto(f"{url}/?q={urllib.parse.quote(query)}")
    page.wait_for_function("() => document.querySelectorAll('#evidence li, #evidence > *').length > 0",
                           timeout=60_000)
    # the chart and late events render after the results: wait for the stream's end, not a guessed 1.5 s
    page.wait_for_selector("#results[aria-busy='false']", state="attached", timeout=60_000)
    return page.evaluate("() => document.body.innerText")


@pytest.mark.parametrize("query", [
    "number of Zorbx and Quorb releases per product as a bar chart",
    "Zorbx and Quorb releases as a table",
    "what does the Zorbx handbook say?",
    f"Zorbx releases {IMG} as a sankey diagram",  # an unsupported format: the notice names the request
])
def test_attack_planted_markup_is_shown_as_text_and_never_runs(page: Any, planted: str, query: str) -> None:
    text = _settled(page, planted, query)
    ran = page.evaluate("() => window.__xss || null")
    assert ran is None, ran
    injected = page.evaluate("() => document.querySelectorAll('img[src=\"x\"], svg[onload], body script:not([src])')"
                             ".length")
    assert injected == 0
    assert "onerror=" in text or "onload=" in text or "<script>" in text, text[:2000]  # the payload did arrive


def test_attack_chat_markup_is_shown_as_text_and_never_runs(page: Any, planted: str) -> None:
    page.goto(f"{planted}/")
    tab = page.locator("text=Chat").first
    if tab.count() == 0:
        pytest.skip("the page has no chat panel")
    tab.click()
    box = page.locator("#chat-input, #chat textarea, #chat input[type=text]").first
    box.fill(f"What does the Zorbx handbook say? {IMG}")
    box.press("Enter")
    # the turn is done (the question itself already holds "Zorbx handbook", so that text proves nothing)
    page.wait_for_selector(".turn.assistant[aria-busy='false']", state="attached", timeout=60_000)
    assert page.evaluate("() => window.__xss || null") is None
    assert page.evaluate("() => document.querySelectorAll('img[src=\"x\"], svg[onload]').length") == 0
    assert "onerror=" in page.evaluate("() => document.body.innerText")
