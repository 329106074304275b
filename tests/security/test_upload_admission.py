"""Attack: make the server read (or buffer) a large body before it has checked who is sending it.

``POST /api/items`` takes up to 32 MiB. FastAPI reads a route's body before it runs the route's dependencies, and
the key, role and rate-limit checks were dependencies: an anonymous client, a forged key, a viewer, or an editor
over its budget each had the server read and parse a whole multipart body (spooled to disk past 1 MiB) before the
401/403 — and upload routes spent no rate-limit budget at all. A chunked body was worse: the body-limit
middleware buffered it in memory, up to 32 MiB, before the app saw the request. The same held for ``POST
/api/items/records`` (64 KiB by default, operators raise ``api.max_body_bytes`` for it).

Each probe sends the request head and a first slice of a body it never finishes, over a raw socket, and waits
for an answer: the server must answer (401, 403, 429, 413) while the body is still owed. Before the fix no answer
came (the server waited for the rest of the body), so every probe timed out. ``WAIT`` is a liveness bound, not a
speed claim: a fixed server answers in milliseconds, an unfixed one never.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest

from .conftest import Gated, gated_server

WAIT = 20.0  # seconds to wait for an answer the fixed server sends before reading the body
BUDGET = 2  # uploads per key per minute on this server
DECLARED = 30 * 1024 * 1024  # under the 32 MiB upload limit: only the checks before the body can refuse it
BOUNDARY = "gsadmission"
PART = (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.md\"\r\n"
        "Content-Type: text/markdown\r\n\r\n").encode() + b"# Big\n\n" + b"filler text " * 1365


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gated]:
    with gated_server(tmp_path_factory.mktemp("admission"), keyed=True, hold_at=0, ingest_per_minute=BUDGET,
                      tenant_budget_keys=1000) as served:
        yield served


def key(server: Gated, role: str, tenant: str = "adm") -> str:
    assert server.keys is not None
    return server.keys.create(role, tenant=tenant)[1]


def answer_while_body_owed(url: str, path: str, auth: str | None, *, chunked: bool = False,
                           content_type: str = f"multipart/form-data; boundary={BOUNDARY}",
                           first: bytes = PART, declared: int = DECLARED) -> tuple[int, bytes] | None:
    """Send the head and ``first`` bytes of a body of ``declared`` bytes (or an unfinished chunked body), then
    wait for the status line; ``None`` when the server is still waiting for the body after ``WAIT`` seconds."""
    parts = urlsplit(url)
    head = [f"POST {path} HTTP/1.1", f"Host: {parts.netloc}", f"Content-Type: {content_type}"]
    head += [f"Authorization: Bearer {auth}"] if auth else []
    head += ["Transfer-Encoding: chunked"] if chunked else [f"Content-Length: {declared}"]
    body = f"{len(first):x}\r\n".encode() + first + b"\r\n" if chunked else first
    with socket.create_connection((parts.hostname, parts.port), timeout=WAIT) as s:
        s.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + body)
        received = b""
        try:
            while b"\r\n\r\n" not in received:
                chunk = s.recv(65536)
                if not chunk:
                    break
                received += chunk
        except TimeoutError:
            return None
    if not received.startswith(b"HTTP/1.1 "):
        return None
    return int(received.split(b" ", 2)[1]), received


CALLERS = {
    "no key": (None, 401),
    "forged key": ("gs_0123456789ab_forged", 401),
    "viewer": ("viewer", 403),
}


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
@pytest.mark.parametrize("caller", list(CALLERS))
@pytest.mark.parametrize("path", ["/api/items", "/api/items/records"])
def test_attack_a_caller_without_the_right_is_refused_before_its_body_is_read(
        limited: Gated, path: str, caller: str, chunked: bool) -> None:
    """Before: no answer within WAIT — the server read on, waiting for 30 MiB (or buffering the chunked body)."""
    presented, status = CALLERS[caller]
    auth = key(limited, "viewer") if presented == "viewer" else presented
    records = path.endswith("/records")
    if records:
        got = answer_while_body_owed(limited.url, path, auth, chunked=chunked, content_type="application/json",
                                     first=b'{"records": [', declared=60_000)
    else:
        got = answer_while_body_owed(limited.url, path, auth, chunked=chunked)
    assert got is not None, "the server waited for the body before checking the caller"
    assert got[0] == status, got[1][:300]


def _small_upload(c: httpx.Client, n: int) -> httpx.Response:
    return c.post("/api/items", files={"file": (f"small-{n}.md", f"# Small {n}\n\nA small note {n}.\n".encode(),
                                                "text/markdown")})


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_attack_an_editor_over_its_upload_budget_is_refused_before_its_body_is_read(
        limited: Gated, chunked: bool) -> None:
    """Uploads spent no budget: an editor could post 32 MiB bodies without end. Now ``api.ingest_per_minute``
    per key (and the tenant's share) is counted, before the body is read. Before: every small upload was a
    200, and the big one was read in full."""
    editor = key(limited, "editor")
    with httpx.Client(base_url=limited.url, timeout=60, headers={"Authorization": f"Bearer {editor}"}) as c:
        assert [_small_upload(c, n).status_code for n in range(BUDGET)] == [200] * BUDGET
    got = answer_while_body_owed(limited.url, "/api/items", editor, chunked=chunked)
    assert got is not None, "the server read the body of an editor over its upload budget"
    assert got[0] == 429, got[1][:300]
    assert b"retry-after" in got[1].lower()


def test_attack_records_spend_the_same_upload_budget(limited: Gated) -> None:
    editor = key(limited, "editor")
    body = {"collection": "rel", "records": [{"id": "r1", "product": "Pump", "version": "1", "notes": "serviced"}]}
    with httpx.Client(base_url=limited.url, timeout=60, headers={"Authorization": f"Bearer {editor}"}) as c:
        codes = [c.post("/api/items/records", json=body).status_code for _ in range(BUDGET + 1)]
    assert codes == [200] * BUDGET + [429], codes


def test_a_chunked_body_over_the_limit_is_refused_as_it_streams(limited: Gated) -> None:
    """An editor with budget left streams a chunked body past the 64 KiB JSON limit and never finishes it: the
    413 comes when the limit is crossed, not after the whole body (which never comes) was buffered."""
    editor = key(limited, "editor", tenant="adm-stream")
    got = answer_while_body_owed(limited.url, "/api/items/records", editor, chunked=True,
                                 content_type="application/json", first=b'{"records": [' + b" " * 70_000)
    assert got is not None, "the server waited for the end of a body already over the limit"
    assert got[0] == 413, got[1][:300]


def test_the_checks_before_the_body_do_not_refuse_a_good_upload(limited: Gated) -> None:
    """The control: an editor within budget uploads a file and posts records, answered as before."""
    editor = key(limited, "editor", tenant="adm-good")
    with httpx.Client(base_url=limited.url, timeout=60, headers={"Authorization": f"Bearer {editor}"}) as c:
        assert _small_upload(c, 99).status_code == 200
        r = c.post("/api/items/records", json={"collection": "rel", "records": [
            {"id": "g1", "product": "Gauge", "version": "2", "notes": "calibrated"}]})
        assert r.status_code == 200 and r.json()["added"] == 1, r.text


def _body_routes() -> list[str]:
    """Every route that takes a body, from the app's own OpenAPI schema (a route added later is probed too)."""
    from .test_anonymous import ROUTES

    return [path for method, path in ROUTES if method in ("POST", "PUT", "PATCH")]


@pytest.mark.parametrize("path", _body_routes())
def test_attack_no_route_reads_an_anonymous_body(limited: Gated, path: str) -> None:
    """The same probe on every route with a body (JSON bodies are 64 KiB at most, but each was read and parsed
    before its 401)."""
    concrete = path.replace("{", "").replace("}", "")
    got = answer_while_body_owed(limited.url, concrete, None, content_type="application/json", first=b'{"a": ',
                                 declared=60_000)
    assert got is not None, f"{path} read the body before checking the key"
    assert got[0] == 401, got[1][:300]
