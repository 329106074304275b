"""A long query spends the search budget by its length, over the real app.

Every new request is encoded by the intent steps' e5 model up to its 512-token window, so a 2,000-character
request costs ~1.1 s of CPU against 0.03 s for a 60-character one (measured through this app; the window cap
itself is tests/security/test_query_embedding_cost.py). Counted as one request, a key's 30 a minute of such
requests asked for half a core, and a tenant's ten keys' worth for five — while its searches still fit the
budget. A request now spends one unit per 200 bytes past the first (at most 10, the window's cost), on every
route that takes caller text into the pipeline: search (POST, GET, both streams) and chat turns.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

import httpx
import pytest

from groundsearch.interfaces.api import create_app
from groundsearch.interfaces.api.auth import KeyStore
from groundsearch.interfaces.api.ratelimit import MAX_UNITS, text_units
from tests.api.live import serve

from .conftest import Server, open_engine, upload

BUDGET = 2 * MAX_UNITS
_fresh = itertools.count()


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("query-cost")
    engine = open_engine(tmp)
    api = engine.settings.api.model_copy(update={"search_per_minute": BUDGET, "tenant_budget_keys": 1000})
    settings = engine.settings.model_copy(update={"api": api})
    keys = KeyStore(tmp / "keys.json")
    with engine, serve(create_app(engine, settings, keys=keys)) as url:
        server = Server(url, engine, keys, tmp)
        r = upload(server.client(server.key("editor", "qc")), "qc.md", "# Quillwort\n\nQuillwort grows in lakes.\n")
        assert r.status_code == 200, r.text
        yield server


def _long() -> str:
    """A max-length request new to every cache (the intent cache is keyed by the text)."""
    n = next(_fresh)
    return " ".join(f"w{n}x{i}" for i in range(400))[:2000]


CALLS: dict[str, Callable[[httpx.Client, str], httpx.Response]] = {
    "search": lambda c, q: c.post("/api/search", json={"query": q}),
    "search, GET": lambda c, q: c.get("/api/search", params={"q": q}),
    "search, SSE stream": lambda c, q: c.get("/api/search", params={"q": q, "stream": "true"}),
    "intelligent search, POST stream": lambda c, q: c.post("/api/intelligent-search?stream=true", json={"query": q}),
    "chat": lambda c, q: c.post("/api/chat", json={"message": q}),
}


@pytest.mark.parametrize("route", list(CALLS))
def test_attack_max_length_queries_spend_the_budget_by_their_length(limited: Server, route: str) -> None:
    assert text_units(_long()) == MAX_UNITS
    with limited.client(limited.key("viewer", "qc")) as c:
        answers = [CALLS[route](c, _long()).status_code for _ in range(BUDGET // MAX_UNITS + 1)]
        assert answers[:-1] == [200] * (BUDGET // MAX_UNITS), answers
        assert answers[-1] == 429, f"{len(answers)} max-length requests admitted on a budget of {BUDGET}: {answers}"
        r = CALLS[route](c, "quillwort")
        assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1


def test_a_refused_long_query_spends_nothing_and_short_queries_keep_the_whole_budget(limited: Server) -> None:
    with limited.client(limited.key("viewer", "qc")) as c:
        assert c.post("/api/search", json={"query": _long()}).status_code == 200  # 10 of 20
        assert c.post("/api/search", json={"query": "quillwort " * 95}).status_code == 200  # 950 bytes: 5
        assert c.post("/api/search", json={"query": _long()}).status_code == 429  # 10 > the 5 left: refused
        answers = [c.post("/api/search", json={"query": f"quillwort {i}"}).status_code for i in range(6)]
        assert answers == [200] * 4 + [429] * 2  # the refusal spent its admission unit only


def test_text_units() -> None:
    assert text_units("quillwort") == 1
    assert text_units("q" * 199) == 1 and text_units("q" * 200) == 2
    assert text_units("\u6f22" * 67) == 2  # three bytes a character: CJK reaches the window sooner
    assert text_units("q" * 2000) == text_units("\u6f22" * 2000) == MAX_UNITS


def test_costs_are_counted_alike_in_redis_shared_by_workers(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Workers share budgets through Redis (the ``limits`` moving window's Lua scripts): a cost counts there as
    in memory — two limiters on one Redis (two workers) spend one budget, and a refused cost spends nothing."""
    from groundsearch.errors import RateLimited
    from groundsearch.interfaces.api.ratelimit import RateLimiter
    from groundsearch.settings import load_settings
    from tests.api.test_redis_limits import REDIS, redis_server

    if REDIS is None:
        pytest.skip("redis-server not installed (apt-get install redis-server)")
    with redis_server(tmp_path) as url:
        settings = load_settings(None, env={}, data_dir=str(tmp_path / "d"), redis_url=url)
        settings = settings.model_copy(update={"api": settings.api.model_copy(update={"search_per_minute": BUDGET})})
        one, two = RateLimiter(settings), RateLimiter(settings)
        assert one.backend == two.backend == "redis"
        one.check("search", "k1", "t", cost=MAX_UNITS)
        two.check("search", "k1", "t", cost=MAX_UNITS - 1)
        with pytest.raises(RateLimited):
            one.check("search", "k1", "t", cost=2)  # 1 left: refused, spends nothing
        two.check("search", "k1", "t")
        with pytest.raises(RateLimited):
            one.check("search", "k1", "t")
