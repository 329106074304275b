"""HTTPS pinning of the link checker against a real TLS server with a test CA (``trustme``).

The checker resolves a name once, refuses non-public answers, and sends the request to the address it checked
(``PinnedTransport``). Over HTTPS that is only right when the TLS handshake still speaks for the *name*: SNI is
the name, and the certificate is verified against the name, while the TCP connection goes to the checked address.
A pin that verified against the address (or not at all) would accept a certificate the name never had.

There is no DNS here and the TLS server listens on 127.0.0.1, so the network edge is replaced, never the checker:
the resolver answers the test's name with a public address (then, if asked again, loopback: rebinding), and the
socket layer under httpcore (a network backend, like NAT) carries a connection to that public address to the
local TLS server, recording which address was dialled. Handshake, SNI and certificate checks are all real.
"""

from __future__ import annotations

import socket
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpcore
import httpx
import pytest

from groundsearch.answer.auditor.l4_urls import UrlHealth
from groundsearch.interfaces.api import create_app
from tests.api.live import make_engine, make_settings, serve

trustme = pytest.importorskip("trustme", reason="the dev extra's trustme makes the test CA")

NAME = "shop.pinned.test"
PUBLIC_IP = "93.184.216.34"  # what the resolver answers for NAME; the NAT edge carries it to the local server


@dataclass
class TlsServer:
    port: int
    sni: list[str | None] = field(default_factory=list)
    hosts: list[str] = field(default_factory=list)


@contextmanager
def tls_server(ca: Any, *identities: str) -> Iterator[TlsServer]:
    """A real HTTPS server on 127.0.0.1 whose certificate (from ``ca``) names only ``identities``."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert(*identities).configure_cert(context)
    seen = TlsServer(0)
    context.sni_callback = lambda sock, name, ctx: seen.sni.append(name)  # type: ignore[assignment,misc,return-value]

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_HEAD(self) -> None:  # noqa: N802 (http.server's naming)
            seen.hosts.append(self.headers.get("Host", ""))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.socket = context.wrap_socket(server.socket, server_side=True)
    seen.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield seen
    finally:
        server.shutdown()
        server.server_close()


class Nat(httpcore.NetworkBackend):
    """The network edge: a TCP connection to ``PUBLIC_IP`` reaches the local TLS server; anything else fails."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.dialled: list[str] = []
        self._real = httpcore.SyncBackend()

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Any = None) -> httpcore.NetworkStream:
        self.dialled.append(host)
        if host != PUBLIC_IP:
            raise httpcore.ConnectError(f"nothing answers at {host} in this test")
        return self._real.connect_tcp("127.0.0.1", self.port, timeout, local_address, socket_options)


class EdgeTransport(httpx.HTTPTransport):
    """httpx's own transport trusting the test CA, over the ``Nat`` edge (httpx takes no network backend, so
    its httpcore pool is built here with one)."""

    def __init__(self, ca: Any, nat: Nat) -> None:
        context = ssl.create_default_context()
        ca.configure_trust(context)
        super().__init__(verify=context)
        self._pool = httpcore.ConnectionPool(ssl_context=context, network_backend=nat)


@pytest.fixture()
def resolver(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Answers NAME with PUBLIC_IP, then 127.0.0.1 on any later lookup (a rebinding DNS); records lookups."""
    real, asked = socket.getaddrinfo, []

    def fake(host: Any, port: Any, *args: Any, **kw: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else host
        if name != NAME:
            return real(host, port, *args, **kw)
        asked.append(name)
        ip = PUBLIC_IP if len(asked) == 1 else "127.0.0.1"
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (ip, port or 0))]

    monkeypatch.setattr(socket, "getaddrinfo", fake)
    return asked


@pytest.fixture(scope="module")
def ca() -> Any:
    return trustme.CA()


def test_https_goes_to_the_checked_address_with_sni_and_certificate_for_the_name(ca: Any, resolver: list[str]) -> None:
    """The certificate names only NAME. The check is healthy only if the handshake sent SNI = NAME and verified
    the certificate against NAME, while the TCP connection went to the address that was checked (not a second
    lookup, which would have answered loopback). Without ``sni_hostname`` on the pinned request the handshake
    used the address as server name and verification failed (run before relying on it: it did)."""
    with tls_server(ca, NAME) as tls:
        nat = Nat(tls.port)
        status = UrlHealth(timeout_s=3, transport=EdgeTransport(ca, nat)).check(f"https://{NAME}/ok")
    assert status.healthy and status.status == 200, status
    assert nat.dialled == [PUBLIC_IP] and resolver == [NAME]  # one lookup, and its answer was the one dialled
    assert tls.sni == [NAME] and tls.hosts == [NAME]


def test_attack_a_certificate_for_the_checked_address_does_not_pass_for_the_name(ca: Any, resolver: list[str]) -> None:
    """A certificate naming only the pinned *address* must fail: it is verified against the name. A pin that
    handed the address to TLS as the server name would call this page healthy."""
    with tls_server(ca, PUBLIC_IP) as tls:
        nat = Nat(tls.port)
        status = UrlHealth(timeout_s=3, transport=EdgeTransport(ca, nat)).check(f"https://{NAME}/ok")
    assert not status.healthy and status.status is None, status
    assert "certificate" in status.reason.lower() or "hostname" in status.reason.lower(), status
    assert nat.dialled == [PUBLIC_IP] and tls.hosts == []


def test_attack_a_certificate_for_another_name_is_refused(ca: Any, resolver: list[str]) -> None:
    """Verification stays on: the server at the checked address presenting another name's certificate is not
    the page asked about (a pin that switched verification off to connect by address would accept it)."""
    with tls_server(ca, "other.test") as tls:
        nat = Nat(tls.port)
        status = UrlHealth(timeout_s=3, transport=EdgeTransport(ca, nat)).check(f"https://{NAME}/ok")
    assert not status.healthy and status.status is None and tls.hosts == [], status


def test_attack_an_untrusted_ca_is_refused(ca: Any, resolver: list[str]) -> None:
    """A certificate for the right name from a CA the checker does not trust is refused."""
    with tls_server(trustme.CA(), NAME) as tls:
        nat = Nat(tls.port)
        status = UrlHealth(timeout_s=3, transport=EdgeTransport(ca, nat)).check(f"https://{NAME}/ok")
    assert not status.healthy and tls.hosts == [], status


def test_https_pinning_through_validate_urls_over_http(ca: Any, resolver: list[str], tmp_path: Path) -> None:
    """The same through the real app's ``POST /api/validate-urls``: healthy, SNI and Host are the name, and the
    connection went to the checked address."""
    settings = make_settings(tmp_path)
    settings = settings.model_copy(update={"auditor": settings.auditor.model_copy(update={"url_health": True})})
    with tls_server(ca, NAME) as tls, make_engine(tmp_path, settings) as engine:
        nat = Nat(tls.port)
        engine._url_health = UrlHealth(timeout_s=3, transport=EdgeTransport(ca, nat))  # the edge, not the checker
        with serve(create_app(engine)) as url:
            r = httpx.post(f"{url}/api/validate-urls", json={"urls": [f"https://{NAME}/ok"]}, timeout=30)
    assert r.status_code == 200, r.text
    assert r.json()["checked"] and [u["healthy"] for u in r.json()["results"]] == [True], r.json()
    assert nat.dialled == [PUBLIC_IP] and tls.sni == [NAME] and tls.hosts == [NAME]
