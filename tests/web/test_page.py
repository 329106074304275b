"""The web page in real Chromium: typeahead, keyboard, recent/popular, tables, charts, notices, streaming."""

from __future__ import annotations

import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Error, expect

from groundsearch.engine import Engine
from groundsearch.types import Event, SearchRequest
from tests.api.live import serve
from tests.integration.test_demo_answers import A, B

from .conftest import LOADED_MS, Page, app_for


def search_url(base: str, q: str) -> str:
    return f"{base}/?q={urllib.parse.quote(q)}"


def column(page: Any, table: Any, index: int) -> list[str]:
    return table.locator(f"tbody tr td:nth-child({index + 1})").all_inner_texts()


def type_on_a_paused_clock(page: Any, box: Any, text: str, gap_ms: int) -> None:
    """Type ``text`` with exactly ``gap_ms`` of page time between keys, however slow the machine is.

    On a loaded machine real keystrokes can land more than the debounce apart; with the page clock paused only
    ``run_for`` moves page time, so the debounce sees the gaps the test means.
    """
    for ch in text:
        box.press(ch)
        page.clock.run_for(gap_ms)


def test_typing_shows_the_preview_with_keyboard_navigation(desktop: Page, demo_url: str,
                                                           demo_engine: Engine) -> None:
    page = desktop.page
    title = demo_engine.preview("retrieval", limit=1)[0].title
    previews: list[str] = []
    page.on("request", lambda r: previews.append(r.url) if "/api/search/preview" in r.url else None)
    page.clock.install()
    page.goto(demo_url)
    page.clock.pause_at(page.evaluate("Date.now()") / 1000 + 1)
    box = page.locator("#q")
    type_on_a_paused_clock(page, box, "re", gap_ms=40)
    page.clock.run_for(1_000)  # well past the 300 ms debounce
    assert previews == [], "no preview below 3 characters"
    type_on_a_paused_clock(page, box, "trieval", gap_ms=40)  # faster than the 300 ms debounce
    assert previews == [], "nothing is sent while the burst is still being typed"
    with page.expect_response(lambda r: "/api/search/preview" in r.url, timeout=LOADED_MS) as answer:
        page.clock.run_for(300)
    assert answer.value.url.endswith("q=retrieval") and answer.value.ok
    page.clock.resume()  # the rest (blur, streaming search) runs on ordinary time
    listbox = page.locator("#preview")
    expect(listbox).to_be_visible(timeout=LOADED_MS)
    expect(listbox.locator('[role="option"]').first).to_be_visible(timeout=LOADED_MS)
    assert len(previews) == 1, f"debounce: one request for a burst of typing, got {previews}"
    expect(listbox).to_contain_text(title, timeout=LOADED_MS)
    expect(box).to_have_attribute("aria-expanded", "true", timeout=LOADED_MS)
    box.press("ArrowDown")
    first = listbox.locator('[role="option"]').first
    expect(box).to_have_attribute("aria-activedescendant", first.get_attribute("id"), timeout=LOADED_MS)
    expect(first).to_have_attribute("aria-selected", "true", timeout=LOADED_MS)
    box.press("ArrowDown")
    box.press("ArrowUp")
    expect(box).to_have_attribute("aria-activedescendant", first.get_attribute("id"), timeout=LOADED_MS)
    desktop.shot("preview.png")
    chosen = first.get_attribute("data-title")
    box.press("Enter")
    expect(listbox).to_be_hidden(timeout=LOADED_MS)
    expect(box).to_have_value(chosen, timeout=LOADED_MS)
    expect(page.locator("#evidence li").first).to_be_visible(timeout=60_000)  # a full search, like the tests below


def wait_until(page: Any, condition: Callable[[], bool], what: str, timeout_ms: int = LOADED_MS) -> None:
    """Let Playwright deliver events until ``condition()`` holds; fail only after ``timeout_ms``.

    Route handlers and ``requestfailed`` listeners run in Python as Playwright delivers their events, which no
    ``expect`` can wait on: this polls them with a ceiling instead of sleeping a guessed time.
    ``wait_for_timeout`` is the driver's timer, not the page's, so it still moves while the page clock is paused.
    """
    deadline = time.monotonic() + timeout_ms / 1000
    while not condition():
        assert time.monotonic() < deadline, f"{what}: not within {timeout_ms} ms"
        page.wait_for_timeout(20)


def test_stale_preview_requests_are_cancelled(desktop: Page, demo_url: str, demo_engine: Engine) -> None:
    page = desktop.page
    failed: list[str] = []
    page.on("requestfailed", lambda r: failed.append(r.url) if "/api/search/preview" in r.url else None)
    page.clock.install()
    page.goto(demo_url)
    page.clock.pause_at(page.evaluate("Date.now()") / 1000 + 1)
    held: list[Any] = []  # answers held back, so the older request is still in flight at the next keystroke
    page.route("**/api/search/preview*", lambda r: held.append(r))
    box = page.locator("#q")
    type_on_a_paused_clock(page, box, "lang", gap_ms=20)
    assert held == [], "nothing is sent while the burst is still being typed"
    page.clock.run_for(300)  # the debounce fires: q=lang goes out and is held
    wait_until(page, lambda: len(held) == 1, "one preview request after the first burst")
    assert held[0].request.url.endswith("q=lang")
    type_on_a_paused_clock(page, box, "uage", gap_ms=20)
    assert len(held) == 1, "nothing more is sent while the second burst is being typed"
    page.clock.run_for(300)  # q=language goes out, and the page aborts the q=lang still in flight
    wait_until(page, lambda: len(held) == 2, "a second preview request after the second burst")
    assert held[1].request.url.endswith("q=language")
    page.clock.resume()
    with page.expect_event("requestfinished", lambda r: r.url.endswith("q=language"), timeout=LOADED_MS):
        for route in held:
            try:
                route.continue_()
            except Error:
                pass  # the aborted one can no longer be continued
    wait_until(page, lambda: any(u.endswith("q=lang") for u in failed), "the stale q=lang request cancelled")
    assert not [u for u in failed if u.endswith("q=language")], failed
    expect(page.locator("#preview")).to_contain_text(demo_engine.preview("language", limit=1)[0].title,
                                                     timeout=LOADED_MS)  # the fresh answer is the one painted


def test_recent_searches_and_popular_topics(desktop: Page, demo_url: str, demo_engine: Engine) -> None:
    page = desktop.page
    page.goto(demo_url)
    page.locator("#q").fill("vector databases")
    page.locator("#q").press("Enter")
    expect(page.locator("#evidence li").first).to_be_visible()
    page.goto(demo_url)
    expect(page.locator("#recent .chip").first).to_have_text("vector databases")
    if demo_engine.suggestions(12):
        expect(page.locator("#popular .chip").first).to_be_visible()
        topic = page.locator("#popular .chip").first.inner_text()
        page.locator("#popular .chip").first.click()
        expect(page.locator("#q")).to_have_value(topic)
    desktop.shot("start.png")


def test_integration_a_renders_two_tables_that_sort_on_click(desktop: Page, demo_url: str) -> None:
    page = desktop.page
    page.goto(search_url(demo_url, A))
    tables = page.locator(".kind-table table")
    expect(tables).to_have_count(2, timeout=60_000)
    expect(page.locator("#results")).to_have_attribute("aria-busy", "false", timeout=60_000)
    for t in range(2):
        table = tables.nth(t)
        header = table.locator("th").first
        original = column(page, table, 0)
        assert len(original) >= 2
        header.locator("button").click()
        expect(header).to_have_attribute("aria-sort", "ascending")
        assert column(page, table, 0) == sorted(original)
        header.locator("button").click()
        expect(header).to_have_attribute("aria-sort", "descending")
        assert column(page, table, 0) == sorted(original, reverse=True)
        # a different column sorts too, and resets the first one's indicator
        second = table.locator("th").nth(1)
        second.locator("button").click()
        expect(second).to_have_attribute("aria-sort", "ascending")
        expect(header).to_have_attribute("aria-sort", "none")
        values = column(page, table, 1)
        assert values == sorted(values, key=lambda v: v.casefold()) or values == sorted(values)
    expect(page.locator("#prose")).to_be_visible()
    desktop.shot("integration-a-tables.png")


def test_citations_scroll_to_their_source(desktop: Page, demo_url: str) -> None:
    page = desktop.page
    page.clock.install()
    page.goto(search_url(demo_url, A))
    cite = page.locator("#prose .cite").first
    expect(cite).to_be_visible(timeout=60_000)
    # the flash lasts 1.5 s of page time: on a paused clock a slow machine cannot let it end before it is seen
    page.clock.pause_at(page.evaluate("Date.now()") / 1000 + 1)
    target = cite.get_attribute("data-cite")
    cite.click()
    source = page.locator(f'#evidence li[data-id="{target}"]')
    expect(source).to_have_class("flash")
    expect(source).to_be_in_viewport()
    page.clock.run_for(1_500)
    expect(source).not_to_have_class("flash")  # a moment, not for good


def test_integration_b_shows_the_downgrade_notice_and_the_chart(desktop: Page, demo_url: str,
                                                                demo_engine: Engine) -> None:
    page = desktop.page
    expected = next(r for r in demo_engine.search(SearchRequest(query=B)).structured_results if r.kind == "chart")
    page.goto(search_url(demo_url, B))
    notice = page.locator(".kind-unsupported-format")
    expect(notice).to_be_visible(timeout=60_000)
    expect(notice).to_contain_text("tornado")
    expect(notice).to_contain_text("ranked-bar")
    expect(page.locator(".kind-low-confidence")).to_be_visible()
    chart = page.locator(".kind-chart .js-plotly-plot")
    expect(chart).to_be_visible()
    bars = chart.locator("g.trace.bars path")
    expect(bars).to_have_count(len(expected.points))
    labels = chart.locator("g.ytick text").evaluate_all("els => els.map(e => e.textContent)")
    assert labels and set(labels) <= {p.label for p in expected.points}, labels
    desktop.shot("integration-b-chart.png")


class HeldProseEngine(Engine):
    """The demo engine with the prose held back until the test lets it go, as when an LLM takes seconds to narrate.

    A gate, not a sleep: however slow the machine, the prose cannot arrive before the test has looked.
    """

    release: threading.Event

    def stream(self, request: SearchRequest, *, tenant: str | None = None) -> Iterator[Event]:
        for event in super().stream(request, tenant=tenant):
            if event.name == "prose":
                self.release.wait(120)  # a ceiling, so a failed test cannot hang the server thread
            yield event


def test_streaming_paints_results_before_the_prose(desktop: Page, demo_engine: Engine, tmp_path: Path) -> None:
    held = HeldProseEngine(demo_engine.settings, demo_engine.store, demo_engine.embedder)
    held.release = threading.Event()
    page = desktop.page
    with serve(app_for(held)) as url:
        try:
            page.goto(search_url(url, A))
            expect(page.locator("#evidence li").first).to_be_visible(timeout=60_000)
            expect(page.locator(".kind-table table").first).to_be_visible(timeout=LOADED_MS)
            assert page.locator("#prose").is_hidden(), "the prose painted before it arrived?"
            assert page.locator("#results").get_attribute("aria-busy") == "true"
            desktop.shot("streaming-results-before-prose.png")
        finally:
            held.release.set()
        expect(page.locator("#prose")).to_be_visible(timeout=60_000)
        expect(page.locator("#results")).to_have_attribute("aria-busy", "false", timeout=LOADED_MS)


def test_phone_width_layout(phone: Page, demo_url: str) -> None:
    page = phone.page
    page.goto(search_url(demo_url, A))
    expect(page.locator(".kind-table table")).to_have_count(2, timeout=60_000)
    expect(page.locator("#results")).to_have_attribute("aria-busy", "false", timeout=60_000)
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 1, f"the page scrolls sideways by {overflow}px on a phone"
    for selector in ("#q", "#go", ".kind-table"):
        box = page.locator(selector).first.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390 + 1, (selector, box)
    assert page.locator("#q").bounding_box()["width"] >= 0.6 * 390
    phone.shot("phone-integration-a.png")


def test_timeline_and_graph_views(desktop: Page, demo_url: str, demo_engine: Engine) -> None:
    page = desktop.page
    query = "timeline of langchain releases"
    timeline = next(r for r in demo_engine.search(SearchRequest(query=query)).structured_results
                    if r.kind == "timeline")
    page.goto(search_url(demo_url, query))
    items = page.locator(".kind-timeline li")
    expect(items).to_have_count(len(timeline.events), timeout=60_000)
    dates = page.locator(".kind-timeline time").evaluate_all("els => els.map(e => e.getAttribute('datetime'))")
    assert dates == sorted(str(e.date) for e in timeline.events)
    desktop.shot("timeline.png")

    query = "show a graph of how RAG, BM25 and embeddings relate"
    graph = next(r for r in demo_engine.search(SearchRequest(query=query)).structured_results if r.kind == "graph")
    page.goto(search_url(demo_url, query))
    plot = page.locator(".kind-graph .js-plotly-plot")
    expect(plot).to_be_visible(timeout=60_000)
    expect(plot.locator("g.trace.scatter g.points path")).to_have_count(len(graph.nodes))
    labels = plot.locator("g.textpoint text").evaluate_all("els => els.map(e => e.textContent)")
    assert sorted(labels) == sorted(n.label for n in graph.nodes)
    expect(page.locator(".kind-graph details summary")).to_have_text(f"{len(graph.edges)} connections")
    desktop.shot("graph.png")


@pytest.mark.parametrize("href", ["javascript:alert(document.cookie)", " JavaScript:alert(1)", "data:text/html,<script>1</script>",
                                  "vbscript:msgbox(1)", "java\tscript:alert(1)"])
def test_links_from_stored_data_are_http_only(desktop: Page, demo_url: str, href: str) -> None:
    # items stored before the ingest-side scheme check still carry such addresses: the page itself refuses them
    page = desktop.page
    page.goto(demo_url)
    made = page.evaluate("([h]) => { const a = el('a', {href: h, text: 't'}); return [a.hasAttribute('href'), "
                         "el('a', {href: 'https://example.org/x'}).getAttribute('href')]; }", [href])
    assert made == [False, "https://example.org/x"]
