"""L4: is each link in a reply alive? HEAD (GET when a server refuses HEAD), 3 s timeout, 24 h cache.

A dead link in a grounded answer is a broken promise even when the address is in the sources: the auditor swaps
it for a canonical alternative from the dossier, or sends the sentence to L3. Results are cached for a day —
in Redis when one is configured (shared by every process), else in this process — so the second reply that
cites the same page costs nothing. Redirects are followed (a 301 to a live page is healthy).

Checking is off unless configured: an air-gapped deployment has no outside network, and a reply then says
"URL health: off" instead of implying its links were checked. Addresses on private, loopback and link-local
networks are refused unless explicitly allowed: the caller of ``POST /api/validate-urls`` chooses the URLs,
and the server must not become a probe of its own network (SSRF).
"""

from __future__ import annotations

import copy
import ipaddress
import json
import socket
import threading
import time
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from hashlib import sha256
from typing import Any, Protocol
from urllib.parse import urlsplit

import httpx

__all__ = ["LocalCache", "RedisCache", "UrlHealth", "UrlStatus"]

TIMEOUT_S = 3.0
TTL_S = 24 * 3600
MAX_PARALLEL = 8
MAX_REDIRECTS = 5
_HEAD_REFUSED = {403, 405, 501}  # servers that answer HEAD with these often serve GET fine


@dataclass(frozen=True, slots=True)
class UrlStatus:
    url: str
    healthy: bool
    status: int | None  # final HTTP status after redirects; None: no response
    final_url: str | None = None
    reason: str = ""
    cached: bool = False

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class Cache(Protocol):
    def get(self, key: str) -> str | None: ...
    def set(self, key: str, value: str, ttl_s: int) -> None: ...


class LocalCache:
    """In-process, expiring entries; thread-safe."""

    def __init__(self, clock: Any = time.monotonic) -> None:
        self._data: dict[str, tuple[float, str]] = {}
        self._lock = threading.Lock()
        self._clock = clock

    def get(self, key: str) -> str | None:
        with self._lock:
            hit = self._data.get(key)
            if hit is None or hit[0] <= self._clock():
                self._data.pop(key, None)
                return None
            return hit[1]

    def set(self, key: str, value: str, ttl_s: int) -> None:
        with self._lock:
            self._data[key] = (self._clock() + ttl_s, value)


class RedisCache:
    """Shared across processes; a Redis failure reads as a miss (the link is checked again), never an error."""

    def __init__(self, url: str) -> None:
        import redis  # optional dependency, only needed when redis_url is configured

        self._client = redis.Redis.from_url(url, socket_timeout=0.2, socket_connect_timeout=0.2)

    def get(self, key: str) -> str | None:
        try:
            raw = self._client.get(key)
        except Exception:  # redis.RedisError and socket errors alike
            return None
        return raw.decode() if isinstance(raw, bytes) else raw

    def set(self, key: str, value: str, ttl_s: int) -> None:
        try:
            self._client.set(key, value, ex=ttl_s)
        except Exception:  # a lost write only costs a re-check
            pass


def _blocked(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return (ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_reserved or ip.is_multicast
            or ip.is_unspecified)


class Refused(httpx.TransportError):
    """The address a request would go to is private, loopback, link-local, reserved or multicast."""


class PinnedTransport(httpx.BaseTransport):
    """Sends each request only to an address it checked itself: the host is resolved once, refused when any of
    its addresses is not public, and the request goes to that address (``Host`` and the TLS name stay the
    host's, so virtual hosts and certificates still work).

    Checking a name and then letting the HTTP client resolve it again is a race an attacker's DNS wins by
    answering a public address first and 127.0.0.1 second (rebinding). Every redirect hop is a new request,
    so it passes through here too. No proxy is used: through a proxy the address checked is not the one fetched.
    """

    def __init__(self, inner: httpx.BaseTransport | None = None) -> None:
        self._inner = inner if inner is not None else httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        host = request.url.host
        port = request.url.port or (443 if request.url.scheme == "https" else 80)
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError as exc:
            raise httpx.ConnectError(f"cannot resolve {host}: {exc}", request=request) from None
        ips = [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos]
        if not ips or any(_blocked(ip) for ip in ips):
            raise Refused(f"{host} is a private or loopback address", request=request)
        extensions = dict(request.extensions)
        if request.url.scheme == "https":
            extensions["sni_hostname"] = host
        pinned = httpx.Request(request.method, request.url.copy_with(host=str(ips[0])), headers=request.headers,
                               stream=request.stream, extensions=extensions)
        return self._inner.handle_request(pinned)

    def close(self) -> None:
        self._inner.close()


class UrlHealth:
    """Checks links; ``enabled=False`` reports why nothing was checked instead of pretending."""

    def __init__(self, *, enabled: bool = True, timeout_s: float = TIMEOUT_S, ttl_s: int = TTL_S,
                 cache: Cache | None = None, allow_private: bool = False,
                 transport: httpx.BaseTransport | None = None) -> None:
        self.enabled = enabled
        self.timeout_s = timeout_s
        self.ttl_s = ttl_s
        self.cache = cache if cache is not None else LocalCache()
        self.allow_private = allow_private
        self._transport = transport
        self.fetches = 0  # requests actually sent (cache misses), for tests and diagnostics
        self.scope = ""

    def scoped(self, scope: str) -> UrlHealth:
        """The same checker and cache, with entries of ``scope``'s own. A shared entry would tell one tenant
        which addresses another checked in the last day (``cached: true`` on its first look)."""
        view = copy.copy(self)
        view.scope = scope
        return view

    @property
    def state(self) -> str:
        return "ran" if self.enabled else "off: URL health checks are not enabled (auditor.url_health)"

    def _key(self, url: str) -> str:
        return "groundsearch:urlhealth:" + sha256(f"{self.scope}\x00{url}".encode()).hexdigest()

    @staticmethod
    def _refusal(url: str) -> str | None:
        try:
            parts = urlsplit(url)
            hostname = parts.hostname
            httpx.URL(url)  # what the client will parse: an address it rejects is the caller's input, not a 500
        except (ValueError, httpx.InvalidURL):
            return "not a valid http(s) address"
        if parts.scheme not in ("http", "https") or not hostname:
            return "not an http(s) address"
        return None

    def _fetch(self, url: str) -> UrlStatus:
        if why := self._refusal(url):
            return UrlStatus(url, False, None, reason=why)
        self.fetches += 1
        target, hops = url, 0
        # private addresses are refused by the transport at connect time, on every hop (PinnedTransport)
        transport = self._transport if self.allow_private else PinnedTransport(self._transport)
        try:
            with httpx.Client(timeout=httpx.Timeout(self.timeout_s), follow_redirects=False,
                              transport=transport) as client:
                # redirects are followed by hand so every hop passes the same address check (SSRF by redirect)
                for _ in range(MAX_REDIRECTS + 1):
                    response = client.head(target)
                    if response.status_code in _HEAD_REFUSED:
                        with client.stream("GET", target) as streamed:
                            response = streamed
                    if not response.is_redirect:
                        break
                    try:
                        target, hops = str(httpx.URL(target).join(response.headers["location"])), hops + 1
                    except (ValueError, httpx.InvalidURL):
                        return UrlStatus(url, False, response.status_code, target, "redirect to an invalid address")
                    if why := self._refusal(target):
                        return UrlStatus(url, False, None, target, why)
                else:
                    return UrlStatus(url, False, response.status_code, target, "too many redirects")
        except Refused:
            if not hops:
                self.fetches -= 1  # refused before its first hop: nothing was sent
                return UrlStatus(url, False, None, reason="refused: a private or loopback address")
            return UrlStatus(url, False, None, target, "refused: a private or loopback address (redirect)")
        except httpx.TimeoutException:
            return UrlStatus(url, False, None, reason=f"no answer within {self.timeout_s:g} s")
        except httpx.HTTPError as exc:
            return UrlStatus(url, False, None, reason=f"{type(exc).__name__}: {exc}"[:200])
        status = response.status_code
        healthy = status < 400
        return UrlStatus(url, healthy, status, target, "" if healthy else f"HTTP {status}")

    def check(self, url: str) -> UrlStatus:
        key = self._key(url)
        if (raw := self.cache.get(key)) is not None:
            try:
                data = json.loads(raw)
                return UrlStatus(**{**data, "cached": True})
            except (ValueError, TypeError):
                pass  # a damaged entry is a miss
        result = self._fetch(url)
        if not result.reason.startswith("refused"):
            self.cache.set(key, json.dumps({**result.as_dict(), "cached": False}), self.ttl_s)
        return result

    def check_many(self, urls: Iterable[str]) -> Mapping[str, UrlStatus]:
        """One status per distinct URL, checked in parallel (a hang costs one timeout, not one per link)."""
        distinct = list(dict.fromkeys(urls))
        if not distinct:
            return {}
        with ThreadPoolExecutor(max_workers=min(MAX_PARALLEL, len(distinct))) as pool:
            return dict(zip(distinct, pool.map(self.check, distinct), strict=True))
