"""POST /api/validate-urls through the real app over HTTP, against a real local link server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from groundsearch.interfaces.api import create_app

from ..answer.auditor.linkserver import LinkServer, link_server
from .live import make_engine, make_settings, serve


@pytest.fixture(scope="module")
def links() -> Iterator[LinkServer]:
    with link_server() as s:
        yield s


def _app_url(tmp: Path, **auditor: object) -> Iterator[str]:
    settings = make_settings(tmp)
    settings = settings.model_copy(update={"auditor": settings.auditor.model_copy(update=auditor)})
    with make_engine(tmp, settings) as engine, serve(create_app(engine)) as url:
        yield url


@pytest.fixture(scope="module")
def intranet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A deployment that may check private addresses (an intranet wiki): the only way to reach 127.0.0.1."""
    yield from _app_url(tmp_path_factory.mktemp("vu-intranet"), url_health=True, url_allow_private=True,
                        url_timeout_s=0.5)


@pytest.fixture(scope="module")
def public(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from _app_url(tmp_path_factory.mktemp("vu-public"), url_health=True)


@pytest.fixture(scope="module")
def airgapped(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from _app_url(tmp_path_factory.mktemp("vu-off"))


def test_statuses_and_the_cache_over_http(intranet: str, links: LinkServer):
    urls = [links.url(p) for p in ("/ok", "/moved", "/gone", "/hang")]
    first = httpx.post(f"{intranet}/api/validate-urls", json={"urls": urls}, timeout=30)
    assert first.status_code == 200, first.text
    body = first.json()
    assert body["checked"] is True and body["state"] == "ran"
    got = {r["url"]: (r["healthy"], r["status"], r["cached"]) for r in body["results"]}
    assert got == {urls[0]: (True, 200, False), urls[1]: (True, 200, False), urls[2]: (False, 404, False),
                   urls[3]: (False, None, False)}
    sent = sum(links.hits.values())
    second = httpx.post(f"{intranet}/api/validate-urls", json={"urls": urls}, timeout=30).json()
    assert all(r["cached"] for r in second["results"]) and sum(links.hits.values()) == sent


def test_attack_the_server_does_not_probe_its_own_network(public: str, links: LinkServer):
    """SSRF: a caller names a loopback address; the server must refuse without sending it a request."""
    before = sum(links.hits.values())
    body = httpx.post(f"{public}/api/validate-urls", json={"urls": [links.url("/ok"), "http://localhost:9/"]},
                      timeout=30).json()
    assert [r["healthy"] for r in body["results"]] == [False, False]
    assert all(r["reason"].startswith("refused") for r in body["results"])
    assert sum(links.hits.values()) == before


def test_airgapped_says_it_did_not_run(airgapped: str, links: LinkServer):
    body = httpx.post(f"{airgapped}/api/validate-urls", json={"urls": [links.url("/ok")]}, timeout=30).json()
    assert body == {"checked": False, "state": body["state"], "results": []}
    assert body["state"].startswith("off")


@pytest.mark.parametrize("payload", [{"urls": []}, {"urls": ["x" * 3000]}, {"urls": ["http://a.example"] * 21},
                                     {"urls": "http://a.example"}, {"url": ["http://a.example"]}])
def test_bad_input_is_a_clear_400(airgapped: str, payload: object):
    r = httpx.post(f"{airgapped}/api/validate-urls", json=payload, timeout=30)
    assert r.status_code in (400, 422), r.text
    assert "error" in r.json() or "detail" in r.json()
