"""Attack: rotate ``X-Forwarded-For`` to dodge the local-mode rate limit, against the real ``groundsearch serve``.

The server is the CLI's own (a subprocess), because the hole was in how ``serve`` configured uvicorn: it trusted
forwarding headers from 127.0.0.1, so every loopback client could name itself anything. Forwarding headers may
only count when a proxy is configured (``api.trusted_proxies`` / ``GROUNDSEARCH_TRUSTED_PROXIES``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from .conftest import stop

CONFIG = """
embedder = "hash"

[api]
preview_per_minute = 3

[collections.docs]
kind = "documents"
"""


@contextmanager
def cli_server(tmp: Path, **env: str) -> Iterator[str]:
    (tmp / "groundsearch.toml").write_text(CONFIG, encoding="utf-8")
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("GROUNDSEARCH_", "FORWARDED_ALLOW_IPS"))}
    environ.update(env)
    exe = Path(sys.executable).with_name("groundsearch")
    proc = subprocess.Popen(
        [str(exe), "--config", str(tmp / "groundsearch.toml"), "--data-dir", str(tmp / "data"), "serve", "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=environ, cwd=tmp,
    )
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 120
        url = None
        while url is None:
            line = proc.stdout.readline()
            if not line and proc.poll() is not None:
                raise RuntimeError(f"groundsearch serve exited with {proc.returncode}")
            match = re.search(r"(http://127\.0\.0\.1:\d+)/", line)
            if match:
                url = match.group(1)
            if time.monotonic() > deadline:
                raise RuntimeError("groundsearch serve did not print its URL")
        yield url
    finally:
        stop(proc)


def _previews(url: str, forwarded_for: list[str]) -> list[int]:
    with httpx.Client(base_url=url, timeout=30) as c:
        return [c.get("/api/search/preview", params={"q": "atl"}, headers={"X-Forwarded-For": ip}).status_code
                for ip in forwarded_for]


def test_forwarded_for_does_not_reset_the_budget_without_a_proxy(tmp_path: Path) -> None:
    with cli_server(tmp_path) as url:
        codes = _previews(url, [f"203.0.113.{i}" for i in range(1, 6)])
    # one real peer (127.0.0.1), one budget of 3, whatever the header claims
    assert codes == [200, 200, 200, 429, 429], codes


def test_forwarded_for_counts_only_from_a_configured_proxy(tmp_path: Path) -> None:
    with cli_server(tmp_path, GROUNDSEARCH_TRUSTED_PROXIES="127.0.0.1") as url:
        # behind a trusted proxy each forwarded client has its own budget ...
        assert _previews(url, ["198.51.100.7"] * 4) == [200, 200, 200, 429]
        assert _previews(url, ["198.51.100.8"]) == [200]


def test_uvicorn_config_trusts_nobody_by_default(tmp_path: Path) -> None:
    """The app's own server configuration: forwarding headers off unless ``trusted_proxies`` names a proxy."""
    from groundsearch.interfaces.api.app import uvicorn_config
    from groundsearch.settings import load_settings

    plain = load_settings(None, env={}, data_dir=str(tmp_path))
    config = uvicorn_config(object(), plain)  # type: ignore[arg-type]
    assert config.proxy_headers is False
    proxied = load_settings(None, env={"GROUNDSEARCH_TRUSTED_PROXIES": "10.0.0.1, 10.0.0.2"}, data_dir=str(tmp_path))
    assert proxied.api.trusted_proxies == ("10.0.0.1", "10.0.0.2")
    config = uvicorn_config(object(), proxied)  # type: ignore[arg-type]
    assert config.proxy_headers is True and config.forwarded_allow_ips == ["10.0.0.1", "10.0.0.2"]
