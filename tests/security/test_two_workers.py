"""The shared state of two API workers, attacked with keys: two ``groundsearch serve`` processes on one Postgres
database and one Redis (the suite's embedded Postgres, Debian's redis-server), API keys required.

A conversation's owner and a key's budget must hold across workers: a viewer reaching the second worker gets
nothing of an editor's conversation the first one stored, and a key spending its budget on both workers — with
a fresh ``X-Forwarded-For`` on every request — is stopped after exactly one budget, while another key of the
same tenant keeps its own.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest

from groundsearch.engine import Engine
from groundsearch.interfaces.api.auth import KeyStore, keys_path
from groundsearch.settings import load_settings
from tests.api.live import CONFIG, FIXTURES
from tests.api.test_redis_limits import REDIS, redis_server, worker

LIMIT = 6

pytestmark = pytest.mark.skipif(REDIS is None, reason="redis-server not installed (apt-get install redis-server)")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory,
            postgres_database: Callable[[], str]) -> Iterator[tuple[str, list[str], KeyStore]]:
    tmp = tmp_path_factory.mktemp("two-workers-keys")
    dsn = postgres_database()
    config = tmp / "groundsearch.toml"
    config.write_text(f'data_dir = "data"\nembedder = "hash"\ndatabase_url = {json.dumps(dsn)}\n\n'
                      f"[api]\nlocal_mode = false\nsearch_per_minute = {LIMIT}\n\n{CONFIG}", encoding="utf-8")
    settings = load_settings(config, env={})
    engine = Engine.open(settings)
    try:
        assert not engine.ingest([FIXTURES / "docs"], "docs", tenant="w").errors
    finally:
        engine.close()
    keys = KeyStore(keys_path(settings))
    with redis_server(tmp_path_factory.mktemp("redis")) as url, ExitStack() as stack:
        yield url, [stack.enter_context(worker(config, url)) for _ in range(2)], keys


@pytest.fixture()
def workers(cluster: tuple[str, list[str], KeyStore]) -> tuple[list[str], KeyStore]:
    import redis

    url, urls, keys = cluster
    redis.Redis.from_url(url).flushall()
    return urls, keys


def _as(key: str, **headers: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}", **headers}


def test_attack_a_viewer_on_the_other_worker_cannot_reach_an_editors_conversation(
        workers: tuple[list[str], KeyStore]) -> None:
    (a, b), keys = workers
    editor, viewer = keys.create("editor", tenant="w")[1], keys.create("viewer", tenant="w")[1]
    first = httpx.post(f"{a}/api/chat", json={"message": "How do I ingest JSONL records?",
                                              "conversation_id": "w-private"}, headers=_as(editor), timeout=120)
    assert first.status_code == 200, first.text
    assert httpx.get(f"{b}/api/chat/w-private", headers=_as(viewer), timeout=30).status_code == 404
    assert httpx.delete(f"{b}/api/chat/w-private", headers=_as(viewer), timeout=30).status_code == 404
    theirs = httpx.post(f"{b}/api/chat", json={"message": "what did I ask?", "conversation_id": "w-private"},
                        headers=_as(viewer), timeout=120)
    assert theirs.status_code == 200 and theirs.json()["turn"] == 1, theirs.text
    own = httpx.get(f"{b}/api/chat/w-private", headers=_as(editor), timeout=30)
    assert [t["user"] for t in own.json()["turns"]] == ["How do I ingest JSONL records?"]


def test_attack_one_budget_per_key_across_both_workers_whatever_the_forwarded_address(
        workers: tuple[list[str], KeyStore]) -> None:
    (a, b), keys = workers
    spender, other = keys.create("viewer", tenant="w")[1], keys.create("viewer", tenant="w")[1]
    codes = []
    with httpx.Client(timeout=120) as c:
        for i in range(2 * LIMIT):
            codes.append(c.post(f"{(a, b)[i % 2]}/api/search", json={"query": "atlas release"},
                                headers=_as(spender, **{"X-Forwarded-For": f"203.0.113.{i + 1}"})).status_code)
        assert codes.count(200) == LIMIT and codes[LIMIT:] == [429] * LIMIT, codes
        assert c.post(f"{b}/api/search", json={"query": "atlas release"}, headers=_as(other)).status_code == 200


def test_attack_the_shared_intent_cache_in_redis_is_per_tenant(workers: tuple[list[str], KeyStore]) -> None:
    """With Redis the intent cache is one for both workers: tenant A's search on the first worker must not come
    back to tenant B on the second as ``cache_hit`` (what another tenant asked); B's own repeat does, on either
    worker (the control: the cache is shared)."""
    (a, b), keys = workers
    tenant_a, tenant_b = keys.create("viewer", tenant="w")[1], keys.create("viewer", tenant="w-other")[1]

    def hit(url: str, key: str) -> bool:
        r = httpx.post(f"{url}/api/search", json={"query": "zorblax acquisition of quimbly, q3", "limit": 3},
                       headers=_as(key), timeout=120)
        assert r.status_code == 200, r.text
        return bool(r.json()["diagnostics"]["cache_hit"])

    assert hit(a, tenant_a) is False and hit(b, tenant_a) is True
    assert hit(b, tenant_b) is False
    assert hit(a, tenant_b) is True
