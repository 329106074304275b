"""Local mode must not be served to the network by accident (round 11; the real ``groundsearch serve``).

Local mode — the default — has no keys: whoever reaches the port is the one trusted user, admin over every tenant.
Its guard (``LocalOnly``) refuses other origins and, bound to loopback, other ``Host`` names; bound to ``0.0.0.0``
neither protects anything: every machine that can route to the address uploads, deletes and reads every tenant's
items, and a DNS-rebound page is same-origin again. ``serve --host 0.0.0.0`` (what a container or a worker behind a
load balancer is started with; docs/scaling.md's ``groundsearch serve``) started such a server without a word. It
now refuses (exit 2) unless keys are required, or ``api.local_mode_network`` says the port is private anyway.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

import groundsearch

from .conftest import stop

ENTRY = str(Path(sys.executable).with_name("groundsearch"))
CONFIG = 'data_dir = "data"\nembedder = "hash"\n\n[collections.docs]\nkind = "documents"\n'


def _network_address() -> str:
    """An address of this machine that is not loopback: what another machine on its network would connect to."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # no packet is sent: this only asks the kernel for the route's source
            address = s.getsockname()[0]
        except OSError:
            address = ""
    if not address or address.startswith("127."):
        pytest.skip("this machine has no non-loopback IPv4 address to connect through")
    return address


@contextmanager
def serve(tmp: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[subprocess.Popen[str]]:
    (tmp / "groundsearch.toml").write_text(CONFIG, encoding="utf-8")
    source = str(Path(groundsearch.__file__).resolve().parents[1])  # the code under test, whatever the cwd
    full = {**os.environ, "GROUNDSEARCH_CONFIG": str(tmp / "groundsearch.toml"), "OMP_NUM_THREADS": "1",
            "PYTHONPATH": source, **(env or {})}
    full.pop("GROUNDSEARCH_DATA_DIR", None)
    proc = subprocess.Popen([ENTRY, "serve", "--port", "0", *args], cwd=tmp, env=full, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        yield proc
    finally:
        stop(proc)


def _url(proc: subprocess.Popen[str], address: str) -> str:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    match = re.search(r":(\d+)/", line)
    why = proc.stderr.read()[-2000:] if proc.stderr and not match else ""
    assert match, f"server did not start (exit {proc.poll()}): {line!r} {why}"
    return f"http://{address}:{match.group(1)}"


def test_attack_local_mode_bound_to_every_interface_is_refused(tmp_path: Path) -> None:
    """Before the fix the server started, and a client connecting through the machine's network address uploaded
    a file as the trusted admin. Now ``serve`` exits 2 naming the choice, before it opens anything."""
    address = _network_address()
    with serve(tmp_path, "--host", "0.0.0.0") as proc:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if line:  # the attack, on the code before the fix: it serves, and the network is admin
            port = re.search(r":(\d+)/", line).group(1)  # type: ignore[union-attr]
            up = httpx.post(f"http://{address}:{port}/api/items", timeout=30,
                            files={"file": ("planted.md", b"# Planted\n\nFrom the network.\n", "text/markdown")})
            pytest.fail(f"local mode served 0.0.0.0; an upload from {address} answered {up.status_code}")
        assert proc.wait(30) == 2
        assert proc.stderr is not None
        message = proc.stderr.read()
        assert "--require-keys" in message and "local_mode_network" in message, message
    assert not (tmp_path / "data").exists()  # refused before the store was opened


def test_keys_required_on_every_interface_is_served(tmp_path: Path) -> None:
    address = _network_address()
    with serve(tmp_path, "--host", "0.0.0.0", "--require-keys") as proc:
        url = _url(proc, address)
        assert httpx.get(f"{url}/api/search/preview", params={"q": "x"}, timeout=30).status_code == 401


def test_local_mode_on_the_network_when_asked_for_by_name(tmp_path: Path) -> None:
    """A container publishing its port to the host's loopback only binds 0.0.0.0 inside; it says so."""
    address = _network_address()
    with serve(tmp_path, "--host", "0.0.0.0", env={"GROUNDSEARCH_LOCAL_MODE_NETWORK": "true"}) as proc:
        url = _url(proc, address)
        assert httpx.get(f"{url}/api/search/preview", params={"q": "x"}, timeout=30).status_code == 200


def test_local_mode_on_loopback_is_unchanged(tmp_path: Path) -> None:
    with serve(tmp_path, "--host", "127.0.0.1") as proc:
        url = _url(proc, "127.0.0.1")
        assert httpx.get(f"{url}/api/search/preview", params={"q": "x"}, timeout=30).status_code == 200
