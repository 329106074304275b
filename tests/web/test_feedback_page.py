"""The useful / not-useful control on cited sources, in real Chromium against the real app and demo corpus."""

from __future__ import annotations

import urllib.parse

from playwright.sync_api import expect

from groundsearch.engine import Engine

from .conftest import Page


def test_marking_a_source_useful_then_taking_it_back(desktop: Page, demo_url: str, demo_engine: Engine) -> None:
    page = desktop.page
    page.goto(f"{demo_url}/?q={urllib.parse.quote('hybrid search with BM25 and vectors')}")
    first = page.locator("#evidence li").first
    up = first.locator(".feedback .fb-up")
    expect(up).to_be_visible(timeout=60_000)  # the control appears once the answer is complete
    item = first.get_attribute("data-item")
    assert item
    before = demo_engine.feedback_stats(None, [item]).get(item, (0, 0))

    with page.expect_response(lambda r: r.url.endswith("/api/feedback") and r.request.method == "POST") as posted:
        up.click()
    assert posted.value.status == 201
    expect(up).to_have_attribute("aria-pressed", "true")
    expect(first.locator(".fb-down")).to_have_attribute("aria-pressed", "false")
    useful, marks = demo_engine.feedback_stats(None, [item])[item]
    assert (useful, marks) == (before[0] + 1, before[1] + 1)
    desktop.shot("feedback.png")

    with page.expect_response(lambda r: "/api/feedback/" in r.url and r.request.method == "DELETE") as deleted:
        up.click()
    assert deleted.value.status == 204
    expect(up).to_have_attribute("aria-pressed", "false")
    assert demo_engine.feedback_stats(None, [item]).get(item, (0, 0)) == before
