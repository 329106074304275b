"""L4 link health against a real local HTTP server: 200 / 301 / 404 / a hang, a HEAD-refusing page, the cache."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from groundsearch.answer.auditor import MARKER, Constraints, UrlHealth, audit_reply
from groundsearch.answer.auditor.l4_urls import LocalCache, RedisCache

from .linkserver import LinkServer, link_server

TIMEOUT = 0.5  # the hang must outlast it; the product default is 3 s


@pytest.fixture(scope="module")
def server() -> Iterator[LinkServer]:
    with link_server() as s:
        yield s


def health(**kw: object) -> UrlHealth:
    return UrlHealth(timeout_s=TIMEOUT, allow_private=True, **kw)  # type: ignore[arg-type]


def test_statuses_for_200_301_404_and_a_hang(server: LinkServer):
    h = health()
    ok, moved, gone, hang = (h.check(server.url(p)) for p in ("/ok", "/moved", "/gone", "/hang"))
    assert (ok.healthy, ok.status) == (True, 200)
    assert (moved.healthy, moved.status, moved.final_url) == (True, 200, server.url("/ok"))
    assert (gone.healthy, gone.status, gone.reason) == (False, 404, "HTTP 404")
    assert (hang.healthy, hang.status) == (False, None) and hang.reason == f"no answer within {TIMEOUT:g} s"


def test_a_server_refusing_head_is_asked_with_get(server: LinkServer):
    status = health().check(server.url("/no-head"))
    assert status.healthy and status.status == 200
    assert server.hits["HEAD /no-head"] == 1 and server.hits["GET /no-head"] == 1


def test_the_second_call_is_a_cache_hit_and_sends_nothing(server: LinkServer):
    h = health()
    first = h.check_many([server.url("/ok"), server.url("/gone"), server.url("/hang")])
    sent = h.fetches
    before = sum(server.hits.values())
    second = h.check_many([server.url("/ok"), server.url("/gone"), server.url("/hang")])
    assert sent == 3 and h.fetches == 3 and sum(server.hits.values()) == before
    assert all(s.cached for s in second.values()) and not any(s.cached for s in first.values())
    assert [s.healthy for s in second.values()] == [True, False, False]


def test_cache_entries_expire_after_the_ttl(server: LinkServer):
    now = [0.0]
    h = health(cache=LocalCache(clock=lambda: now[0]), ttl_s=24 * 3600)
    h.check(server.url("/ok"))
    now[0] = 24 * 3600 - 1
    assert h.check(server.url("/ok")).cached
    now[0] = 24 * 3600 + 1
    assert not h.check(server.url("/ok")).cached and h.fetches == 2


def test_private_addresses_are_refused_unless_allowed(server: LinkServer):
    h = UrlHealth(timeout_s=TIMEOUT)
    before = server.hits["HEAD /ok"]
    status = h.check(server.url("/ok"))
    assert not status.healthy and status.reason.startswith("refused")
    assert server.hits["HEAD /ok"] == before and h.fetches == 0
    assert UrlHealth().check("ftp://example.org/x").reason == "not an http(s) address"


def test_a_dead_link_is_swapped_for_a_live_canonical_alternative(server: LinkServer):
    c = Constraints(supported_entities=("Acme Search",), source_urls=(server.url("/gone"), server.url("/ok")),
                    canonical_urls={"Acme Search": server.url("/ok")}, sources={"a": "Acme Search is a product."})
    reply = audit_reply(f"Acme Search is documented at {server.url('/gone')}.", c, url_health=health())
    assert reply.text == f"Acme Search is documented at {server.url('/ok')}."
    assert reply.units[0].status == "fixed" and reply.url_health == "ran"


def test_a_dead_link_without_an_alternative_goes_to_l3_then_the_marker(server: LinkServer):
    c = Constraints(source_urls=(server.url("/gone"),), sources={"a": "Keyword search docs."})
    calls: list[str] = []

    def reroll(unit: str, message: str) -> str:
        calls.append(message)
        return f"Keyword search is documented at {server.url('/gone')}."

    reply = audit_reply(f"Keyword search is documented at {server.url('/gone')}.", c, reroll=reroll,
                        url_health=health())
    assert reply.text == MARKER and len(calls) == 2 and "is unreachable (HTTP 404)" in calls[0]


def test_switched_off_it_checks_nothing_and_says_so(server: LinkServer):
    h = UrlHealth(enabled=False, allow_private=True)
    c = Constraints(source_urls=(server.url("/gone"),))
    reply = audit_reply(f"See {server.url('/gone')} for docs.", c, url_health=h)
    assert reply.url_health.startswith("off") and h.fetches == 0


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server not installed")
def test_redis_cache_is_shared_between_checkers(server: LinkServer, tmp_path: Path):
    from tests.api.test_redis_limits import redis_server

    with redis_server(tmp_path) as url:
        one, two = health(cache=RedisCache(url)), health(cache=RedisCache(url))
        one.check(server.url("/moved"))
        again = two.check(server.url("/moved"))
        assert again.cached and again.healthy and two.fetches == 0


def test_an_unreachable_redis_reads_as_a_miss(server: LinkServer):
    h = health(cache=RedisCache("redis://127.0.0.1:1/0"))
    assert h.check(server.url("/ok")).healthy and h.check(server.url("/ok")).cached is False


def test_attack_a_public_link_redirecting_into_the_private_network_is_refused(server: LinkServer, monkeypatch):
    """SSRF by redirect: the first hop is public (the network edge is a MockTransport, and the resolver answers
    a public address for it), its 301 points at 127.0.0.1; the checker must stop at that hop instead of
    following it."""
    import socket

    import httpx

    real = socket.getaddrinfo
    monkeypatch.setattr(socket, "getaddrinfo", lambda host, port, *a, **kw: (
        [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.216.34", port))] if host == "public.example"
        else real(host, port, *a, **kw)))

    def edge(request: httpx.Request) -> httpx.Response:
        if request.headers["host"] == "public.example":  # the request goes to the checked address, named by Host
            return httpx.Response(301, headers={"Location": server.url("/ok")})
        raise AssertionError(f"a request reached {request.url}")  # the private hop must never be sent

    before = server.hits["HEAD /ok"]
    status = UrlHealth(timeout_s=TIMEOUT, transport=httpx.MockTransport(edge)).check("http://public.example/r")
    assert not status.healthy and status.reason.startswith("refused")
    assert server.hits["HEAD /ok"] == before
