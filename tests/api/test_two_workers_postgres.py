"""Two ``groundsearch serve`` processes on one Postgres database and one Redis: what one worker writes or
counts, the other sees. The real servers (the suite's embedded Postgres, Debian's redis-server) and real
processes; the hash embedder only keeps start-up cheap, ranking is not the point.

The control for the shared rate limit (two workers without Redis each keep their own budget) is in
``test_redis_limits.py``; here the store is shared too, so the only copy of every row is the database.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest

from groundsearch.engine import Engine
from groundsearch.settings import load_settings

from .live import CONFIG, FIXTURES
from .test_redis_limits import REDIS, redis_server, worker

LIMIT = 6

pytestmark = pytest.mark.skipif(REDIS is None, reason="redis-server not installed (apt-get install redis-server)")


@pytest.fixture(scope="module")
def cluster_config(tmp_path_factory: pytest.TempPathFactory, postgres_database: Callable[[], str]) -> Path:
    """One database holding the fixture corpus, and the config both workers start from."""
    tmp = tmp_path_factory.mktemp("cluster")
    dsn = postgres_database()
    config = tmp / "groundsearch.toml"
    config.write_text(f'data_dir = "data"\nembedder = "hash"\ndatabase_url = {json.dumps(dsn)}\n\n'
                      f"[api]\nsearch_per_minute = {LIMIT}\n\n{CONFIG}", encoding="utf-8")
    engine = Engine.open(load_settings(config, env={}))
    try:
        for path, collection in ((FIXTURES / "docs", "docs"), (FIXTURES / "releases.jsonl", "releases")):
            assert not engine.ingest([path], collection).errors
    finally:
        engine.close()
    return config


@pytest.fixture(scope="module")
def cluster(cluster_config: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[str]]]:
    with redis_server(tmp_path_factory.mktemp("redis")) as url, ExitStack() as stack:
        yield url, [stack.enter_context(worker(cluster_config, url)) for _ in range(2)]


@pytest.fixture()
def workers(cluster: tuple[str, list[str]]) -> list[str]:
    """Both workers, with every rate-limit bucket emptied: each test starts with the whole budget."""
    import redis

    url, urls = cluster
    redis.Redis.from_url(url).flushall()
    return urls


def test_both_workers_use_the_database_and_redis(workers: list[str]) -> None:
    health = [httpx.get(f"{w}/api/search/health", timeout=30).json() for w in workers]
    assert [h["rate_limits"] for h in health] == ["redis", "redis"], health


def test_a_conversation_written_on_one_worker_is_read_and_deleted_on_the_other(workers: list[str]) -> None:
    a, b = workers
    first = httpx.post(f"{a}/api/chat", json={"message": "How do I ingest JSONL records?"}, timeout=120)
    assert first.status_code == 200, first.text
    cid = first.json()["conversation_id"]
    second = httpx.post(f"{b}/api/chat", json={"message": "We have 2 million documents", "conversation_id": cid},
                        timeout=120)
    assert second.status_code == 200 and second.json()["turn"] == 2, second.text  # b continued a's conversation
    stored = httpx.get(f"{a}/api/chat/{cid}", timeout=30)
    assert [t["user"] for t in stored.json()["turns"]] == ["How do I ingest JSONL records?",
                                                           "We have 2 million documents"]
    assert httpx.delete(f"{b}/api/chat/{cid}", timeout=30).status_code == 204
    assert httpx.get(f"{a}/api/chat/{cid}", timeout=30).status_code == 404


def test_a_record_ingested_on_one_worker_is_found_on_the_other(workers: list[str]) -> None:
    a, b = workers
    record = {"product": "Quixotron", "version": "9.1", "date": "2026-11-30",
              "notes": "Quixotron adds zanzibar sharding", "url": "https://example.com/quixotron"}
    r = httpx.post(f"{a}/api/items/records", json={"collection": "releases", "records": [record]}, timeout=120)
    assert r.status_code == 200, r.text
    found = httpx.post(f"{b}/api/search", json={"query": "zanzibar sharding"}, timeout=120)
    assert found.status_code == 200, found.text
    assert any("Quixotron" in (hit.get("title") or "") for hit in found.json()["results"]), found.json()["results"]


def test_the_rate_limit_is_counted_across_both_workers(workers: list[str]) -> None:
    codes = []
    with httpx.Client(timeout=120) as c:
        for i in range(2 * LIMIT):
            codes.append(c.post(f"{workers[i % 2]}/api/search", json={"query": "atlas release"}).status_code)
    assert codes.count(200) == LIMIT and codes[LIMIT:] == [429] * LIMIT, codes
