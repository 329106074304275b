"""The start page's curation in real Chromium on the demo corpus: cold-start cards, the trending panel (its
numbers are the API's), browse without a query, and filter presets saved, renamed, deleted and undone."""

from __future__ import annotations

import httpx
from playwright.sync_api import expect

from .conftest import Page


def test_cold_start_cards_show_while_the_box_is_empty(desktop: Page, demo_url: str) -> None:
    page = desktop.page
    page.goto(demo_url)
    cards = page.locator("#cards .card")
    expect(cards.first).to_be_visible()
    assert cards.count() >= 4
    assert any("papers" in t for t in cards.all_inner_texts())  # built from the configured collections
    page.locator("#q").fill("tantivy")
    expect(page.locator("#cards-box")).to_be_hidden()
    page.locator("#q").fill("")
    page.locator("#q").dispatch_event("input")
    expect(page.locator("#cards-box")).to_be_visible()
    desktop.shot("curation-start.png")
    first = cards.first.locator(".card-text").inner_text()
    cards.first.click()
    expect(page.locator("#results")).to_be_visible()
    expect(page.locator("#q")).to_have_value(first)


def test_trending_panel_shows_the_apis_topics_counts_and_tiers(desktop: Page, demo_url: str) -> None:
    api = httpx.get(f"{demo_url}/api/trending", params={"horizon_days": 90, "limit": 8}).json()
    assert api["topics"], "the demo corpus has rising topics"
    page = desktop.page
    page.goto(demo_url)
    rows = page.locator("#trending li")
    expect(rows.first).to_be_visible()
    assert rows.count() == len(api["topics"])
    for i, t in enumerate(api["topics"]):
        row = rows.nth(i)
        assert row.get_attribute("data-topic") == t["topic"]
        assert row.locator(".tier").inner_text() == t["tier"]
        assert row.locator(".counts").inner_text() == (
            f"{t['items']} items · {t['sources']} sources · before: {'/'.join(map(str, t['baseline']))}")
    assert api["window"]["start"] in page.locator("#trending-window").inner_text()
    rows.first.locator("button").click()
    expect(page.locator("#q")).to_have_value(api["topics"][0]["topic"])


def test_browse_without_a_query_filters_sorts_and_pages(desktop: Page, demo_url: str) -> None:
    page = desktop.page
    page.goto(demo_url)
    items = page.locator("#browse-list li")
    expect(items.first).to_be_visible()
    api = httpx.get(f"{demo_url}/api/browse", params={"limit": 10}).json()
    assert [items.nth(i).get_attribute("data-item") for i in range(items.count())] == [
        i["item_id"] for i in api["items"]]
    expect(page.locator("#browse-status")).to_contain_text(f"10 of {api['total']} items")
    expect(items.first.locator(".badge")).to_be_visible()
    form = page.locator("#browse-form")
    form.locator("select[name=collections]").select_option("papers")
    form.locator("select[name=sort]").select_option("quality")
    page.locator("#browse-apply").click()
    papers = httpx.get(f"{demo_url}/api/browse", params={"collections": "papers", "sort": "quality", "limit": 10}).json()
    expect(items.first).to_have_attribute("data-item", papers["items"][0]["item_id"])
    expect(page.locator("#browse-status")).to_contain_text(f"of {papers['total']} items · sorted by quality")
    page.locator("#browse-more").click()
    expect(items).to_have_count(20)
    ids = [items.nth(i).get_attribute("data-item") for i in range(20)]
    assert len(set(ids)) == 20 and all(i.startswith("papers:") for i in ids)
    desktop.shot("curation-browse.png")


def test_presets_apply_save_rename_delete_and_undo(desktop: Page, demo_url: str) -> None:
    page = desktop.page
    page.goto(demo_url)
    expect(page.locator("#browse-list li").first).to_be_visible()
    presets = page.locator("#presets")
    presets.get_by_role("button", name="Fresh this quarter").click()
    expect(page.locator("select[name=freshness]")).to_have_value("fresh")
    fresh = httpx.get(f"{demo_url}/api/browse", params={"freshness": "fresh", "limit": 10}).json()
    expect(page.locator("#browse-status")).to_contain_text(f"of {fresh['total']} items")
    # a user preset: the current filters under a name, kept across reloads
    page.locator("select[name=collections]").select_option("releases")
    page.locator("#preset-name").fill("Fresh releases")
    page.locator("#preset-save").click()
    expect(presets.get_by_role("button", name="Fresh releases", exact=True)).to_be_visible()
    page.reload()
    mine = presets.get_by_role("button", name="Fresh releases", exact=True)
    expect(mine).to_be_visible()
    mine.click()
    expect(page.locator("select[name=collections]")).to_have_value("releases")
    expect(page.locator("select[name=freshness]")).to_have_value("fresh")
    desktop.shot("curation-presets.png")
    # rename, then undo it
    presets.get_by_role("button", name="Rename Fresh releases").click()
    field = presets.get_by_role("textbox", name="New name for Fresh releases")
    field.fill("New releases")
    field.press("Enter")
    expect(presets.get_by_role("button", name="New releases", exact=True)).to_be_visible()
    expect(page.locator("#preset-undo")).to_contain_text("Renamed")
    page.get_by_role("button", name="Undo").click()
    expect(presets.get_by_role("button", name="Fresh releases", exact=True)).to_be_visible()
    # delete, then undo it
    presets.get_by_role("button", name="Delete Fresh releases").click()
    expect(presets.get_by_role("button", name="Fresh releases", exact=True)).to_have_count(0)
    page.get_by_role("button", name="Undo").click()
    expect(presets.get_by_role("button", name="Fresh releases", exact=True)).to_be_visible()
    # system presets cannot be renamed or deleted
    expect(presets.get_by_role("button", name="Delete Needs review")).to_have_count(0)
    stored = page.evaluate("JSON.parse(localStorage.getItem('groundsearch.presets'))")
    assert [p["name"] for p in stored] == ["Fresh releases"]
    assert stored[0]["filters"] == {"collections": "releases", "freshness": "fresh", "sort": "date"}
