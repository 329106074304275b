"""Two API worker processes share one rate limit through a real redis-server (Debian's), started by this test.

Control: the same two workers without Redis each keep their own budget, so the shared-limit assertion can fail.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx
import pytest

from .live import CONFIG, make_engine, make_settings

REDIS = shutil.which("redis-server")
GROUNDSEARCH = Path(sys.executable).parent / "groundsearch"
LIMIT = 6

pytestmark = pytest.mark.skipif(REDIS is None, reason="redis-server not installed (apt-get install redis-server)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def redis_server(tmp: Path) -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen([REDIS, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                             "--dir", str(tmp)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        import redis

        client = redis.Redis(port=port)
        deadline = time.monotonic() + 15
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(10)


@contextmanager
def worker(config: Path, redis_url: str | None) -> Iterator[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GROUNDSEARCH_")}
    if redis_url:
        env["GROUNDSEARCH_REDIS_URL"] = redis_url
    proc = subprocess.Popen([str(GROUNDSEARCH), "--config", str(config), "serve", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        assert line.startswith("groundsearch serving on http://"), (line, proc.stderr.read() if proc.stderr else "")
        yield line.split()[3].rstrip("/")
    finally:
        proc.terminate()
        proc.wait(15)


@pytest.fixture(scope="module")
def configs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    tmp = tmp_path_factory.mktemp("redis")
    make_engine(tmp, make_settings(tmp)).close()
    out = []
    for name in ("a", "b"):  # each worker gets its own copy of the index; what they share is Redis
        shutil.copytree(tmp / "data", tmp / name / "data")
        path = tmp / name / "groundsearch.toml"
        path.write_text(f'data_dir = "data"\nembedder = "hash"\n\n[api]\nsearch_per_minute = {LIMIT}\n\n' + CONFIG)
        out.append(path)
    return out


def hammer(urls: list[str], n: int) -> list[int]:
    codes = []
    with httpx.Client(timeout=30) as c:
        for i in range(n):
            r = c.post(f"{urls[i % 2]}/api/search", json={"query": "atlas release"})
            codes.append(r.status_code)
            if r.status_code == 429:
                assert r.json()["error"]["code"] == "RATE_LIMITED" and int(r.headers["retry-after"]) >= 1
    return codes


def test_two_workers_share_one_limit_through_redis(configs: list[Path], tmp_path: Path) -> None:
    with redis_server(tmp_path) as url, ExitStack() as stack:
        workers = [stack.enter_context(worker(c, url)) for c in configs]
        health = [httpx.get(f"{w}/api/search/health").json() for w in workers]
        assert [h["rate_limits"] for h in health] == ["redis", "redis"]
        codes = hammer(workers, 2 * LIMIT)
    assert codes.count(200) == LIMIT, codes
    assert codes[LIMIT:] == [429] * LIMIT, codes


def test_without_redis_each_worker_has_its_own_budget(configs: list[Path]) -> None:
    with ExitStack() as stack:
        workers = [stack.enter_context(worker(c, None)) for c in configs]
        codes = hammer(workers, 2 * LIMIT)
    assert codes.count(200) == 2 * LIMIT, codes
