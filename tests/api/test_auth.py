"""API keys, roles, tenant isolation and per-key rate limits, through the real app over HTTP."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from groundsearch.interfaces.api import create_app
from groundsearch.interfaces.api.auth import KeyStore
from groundsearch.interfaces.cli import main

from .conftest import fresh
from .live import serve


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    tmp = tmp_path_factory.mktemp("keyed")
    engine = fresh(tmp, local_mode=False, search_per_minute=1000, preview_per_minute=1000)
    store = KeyStore(tmp / "keys.json")
    keys = {
        "viewer_a": store.create("viewer", tenant="acme")[1],
        "editor_a": store.create("editor", tenant="acme")[1],
        "viewer_b": store.create("viewer", tenant="globex")[1],
        "editor_b": store.create("editor", tenant="globex")[1],
        "admin": store.create("admin", tenant="acme")[1],
    }
    with engine, serve(create_app(engine, keys=store)) as url:
        yield url, keys


def h(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def test_keys_are_stored_hashed(tmp_path: Path) -> None:
    store = KeyStore(tmp_path / "keys.json")
    record, key = store.create("viewer", tenant="t")
    raw = (tmp_path / "keys.json").read_text()
    secret = key.split("_", 2)[2]
    assert secret not in raw and record.sha256 in raw
    assert oct((tmp_path / "keys.json").stat().st_mode & 0o777) == "0o600"
    assert store.authenticate(key).tenant == "t"
    store.revoke(record.id)
    with pytest.raises(Exception, match="not valid"):
        store.authenticate(key)


def test_missing_and_bad_keys_are_401(keyed: tuple[str, dict[str, str]]) -> None:
    url, keys = keyed
    for headers in ({}, h("nonsense"), h("gs_000000000000_wrong"), {"X-API-Key": keys["viewer_a"] + "x"}):
        r = httpx.post(f"{url}/api/search", json={"query": "atlas"}, headers=headers)
        assert r.status_code == 401 and r.json()["error"]["code"] == "UNAUTHENTICATED"
    ok = httpx.post(f"{url}/api/search", json={"query": "atlas"}, headers={"X-API-Key": keys["viewer_a"]})
    assert ok.status_code == 200
    assert httpx.get(f"{url}/api/search/health").status_code == 200  # probes need no key


def test_roles(keyed: tuple[str, dict[str, str]]) -> None:
    url, keys = keyed
    doc = {"file": ("roles.md", b"# Role test\n\nOnly editors may upload.\n", "text/markdown")}
    r = httpx.post(f"{url}/api/items", files=doc, headers=h(keys["viewer_a"]))
    assert r.status_code == 403 and r.json()["error"]["code"] == "FORBIDDEN"
    assert r.json()["error"]["details"]["required_role"] == "editor"
    assert httpx.post(f"{url}/api/items", files=doc, headers=h(keys["editor_a"])).status_code == 200
    assert httpx.post(f"{url}/api/search/cache/clear", headers=h(keys["editor_a"])).status_code == 403
    # the caches serve every tenant: clearing them is the operator's (tests/security/test_cache_clear_scope.py)
    assert httpx.post(f"{url}/api/search/cache/clear", headers=h(keys["admin"])).status_code == 403
    assert httpx.get(f"{url}/api/keys", headers=h(keys["editor_a"])).status_code == 403
    listed = httpx.get(f"{url}/api/keys", headers=h(keys["admin"]))  # a tenant admin lists its tenant's keys
    assert listed.status_code == 200 and len(listed.json()) == 3 and {k["tenant"] for k in listed.json()} == {"acme"}
    assert all("key" not in k and "sha256" not in k for k in listed.json())


def test_tenants_never_see_each_other(keyed: tuple[str, dict[str, str]]) -> None:
    url, keys = keyed
    secret = {"file": ("zephyr-plan.md", b"# Zephyr merger plan\n\nZephyr acquires Quillon in March.\n",
                       "text/markdown")}
    up = httpx.post(f"{url}/api/items", files=secret, headers=h(keys["editor_b"]))
    assert up.status_code == 200 and up.json()["added"] == 1

    def titles(key: str) -> list[str]:
        r = httpx.post(f"{url}/api/search", json={"query": "zephyr quillon merger"}, headers=h(key))
        return [x["title"] for x in r.json()["results"]]

    assert "Zephyr merger plan" in titles(keys["viewer_b"])
    assert "Zephyr merger plan" not in titles(keys["viewer_a"])
    preview_a = httpx.get(f"{url}/api/search/preview", params={"q": "zephyr"}, headers=h(keys["viewer_a"])).json()
    preview_b = httpx.get(f"{url}/api/search/preview", params={"q": "zephyr"}, headers=h(keys["viewer_b"])).json()
    assert preview_a["items"] == [] and preview_b["items"]
    item_id = preview_b["items"][0]["item_id"]
    assert httpx.get(f"{url}/api/items/{item_id}", headers=h(keys["viewer_b"])).status_code == 200
    assert httpx.get(f"{url}/api/items/{item_id}", headers=h(keys["viewer_a"])).status_code == 404
    assert httpx.delete(f"{url}/api/items/{item_id}", headers=h(keys["editor_a"])).status_code == 404
    assert httpx.get(f"{url}/api/items/{item_id}", headers=h(keys["viewer_b"])).status_code == 200


def test_keys_cli_creates_a_working_key(keyed: tuple[str, dict[str, str]], tmp_path: Path) -> None:
    data = tmp_path / "data"
    result = CliRunner().invoke(main, ["--data-dir", str(data), "keys", "create", "--role", "editor",
                                       "--tenant", "acme"])
    assert result.exit_code == 0, result.output
    key = result.stdout.strip().splitlines()[-1]
    assert key.startswith("gs_")
    store = KeyStore(data / "api-keys.json")
    who = store.authenticate(key)
    assert (who.role, who.tenant) == ("editor", "acme")
    stored = json.loads((data / "api-keys.json").read_text())["keys"]
    assert key.split("_", 2)[2] not in json.dumps(stored)
    listed = CliRunner().invoke(main, ["--data-dir", str(data), "keys", "list"])
    assert who.key_id in listed.output
    revoked = CliRunner().invoke(main, ["--data-dir", str(data), "keys", "revoke", who.key_id])
    assert revoked.exit_code == 0
    assert store.records() == []


def test_rate_limits_per_key_with_retry_after(tmp_path: Path) -> None:
    engine = fresh(tmp_path, local_mode=False, search_per_minute=3, preview_per_minute=5)
    store = KeyStore(tmp_path / "keys.json")
    a, b = store.create("viewer", tenant="")[1], store.create("viewer", tenant="")[1]
    with engine, serve(create_app(engine, keys=store)) as url:
        codes = [httpx.post(f"{url}/api/search", json={"query": "atlas"}, headers=h(a)).status_code
                 for _ in range(4)]
        assert codes == [200, 200, 200, 429]
        r = httpx.post(f"{url}/api/search?stream=true", json={"query": "atlas"}, headers=h(a))
        assert r.status_code == 429 and r.json()["error"]["code"] == "RATE_LIMITED"
        assert 1 <= int(r.headers["retry-after"]) <= 60
        assert r.json()["error"]["details"] == {"bucket": "search", "limit_per_minute": 3}
        # the intelligent-search alias shares the search budget; another key has its own
        assert httpx.post(f"{url}/api/intelligent-search", json={"query": "atlas"}, headers=h(a)).status_code == 429
        assert httpx.post(f"{url}/api/search", json={"query": "atlas"}, headers=h(b)).status_code == 200
        # the preview budget is separate from the search budget
        previews = [httpx.get(f"{url}/api/search/preview", params={"q": "atl"}, headers=h(a)).status_code
                    for _ in range(6)]
        assert previews == [200] * 5 + [429]


def test_local_mode_limits_by_client(tmp_path: Path) -> None:
    engine = fresh(tmp_path, search_per_minute=2)
    with engine, serve(create_app(engine)) as url:
        codes = [httpx.post(f"{url}/api/search", json={"query": "atlas"}).status_code for _ in range(3)]
        assert codes == [200, 200, 429]
