"""The API's own documentation page (Swagger UI) in real Chromium with every outside request blocked.

FastAPI's default pages load their scripts from a CDN, so an air-gapped user saw a blank page; these serve the
assets from the pinned ``fastapi-offline`` wheel. The ``desktop`` fixture fails the test on any request that
leaves 127.0.0.1 and on any console error.
"""

from __future__ import annotations

from playwright.sync_api import expect

from .conftest import Page


def test_swagger_ui_renders_the_api_offline(desktop: Page, demo_url: str) -> None:
    page = desktop.page
    page.goto(f"{demo_url}/docs")
    # Swagger UI draws one block per operation once it has fetched and parsed /openapi.json.
    expect(page.locator(".opblock-summary-path", has_text="/api/search").first).to_be_visible(timeout=60_000)
    assert page.locator(".opblock").count() >= 8
    desktop.shot("api-docs.png")



def test_redoc_is_not_served_since_its_bundle_reaches_a_cdn(desktop: Page, demo_url: str) -> None:
    response = desktop.page.request.get(f"{demo_url}/redoc")
    assert response.status == 404
