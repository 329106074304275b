"""Attack on local mode (round 5): a web page on another origin must not drive the local server.

Local mode (the default) has no keys: whoever reaches ``127.0.0.1:<port>`` is the trusted user. A browser is such a
client for every page it shows. ``POST /api/items`` takes ``multipart/form-data``, a content type a cross-origin
page may send without a CORS preflight (``fetch(url, {method: "POST", mode: "no-cors", body: formData})``): the
response stays opaque, but the upload is ingested — a planted page in the user's answers, or the user's own
``notes.md`` replaced by the attacker's, since an upload of a known name updates that source. And a page whose
domain re-resolves to 127.0.0.1 (DNS rebinding) is same-origin with the server and reads everything. Local mode
now refuses a request whose ``Origin`` is not the server's own, and (bound to a loopback address, the default) one
whose ``Host`` is not a loopback name. Clients without a browser send no ``Origin`` and are unaffected.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from groundsearch.engine import Engine
from groundsearch.interfaces.api import create_app
from tests.api.live import make_engine, make_settings, serve

from .conftest import CHROMIUM


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("local-cross-site")
    with make_engine(tmp, make_settings(tmp)) as engine, serve(create_app(engine)) as url:
        yield url


def _upload(url: str, name: str, text: str, **headers: str) -> httpx.Response:
    return httpx.post(f"{url}/api/items", headers=headers, timeout=60,
                      files={"file": (name, text.encode(), "text/markdown")})


def _found(url: str, query: str) -> list[str]:
    r = httpx.post(f"{url}/api/search", json={"query": query}, timeout=60)
    assert r.status_code == 200, r.text
    return [x["title"] for x in r.json()["results"]]


@pytest.mark.parametrize("origin", ["https://evil.example", "null", "http://127.0.0.1:1", "http://localhost"])
def test_attack_a_page_of_another_origin_cannot_upload(local: str, origin: str) -> None:
    word = f"quillwort{abs(hash(origin)) % 1000}"
    r = _upload(local, f"{word}.md", f"# {word} advisory\n\nSign in again at the {word} portal.\n", Origin=origin)
    assert r.status_code == 403, r.text
    assert f"{word} advisory" not in _found(local, f"{word} advisory")


def test_attack_a_rebound_domain_cannot_read_or_write(local: str) -> None:
    port = urlsplit(local).port
    rebound = f"rebind.evil.example:{port}"  # what the browser sends after the name re-resolves to 127.0.0.1
    r = httpx.post(f"{local}/api/search", json={"query": "atlas"}, timeout=60,
                   headers={"Host": rebound, "Origin": f"http://{rebound}"})
    assert r.status_code == 403, r.status_code
    assert httpx.get(f"{local}/api/search", params={"q": "atlas"}, headers={"Host": rebound}).status_code == 403


def test_the_page_itself_and_clients_without_a_browser_still_work(local: str) -> None:
    port = urlsplit(local).port
    assert _upload(local, "fennel.md", "# Fennel notes\n\nFennel grows tall.\n").status_code == 200  # curl, CLI
    same = _upload(local, "fennel2.md", "# Fennel seeds\n\nFennel seeds dry.\n", Origin=local)  # the web page
    assert same.status_code == 200, same.text
    by_name = httpx.post(f"http://localhost:{port}/api/search", json={"query": "fennel"}, timeout=60,
                         headers={"Origin": f"http://localhost:{port}"})
    assert by_name.status_code == 200, by_name.text
    assert {"Fennel notes", "Fennel seeds"} <= set(_found(local, "fennel"))


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium")
def test_attack_a_real_browser_on_another_origin_cannot_upload(local: str) -> None:
    """Headless Chromium on a page of another origin (another port of 127.0.0.1) posts a file the way any web page
    can; nothing of it may be ingested."""
    _show_in_chromium(f"""<!doctype html><script>
        const fd = new FormData();
        const text = "# Hornwort bulletin\\n\\nHornwort accounts must sign in again.\\n";
        fd.append("file", new Blob([text]), "hornwort.md");
        fetch("{local}/api/items", {{method: "POST", mode: "no-cors", body: fd}})
          .then(() => document.title = "sent", () => document.title = "blocked");
        </script>""", "document.title === 'sent' || document.title === 'blocked'")
    assert "Hornwort bulletin" not in _found(local, "hornwort bulletin sign in")


# Round 9: a cross-site request that carries no Origin. Browsers leave ``Origin`` off a page's no-cors GETs
# (``<img src>``, ``<script src>``, ``<link rel=prefetch>``), so the Origin check above never saw them: another page
# could run searches on the local server as the trusted user — each one spending its compute and, with telemetry
# on, counted among the user's "popular topics" (``/api/search/suggestions``). The browser does send Fetch Metadata
# (``Sec-Fetch-Site``) to loopback servers; local mode now refuses a request it marks as from another site.

class _CountingEngine(Engine):
    """Records every query the app ran, so a test sees whether a request reached the engine at all."""

    ran: list[str] = []

    def search(self, request, **kwargs):  # type: ignore[no-untyped-def]
        _CountingEngine.ran.append(getattr(request, "query", str(request)))
        return super().search(request, **kwargs)

    def stream(self, request, **kwargs):  # type: ignore[no-untyped-def]
        _CountingEngine.ran.append(getattr(request, "query", str(request)))
        return super().stream(request, **kwargs)


@pytest.fixture(scope="module")
def counted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("local-cross-site-get")
    with make_engine(tmp, make_settings(tmp), engine_cls=_CountingEngine) as engine, \
            serve(create_app(engine)) as url:
        yield url


@pytest.mark.parametrize("site", ["cross-site", "same-site"])
def test_attack_a_cross_site_get_without_origin_cannot_search(counted: str, site: str) -> None:
    word = f"moonwort{site[:5]}"
    headers = {"Sec-Fetch-Site": site, "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "image"}
    r = httpx.get(f"{counted}/api/search", params={"q": word}, headers=headers, timeout=60)
    assert r.status_code == 403, r.status_code
    assert r.json()["error"]["details"]["reason"] == "cross-site"
    assert not [q for q in _CountingEngine.ran if word in q]


def test_fetch_metadata_of_the_page_itself_and_of_typed_urls_is_served(counted: str) -> None:
    for site in ("same-origin", "none"):  # the web page's own fetches and EventSource; a URL the user typed
        r = httpx.get(f"{counted}/api/search", params={"q": f"fennel {site}"}, timeout=60,
                      headers={"Sec-Fetch-Site": site, "Sec-Fetch-Mode": "cors", "Sec-Fetch-Dest": "empty"})
        assert r.status_code == 200, r.text
        assert f"fennel {site}" in _CountingEngine.ran


def test_a_link_followed_from_another_site_opens_the_page_but_runs_no_search(counted: str) -> None:
    navigate = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}
    assert httpx.get(f"{counted}/", headers=navigate, timeout=60).status_code == 200
    r = httpx.get(f"{counted}/api/search", params={"q": "bladderwort"}, headers=navigate, timeout=60)
    assert r.status_code == 403, r.status_code
    assert not [q for q in _CountingEngine.ran if "bladderwort" in q]


class _EvilPage(BaseHTTPRequestHandler):
    html = ""

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(self.html.encode())

    def log_message(self, *args: object) -> None:
        pass


def _show_in_chromium(html: str, done: str, then: Callable[[Any], None] | None = None) -> None:
    """Headless Chromium shows ``html`` from another origin (another port of 127.0.0.1) until ``done`` (a JavaScript
    condition) holds; ``then(page)`` goes on from there."""
    from playwright.sync_api import sync_playwright

    _EvilPage.html = html
    evil = ThreadingHTTPServer(("127.0.0.1", 0), _EvilPage)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--disable-gpu", "--disable-quic"])
            page = browser.new_context().new_page()
            page.goto(f"http://127.0.0.1:{evil.server_address[1]}/")
            page.wait_for_function(done, timeout=60_000)
            if then is not None:
                then(page)
            browser.close()
    finally:
        evil.shutdown()


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium")
def test_attack_a_real_browser_page_of_images_cannot_search(counted: str) -> None:
    """A page of another origin whose images point at the local search API."""
    tags = "".join(f'<img src="{counted}/api/search?q=spleenwort+{i}">' for i in range(3))
    _show_in_chromium(f"""<!doctype html>{tags}<script>
        Promise.all([...document.images].map(i => i.complete ? 0 : new Promise(r => {{ i.onload = i.onerror = r; }})))
          .then(() => document.title = "loaded");
        </script>""", "document.title === 'loaded'")
    assert not [q for q in _CountingEngine.ran if "spleenwort" in q]


# Round 10: the link above opens the page, and the page's own script searched for its ``?q=`` at once — a
# same-origin request, which no check refuses. A link on any page made the user's server search for the linker's
# words, counted among the user's popular topics; with keys, the page sends the key it keeps. The page opened
# from another site now fills the box and waits for the user.

_SETTLED = ("document.querySelector('#q').value === {q!r} && (document.querySelector('.kind-from-elsewhere') !== null"
            " || document.querySelector('#results').getAttribute('aria-busy') === 'false')")


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium")
def test_attack_a_link_from_another_site_fills_the_box_but_does_not_search(counted: str) -> None:
    """A user clicks a link on another site to ``/?q=…``. Before the fix the page searched at once (the search was
    in the engine's log when the page settled); now it waits, and runs when the user presses Enter. A URL typed
    in (``Sec-Fetch-Site: none``) still searches at once."""
    query = "butterwort linked"

    def arrive(page: Any) -> None:
        page.click("#go")
        page.wait_for_url(f"{counted}/?q=*", timeout=60_000)
        page.wait_for_function(_SETTLED.format(q=query), timeout=60_000)
        assert not [q for q in _CountingEngine.ran if "butterwort" in q], _CountingEngine.ran
        assert "Not searched yet" in page.inner_text("#notices")
        page.press("#q", "Enter")  # the user acts: now it searches
        page.wait_for_function("document.querySelector('#results').getAttribute('aria-busy') === 'false'",
                               timeout=60_000)
        assert query in _CountingEngine.ran
        page.goto(f"{counted}/?q=butterwort+typed")  # as if typed into the address bar
        page.wait_for_function(_SETTLED.format(q="butterwort typed"), timeout=60_000)
        assert "butterwort typed" in _CountingEngine.ran

    _show_in_chromium(f'<!doctype html><a id="go" href="{counted}/?q={query.replace(" ", "+")}">go</a>',
                      "document.readyState === 'complete'", arrive)


def test_every_response_forbids_framing(counted: str) -> None:
    for path in ("/", "/api/search/health", "/api/search?q=fennel"):
        r = httpx.get(f"{counted}{path}", timeout=60)
        assert r.headers["x-frame-options"] == "DENY", path
        assert r.headers["content-security-policy"] == "frame-ancestors 'none'", path
    refused = httpx.get(f"{counted}/api/search", params={"q": "x"}, headers={"Sec-Fetch-Site": "cross-site"})
    assert refused.status_code == 403 and refused.headers["x-frame-options"] == "DENY"


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium")
def test_attack_a_real_browser_page_cannot_frame_the_page(counted: str) -> None:
    """A framed page's own requests are same-origin, so only the page's refusal to be framed stops its ``?q=``
    search (and clicks tricked into uploads or deletes)."""
    _show_in_chromium(f"""<!doctype html><iframe src="{counted}/?q=clubmoss+survey" width=800 height=600
        onload="setTimeout(() => document.title = 'framed', 3000)"></iframe>""", "document.title === 'framed'")
    assert not [q for q in _CountingEngine.ran if "clubmoss" in q]
