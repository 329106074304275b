"""Search over real HTTP: JSON, the identical intelligent-search alias, SSE order, cancellation, typeahead."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from groundsearch.engine import Engine
from groundsearch.interfaces.api import create_app
from groundsearch.types import Event, SearchRequest

from .live import make_engine, serve
from .sse import parse

# Canonical stage order. Evidence and structured results share one rank: their relative order is the pipeline's
# choice; what the page relies on is that both come after retrieval and before the prose.
STAGE_RANK = {"intent": 0, "plan": 1, "keyword": 2, "vector": 2, "results": 3, "table": 3, "chart": 3,
              "timeline": 3, "graph": 3, "unsupported-format": 3, "low-confidence": 3, "prose": 4, "complete": 5}


def without_timings(body: dict[str, Any]) -> dict[str, Any]:
    body = dict(body)
    body["diagnostics"] = {k: v for k, v in body["diagnostics"].items() if k not in ("latency_ms", "request_id")}
    return body


def test_search_returns_evidence_with_ids_titles_snippets(client: httpx.Client) -> None:
    r = client.post("/api/search", json={"query": "  atlas migration  ", "limit": 5})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["query"] == "atlas migration"
    assert body["results"], "the fixture corpus has Atlas documents"
    top = body["results"][0]
    assert {"id", "item_id", "title", "snippet", "heading_path", "score", "collection"} <= set(top)
    assert any("Atlas" in hit["title"] for hit in body["results"])
    assert set(body["diagnostics"]) >= {"tier", "cache_hit", "model", "latency_ms", "degraded"}


def test_intelligent_search_is_the_same_handler(client: httpx.Client) -> None:
    request = {"query": "refunds after cancellation", "limit": 3, "collections": ["docs"]}
    client.post("/api/search", json=request)  # warm the intent cache, so both calls below are cache hits
    a = client.post("/api/search", json=request)
    b = client.post("/api/intelligent-search", json=request)
    assert a.status_code == b.status_code == 200
    assert without_timings(a.json()) == without_timings(b.json())
    assert a.json()["results"], "the query must match something for the comparison to mean anything"


def test_get_search_matches_post(client: httpx.Client) -> None:
    a = client.post("/api/search", json={"query": "api keys roles", "limit": 4})
    b = client.get("/api/search", params={"q": "api keys roles", "limit": 4})
    assert b.status_code == 200, b.text
    assert [h["id"] for h in a.json()["results"]] == [h["id"] for h in b.json()["results"]]


@pytest.mark.parametrize(("asked", "used"), [(500, 100), (0, 1), (-7, 1), (100, 100)])
def test_limit_is_clamped_not_rejected(client: httpx.Client, asked: int, used: int) -> None:
    r = client.post("/api/search", json={"query": "atlas", "limit": asked})
    assert r.status_code == 200, r.text
    assert r.json()["diagnostics"]["plan"]["limit"] == used
    assert len(r.json()["results"]) <= used


def test_paging_with_offset(client: httpx.Client) -> None:
    full = client.post("/api/search", json={"query": "atlas search index", "limit": 4}).json()["results"]
    second = client.post("/api/search", json={"query": "atlas search index", "limit": 2, "offset": 2}).json()
    assert [h["id"] for h in second["results"]] == [h["id"] for h in full[2:4]]
    assert second["offset"] == 2


def stream_events(client: httpx.Client, method: str, url: str, **kw: Any) -> list[tuple[str, dict[str, Any]]]:
    with client.stream(method, url, **kw) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        return list(parse(r.iter_lines()))


def test_sse_events_arrive_in_stage_order_and_fold_to_the_json(client: httpx.Client) -> None:
    request = {"query": "atlas vector search", "limit": 5}
    events = stream_events(client, "POST", "/api/search?stream=true", json=request)
    names = [n for n, _ in events]
    assert names[-1] == "complete" and names.count("complete") == 1
    assert {"keyword", "vector", "results"} <= set(names) or {"keyword", "vector"} <= set(names)
    ranks = [STAGE_RANK[n] for n in names if n in STAGE_RANK]
    assert ranks == sorted(ranks), names
    assert events[-1][1]["total_latency_ms"] > 0
    streamed = next(d for n, d in events if n == "results")["results"]
    folded = client.post("/api/search", json=request).json()["results"]
    assert [h["id"] for h in streamed] == [h["id"] for h in folded]


def test_sse_over_get_for_eventsource(client: httpx.Client) -> None:
    events = stream_events(client, "GET", "/api/search", params={"q": "billing invoices", "stream": "true"})
    assert events[-1][0] == "complete"
    assert any(n == "results" and d["results"] for n, d in events)


def test_sse_bad_input_is_a_plain_400_not_a_stream(client: httpx.Client) -> None:
    r = client.post("/api/search?stream=true", json={"query": "x", "filters": {"no_such_field": "1"}})
    assert r.status_code == 400
    assert r.json()["error"]["code"] == "VALIDATION_FAILED"
    assert r.json()["error"]["details"]["field"] == "no_such_field"


class SlowStreamEngine(Engine):
    """The real engine, with each stage made slow and every pulled stage recorded, to watch cancellation."""

    step_seconds = 0.8

    def stream(self, request: SearchRequest, *, tenant: str | None = None) -> Iterator[Event]:
        self.pulled: list[str] = []
        self.closed = threading.Event()
        inner = super().stream(request, tenant=tenant)
        try:
            for event in inner:
                self.pulled.append(event.name)
                yield event
                time.sleep(self.step_seconds)
        except GeneratorExit:
            self.closed.set()
            raise
        finally:
            inner.close()


def test_client_disconnect_stops_the_work(tmp_path: Path) -> None:
    with make_engine(tmp_path, engine_cls=SlowStreamEngine) as engine, serve(create_app(engine)) as url:
        assert isinstance(engine, SlowStreamEngine)
        with httpx.Client(base_url=url, timeout=30) as c:
            full = stream_events(c, "POST", "/api/search?stream=true", json={"query": "atlas"})
            total = len([n for n, _ in full if n != "complete"]) + 1  # the engine's own complete too
            assert engine.pulled[-1] == "complete" and len(engine.pulled) == total
            with c.stream("POST", "/api/search?stream=true", json={"query": "atlas"}) as r:
                first = next(parse(r.iter_lines()))
                assert first[0] in STAGE_RANK
            # leaving the block closed the connection mid-stream
        # a liveness bound: the disconnect is seen at the next stage, which a loaded machine may make slow
        assert engine.closed.wait(120), "the engine's generator was never closed"
        time.sleep(engine.step_seconds * 2)
        assert len(engine.pulled) < total, f"work continued after the disconnect: {engine.pulled}"
        assert "complete" not in engine.pulled


NASTY = ["%", "%%%", "_", "__", "\\", "\\%", "'", '"', "' OR 1=1 --", '"quoted"', "AND", "OR NOT", "NEAR(a b)",
         "title:atlas", "atl*", "*", "a^2", "(", ")", "{x}", "-", "--", "%_\\'\"*", "ünïcödé", "     ", "🙂" * 3]


@pytest.mark.parametrize("q", NASTY)
def test_preview_with_wildcards_and_operators_never_fails(client: httpx.Client, q: str) -> None:
    r = client.get("/api/search/preview", params={"q": q})
    assert r.status_code == 200, r.text
    titles = [i["title"] for i in r.json()["items"]]
    stripped = q.strip()
    if stripped in ("%", "%%%", "_", "__", "\\", "*"):
        # the character is literal: only titles that contain it may come back (never "everything")
        assert all(stripped[0] in t for t in titles), titles


def test_preview_finds_literal_wildcard_titles_first(client: httpx.Client) -> None:
    items = client.get("/api/search/preview", params={"q": "100% Pure_"}).json()["items"]
    assert items and items[0]["title"].startswith("100% Pure_Data")
    assert items[0]["title_match"] is True


def test_preview_limit_is_clamped_to_20(client: httpx.Client, engine: Engine) -> None:
    r = client.get("/api/search/preview", params={"q": "atl", "limit": 500})
    assert r.status_code == 200 and len(r.json()["items"]) <= 20
    r = client.get("/api/search/preview", params={"q": "atlas", "limit": 1})
    assert len(r.json()["items"]) == 1


def test_suggestions_and_health(client: httpx.Client) -> None:
    s = client.get("/api/search/suggestions")
    assert s.status_code == 200 and isinstance(s.json()["suggestions"], list)
    h = client.get("/api/search/health").json()
    assert h["status"] == "ok" and h["items"] == 7 and h["auth"] == "local"


def test_suggestions_fail_soft(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with make_engine(tmp_path) as engine, serve(create_app(engine)) as url:
        def broken(limit: int = 10) -> list[str]:
            raise RuntimeError("store unavailable")

        monkeypatch.setattr(engine, "suggestions", broken)
        r = httpx.get(f"{url}/api/search/suggestions")
        assert r.status_code == 200 and r.json() == {"suggestions": []}


def test_cache_clear_drops_the_intent_cache(tmp_path: Path) -> None:
    with make_engine(tmp_path) as engine, serve(create_app(engine)) as url, httpx.Client(base_url=url) as c:
        request = {"query": "invoices billed monthly"}
        c.post("/api/search", json=request)
        assert c.post("/api/search", json=request).json()["diagnostics"]["cache_hit"] is True
        cleared = c.post("/api/search/cache/clear")
        assert cleared.status_code == 200 and cleared.json()["cleared"]["intent_cache"] == 1
        assert c.post("/api/search", json=request).json()["diagnostics"]["cache_hit"] is False


def test_openapi_is_published_with_400_not_422(client: httpx.Client) -> None:
    doc = client.get("/openapi.json").json()
    assert {"/api/search", "/api/intelligent-search", "/api/search/preview", "/api/search/suggestions",
            "/api/search/health", "/api/search/cache/clear", "/api/items", "/api/items/{item_id}"} <= set(doc["paths"])
    for path in doc["paths"].values():
        for op in path.values():
            assert "422" not in op["responses"] and "400" in op["responses"]


def test_web_page_and_chart_library_are_served(client: httpx.Client) -> None:
    page = client.get("/")
    assert page.status_code == 200 and 'role="combobox"' in page.text
    js = client.get("/static/vendor/plotly.min.js")
    assert js.status_code == 200 and len(js.content) > 1_000_000
    assert client.get("/static/app.js").status_code == 200
