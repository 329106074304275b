"""GET /api/trending over HTTP: every number shown is recomputed here from the stored items (not from the
response, not from the fixture's intentions), tiers follow the evidence, other tenants and drafts never count."""

from __future__ import annotations

import datetime as dt
import math

import httpx
import pytest

from groundsearch.query.trending import quality_tier

from .conftest import auth, corpus


def stored_view(engine, tenant: str) -> list[tuple[str, dt.date, str, set[str]]]:
    """(item id, date, product, entities) of each published item of ``tenant``, read back from the store."""
    items = engine.store.get_many([i.id for i in corpus()])
    out = []
    for item in items.values():
        if item.tenant != tenant or item.status != "published" or item.date is None:
            continue
        entities = {e for c in engine.store.item_chunks(item.id) for e in c.chunk.entities}
        out.append((item.id, item.date, str(item.fields["product"]), entities))
    return out


def within(d: dt.date, w: dict) -> bool:
    return dt.date.fromisoformat(w["start"]) <= d <= dt.date.fromisoformat(w["end"])


@pytest.mark.parametrize("mode", ["default", "temporal", "thematic"])
def test_every_shown_number_is_recomputable_from_the_store(served, mode: str) -> None:
    url, tokens, engine = served
    r = httpx.get(f"{url}/api/trending", params={"mode": mode, "horizon_days": 30}, headers=auth(tokens["acme"]))
    assert r.status_code == 200, r.text
    body = r.json()
    view = stored_view(engine, "acme")
    assert body["window"]["end"] == max(d for _, d, _, _ in view).isoformat()  # newest dated item, capped at today
    assert len(body["baseline_windows"]) == 4
    assert body["topics"], "the fixture has rising topics"
    span = (body["baseline_windows"][0]["start"], body["window"]["end"])
    assert body["items_considered"] == sum(1 for _, d, _, _ in view if span[0] <= d.isoformat() <= span[1])
    for t in body["topics"]:
        mine = [(i, d, p) for i, d, p, ents in view if t["topic"] in ents]
        recent = [(i, p) for i, d, p in mine if within(d, body["window"])]
        assert t["items"] == len(recent) and sorted(t["item_ids"]) == sorted(i for i, _ in recent)
        assert t["sources"] == len({p for _, p in recent})
        baseline = [sum(1 for _, d, _ in mine if within(d, w)) for w in body["baseline_windows"]]
        assert t["baseline"] == baseline
        mean = sum(baseline) / 4
        assert t["baseline_mean"] == pytest.approx(mean, abs=1e-3)
        assert t["score"] == pytest.approx((len(recent) - mean) / math.sqrt(mean + 1), abs=1e-3)
        assert t["tier"] == quality_tier(t["items"], t["sources"])
        if mode != "thematic":
            assert t["items"] > mean  # only rising topics
        for rel in t["related"]:
            others = {i for i, d, _, ents in view if rel["topic"] in ents and within(d, body["window"])}
            assert rel["items"] == len(others & set(t["item_ids"]))


def test_ranking_and_tiers_on_the_fixture(served) -> None:
    url, tokens, _ = served
    body = httpx.get(f"{url}/api/trending", params={"horizon_days": 30}, headers=auth(tokens["acme"])).json()
    tiers = {t["topic"]: t["tier"] for t in body["topics"]}
    assert body["topics"][0]["topic"] == "vector search"  # 6 vs a baseline of 1 per window beats rust's 6 vs 2
    assert tiers == {"vector search": "VERIFIED", "rust": "VERIFIED", "graphs": "EMERGING",
                     "quantization": "SPECULATIVE"}
    thematic = httpx.get(f"{url}/api/trending", params={"horizon_days": 30, "mode": "thematic"},
                         headers=auth(tokens["acme"])).json()
    top = thematic["topics"][0]
    assert top["topic"] in {"rust", "vector search"} and {"topic": "rust" if top["topic"] != "rust" else
                                                           "vector search", "items": 6} in top["related"]


def test_other_tenants_and_drafts_never_count(served) -> None:
    """Attack: a viewer of acme asks for trending; globex's burst and acme's own draft must not appear. Fails if
    the store's mention counts ignore the filter (checked: with ``dated_mentions`` reading every item, "secret
    topic" ranks first here)."""
    url, tokens, _ = served
    for params in ({"horizon_days": 30}, {"horizon_days": 30, "mode": "thematic"}):
        topics = {t["topic"] for t in httpx.get(f"{url}/api/trending", params=params,
                                                headers=auth(tokens["acme"])).json()["topics"]}
        assert not topics & {"secret topic", "draft topic"}
    theirs = httpx.get(f"{url}/api/trending", params={"horizon_days": 30}, headers=auth(tokens["globex"])).json()
    assert [t["topic"] for t in theirs["topics"]] == ["secret topic"]
    assert theirs["topics"][0]["tier"] == "VERIFIED"  # 6 items from 6 products


@pytest.mark.parametrize(("params", "field"), [
    ({"mode": "viral"}, "mode"), ({"horizon_days": 0}, "horizon_days"), ({"horizon_days": 9999}, "horizon_days"),
    ({"collections": "nope"}, "collections"), ({"as_of": "yesterday"}, "as_of"),
    ({"as_of": "0002-01-01"}, "as_of"),  # baseline windows before year 1 overflowed: a 500 (schemathesis)
])
def test_bad_parameters_are_400_with_a_clear_message(served, params: dict, field: str) -> None:
    url, tokens, _ = served
    r = httpx.get(f"{url}/api/trending", params=params, headers=auth(tokens["acme"]))
    assert r.status_code == 400, r.text
    assert field in r.text


def test_trending_needs_a_key(served) -> None:
    url, _, _ = served
    assert httpx.get(f"{url}/api/trending").status_code == 401


def test_search_for_whats_trending_carries_the_trending_table(served) -> None:
    url, tokens, _ = served
    r = httpx.post(f"{url}/api/search", json={"query": "what's trending in the last 30 days?"},
                   headers=auth(tokens["acme"]))
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["intent"]["horizon_days"] == 30  # the cascade's horizon is the trending window
    tables = [s for s in body["structured_results"] if s["kind"] == "table" and s["collection"] == "trending"]
    assert len(tables) == 1
    api = httpx.get(f"{url}/api/trending", params={"horizon_days": 30}, headers=auth(tokens["acme"])).json()
    assert [tuple(row[:6]) for row in tables[0]["rows"]] == [
        (t["topic"], t["tier"], t["items"], t["sources"], "/".join(map(str, t["baseline"])), t["score"])
        for t in api["topics"]]
    assert api["window"]["start"] in tables[0]["title"]
    plain = httpx.post(f"{url}/api/search", json={"query": "vector search notes"}, headers=auth(tokens["acme"]))
    assert not [s for s in plain.json()["structured_results"] if s.get("collection") == "trending"]


@pytest.mark.parametrize(("text", "asks"), [
    ("what's trending?", True), ("Trending topics in papers", True), ("hot topics this month", True),
    ("what is rising topics", True), ("trend line of releases", False), ("latest releases", False),
])
def test_asks_for_trending(text: str, asks: bool) -> None:
    from groundsearch.query.trending import asks_for_trending

    assert asks_for_trending(text) is asks
