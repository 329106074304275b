"""SSRF through ``POST /api/validate-urls`` and the auditor's link check (L4).

The caller chooses the addresses. Every probe below aims at a real link server on 127.0.0.1 and passes when
that server receives nothing. Where a probe needs a *public* first hop or a DNS answer, the network edge is
replaced — the resolver (``socket.getaddrinfo``) or the transport — never the checker.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from groundsearch.answer.auditor.l4_urls import UrlHealth
from groundsearch.interfaces.api import create_app
from tests.answer.auditor.linkserver import LinkServer, link_server
from tests.api.live import make_engine, make_settings, serve

PUBLIC_IP = "93.184.216.34"  # a global unicast address; nothing in these tests may ever connect to it successfully


@pytest.fixture(scope="module")
def links() -> Iterator[LinkServer]:
    with link_server() as s:
        yield s


@pytest.fixture(scope="module")
def public(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The real app with link checks on and private addresses refused (the default deployment rule)."""
    tmp: Path = tmp_path_factory.mktemp("ssrf")
    settings = make_settings(tmp)
    settings = settings.model_copy(update={"auditor": settings.auditor.model_copy(
        update={"url_health": True, "url_timeout_s": 0.5})})
    with make_engine(tmp, settings) as engine, serve(create_app(engine)) as url:
        yield url


def _port(links: LinkServer) -> int:
    return httpx.URL(links.url("/ok")).port  # type: ignore[return-value]


LOOPBACK_SPELLINGS = [
    "127.0.0.1", "2130706433", "0x7f000001", "127.1", "0177.0.0.1", "0", "0.0.0.0", "localhost", "LOCALHOST",
    "[::1]", "[0:0:0:0:0:0:0:1]", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "user@127.0.0.1",
    "evil.invalid\\@127.0.0.1",
]


@pytest.mark.parametrize("host", LOOPBACK_SPELLINGS)
def test_attack_every_spelling_of_loopback_is_refused_over_http(public: str, links: LinkServer, host: str) -> None:
    """Decimal, hex, octal and short IPv4 forms, IPv6 and IPv4-mapped forms, names, userinfo tricks: all name
    the server's own loopback; the link server (listening there) must receive nothing."""
    before = sum(links.hits.values())
    url = f"http://{host}:{_port(links)}/ok"
    r = httpx.post(f"{public}/api/validate-urls", json={"urls": [url]}, timeout=30)
    assert r.status_code == 200, r.text
    (result,) = r.json()["results"]
    assert result["healthy"] is False and result["status"] is None, result
    assert sum(links.hits.values()) == before, f"{url} reached the loopback server"


def test_attack_cloud_metadata_address_is_refused(public: str) -> None:
    r = httpx.post(f"{public}/api/validate-urls", json={"urls": ["http://169.254.169.254/latest/meta-data/",
                                                                 "http://[fe80::1]/", "http://10.0.0.1/"]}, timeout=30)
    assert [x["reason"] for x in r.json()["results"]] == ["refused: a private or loopback address"] * 3


@pytest.mark.parametrize("url", ["http://[::1/", "http://[zz]/", "http://\x00/", "http://exa mple.org:99999/"])
def test_attack_malformed_addresses_are_answered_not_a_500(public: str, url: str) -> None:
    """Before the fix an address ``urlsplit`` or httpx could not parse escaped as a 500 INTERNAL."""
    r = httpx.post(f"{public}/api/validate-urls", json={"urls": [url]}, timeout=30)
    assert r.status_code == 200, r.text
    assert r.json()["results"][0]["healthy"] is False


# ---- a public first hop: the resolver and the transport are the network edge ----------------------------------


def _resolver(answers: dict[str, list[str]]) -> Any:
    """``socket.getaddrinfo`` that answers the test's names from ``answers`` (each call pops the next address
    while more than one is left) and every other name as the system does."""
    real = socket.getaddrinfo

    def fake(host: Any, port: Any, *args: Any, **kw: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else host
        if name not in answers:
            return real(host, port, *args, **kw)
        queue = answers[name]
        ip = queue.pop(0) if len(queue) > 1 else queue[0]
        family = socket.AF_INET6 if ":" in ip else socket.AF_INET
        addr = (ip, port or 0, 0, 0) if family == socket.AF_INET6 else (ip, port or 0)
        return [(family, socket.SOCK_STREAM, 6, "", addr)]

    return fake


REDIRECT_TARGETS = ["http://127.0.0.1:{port}/ok", "http://169.254.169.254/latest/meta-data/",
                    "http://[::1]:{port}/ok", "http://2130706433:{port}/ok", "http://localhost:{port}/ok",
                    "http://inside.test:{port}/ok"]


@pytest.mark.parametrize("target", REDIRECT_TARGETS)
def test_attack_a_public_page_redirecting_inward_is_stopped_at_that_hop(
        links: LinkServer, monkeypatch: pytest.MonkeyPatch, target: str) -> None:
    """The first hop is public (answered by a MockTransport edge); its 302 names a private address in one of
    several spellings, or a name that resolves to loopback. The hop must be refused, not sent."""
    monkeypatch.setattr(socket, "getaddrinfo", _resolver({"public.test": [PUBLIC_IP], "inside.test": ["127.0.0.1"]}))
    location = target.format(port=_port(links))
    sent: list[str] = []

    def edge(request: httpx.Request) -> httpx.Response:
        sent.append(str(request.url))
        if request.headers.get("host") == "public.test":
            return httpx.Response(302, headers={"Location": location})
        raise AssertionError(f"the private hop {request.url} was sent")

    before = sum(links.hits.values())
    status = UrlHealth(timeout_s=0.5, transport=httpx.MockTransport(edge)).check("http://public.test/start")
    assert not status.healthy and status.reason == "refused: a private or loopback address (redirect)", status
    assert len(sent) == 1 and sum(links.hits.values()) == before


def test_attack_dns_rebinding_cannot_reach_loopback(links: LinkServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """The name answers a public address when the checker looks and 127.0.0.1 when the HTTP client connects
    (DNS rebinding). The request must go to the address that was checked, so the loopback server sees nothing.
    Before the fix the name was resolved twice and the second answer was used (docs/security.md called it a
    known limit)."""
    monkeypatch.setattr(socket, "getaddrinfo", _resolver({"rebind.test": [PUBLIC_IP, "127.0.0.1"]}))
    before = sum(links.hits.values())
    status = UrlHealth(timeout_s=0.5).check(f"http://rebind.test:{_port(links)}/ok")
    assert sum(links.hits.values()) == before, "the rebinding answer was connected to"
    assert not status.healthy, status


# ---- the link cache is shared by every tenant's checks ---------------------------------------------------------


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    from groundsearch.interfaces.api.auth import KeyStore

    tmp: Path = tmp_path_factory.mktemp("ssrf-keyed")
    settings = make_settings(tmp)
    settings = settings.model_copy(update={
        "auditor": settings.auditor.model_copy(update={"url_health": True, "url_timeout_s": 0.5}),
        "api": settings.api.model_copy(update={"local_mode": False})})
    keys = KeyStore(tmp / "keys.json")
    made = {t: keys.create("viewer", tenant=t)[1] for t in ("cache-a", "cache-b")}
    with make_engine(tmp, settings) as engine, serve(create_app(engine, keys=keys)) as url:
        yield url, made


def test_attack_the_link_cache_does_not_tell_one_tenant_what_another_checked(
        keyed: tuple[str, dict[str, str]]) -> None:
    """Tenant A checks a link only it knows (a partner's deal page). Tenant B asking for the same address must
    not get A's answer back marked ``cached`` — that tells B that someone here looked at that page in the last
    day. Before the fix the 24 h cache was one namespace for every tenant."""
    url, keys = keyed
    link = "http://partner-deal.invalid/2026-merger"

    def check(tenant: str) -> dict[str, Any]:
        r = httpx.post(f"{url}/api/validate-urls", json={"urls": [link]}, timeout=30,
                       headers={"Authorization": f"Bearer {keys[tenant]}"})
        assert r.status_code == 200, r.text
        return r.json()["results"][0]

    assert check("cache-a")["cached"] is False
    assert check("cache-a")["cached"] is True  # A's own repeat is served from the cache ...
    assert check("cache-b")["cached"] is False  # ... B's first look is B's own
