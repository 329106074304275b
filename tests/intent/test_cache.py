"""Intent cache: normalised keys with schema version and hints; LRU+TTL in process; a real Redis."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

from groundsearch.query.intent.cache import MemoryIntentCache, RedisIntentCache, build_intent_cache, cache_key
from groundsearch.types import INTENT_SCHEMA_VERSION, Hints, Intent

DOMAINS = ("docs", "releases", "papers")
INTENT = Intent(format="table", domains=("papers",), complexity="medium", confidence=0.9)


def test_key_normalises_text_and_separates_hints_domains():
    assert cache_key("Latest  AI?", None, DOMAINS) == cache_key("latest ai", None, DOMAINS)
    assert cache_key("latest ai", None, DOMAINS) != cache_key("latest ai", Hints(format="table"), DOMAINS)
    assert cache_key("latest ai", None, DOMAINS) != cache_key("latest ai", None, ("docs",))
    assert INTENT_SCHEMA_VERSION  # part of every key (a schema change never serves a stale shape)


def test_key_changes_when_the_reader_changes(tmp_path, monkeypatch):
    """An upgraded lexicon must not be answered by readings of the old one still in a shared Redis."""
    from groundsearch.query.intent import cache as cache_module

    package = Path(cache_module.__file__).parent
    for name in ("lexicon.py", "format_model.npz"):
        (tmp_path / name).write_bytes((package / name).read_bytes())
    before = cache_module.reader_fingerprint(tmp_path)
    assert before == cache_module.reader_fingerprint(tmp_path)
    (tmp_path / "lexicon.py").write_bytes((package / "lexicon.py").read_bytes() + b"# one more word\n")
    after = cache_module.reader_fingerprint(tmp_path)
    assert after != before
    key = cache_key("latest ai", None, DOMAINS)
    monkeypatch.setattr(cache_module, "_fingerprint", lambda: after)
    assert cache_key("latest ai", None, DOMAINS) != key


def test_memory_cache_lru_and_ttl():
    now = [0.0]
    cache = MemoryIntentCache(size=2, ttl_s=10, timer=lambda: now[0])
    cache.put("a", INTENT)
    cache.put("b", INTENT)
    cache.get("a")
    cache.put("c", INTENT)  # evicts the least recently used: b
    assert cache.get("a") == INTENT and cache.get("b") is None and cache.get("c") == INTENT
    now[0] = 11.0
    assert cache.get("a") is None


def test_zero_size_disables():
    cache = MemoryIntentCache(size=0)
    cache.put("a", INTENT)
    assert cache.get("a") is None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def redis_url(tmp_path):
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server)")
    port = _free_port()
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_redis_cache_round_trip_with_ttl(redis_url):
    cache = build_intent_cache(redis_url, 10, 60)
    assert isinstance(cache, RedisIntentCache)
    assert cache.get("k") is None
    cache.put("k", INTENT)
    assert cache.get("k") == INTENT
    import redis

    assert 0 < redis.Redis.from_url(redis_url).ttl("k") <= 60


def test_redis_outage_costs_a_miss_not_an_error():
    cache = RedisIntentCache(f"redis://127.0.0.1:{_free_port()}/0", 60)
    cache.put("k", INTENT)
    assert cache.get("k") is None
