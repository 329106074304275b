"""Item endpoints: ingest an uploaded file or JSON records, get, similar, delete — through the real app."""

from __future__ import annotations

from pathlib import Path

import httpx

from groundsearch.interfaces.api import create_app

from .conftest import fresh
from .live import serve


def test_upload_get_similar_delete(tmp_path: Path) -> None:
    engine = fresh(tmp_path)
    with engine, serve(create_app(engine)) as url, httpx.Client(base_url=url, timeout=30) as c:
        doc = b"# Kestrel onboarding\n\nKestrel teams start with the onboarding checklist.\n\n## Week one\n\nMeet the team.\n"
        up = c.post("/api/items", files={"file": ("kestrel.md", doc, "text/markdown")})
        assert up.status_code == 200, up.text
        assert (up.json()["added"], up.json()["errors"]) == (1, [])
        again = c.post("/api/items", files={"file": ("kestrel.md", doc, "text/markdown")})
        assert (again.json()["added"], again.json()["unchanged"]) == (0, 1)  # idempotent

        hit = c.post("/api/search", json={"query": "kestrel onboarding checklist"}).json()["results"][0]
        assert hit["title"] == "Kestrel onboarding"
        item = c.get(f"/api/items/{hit['item_id']}")
        assert item.status_code == 200 and "onboarding checklist" in item.json()["text"]
        assert str(tmp_path) not in item.json().get("source", "")

        twin = c.post("/api/items", files={"file": ("kestrel-copy.md", doc, "text/markdown")})
        assert twin.json()["added"] == 1
        similar = c.get(f"/api/items/{hit['item_id']}/similar").json()
        assert similar["exact_duplicates"], similar
        assert similar["similar"][0]["title"] == "Kestrel onboarding"  # the twin ranks first
        assert similar["similar"][0]["cosine"] > similar["similar"][1]["cosine"]

        assert c.delete(f"/api/items/{hit['item_id']}").status_code == 204
        assert c.get(f"/api/items/{hit['item_id']}").status_code == 404
        after = c.post("/api/search", json={"query": "kestrel onboarding checklist"}).json()["results"]
        assert hit["item_id"] not in {r["item_id"] for r in after}


def test_records_as_json(tmp_path: Path) -> None:
    engine = fresh(tmp_path)
    with engine, serve(create_app(engine)) as url, httpx.Client(base_url=url, timeout=30) as c:
        body = {"collection": "releases", "records": [
            {"product": "Comet", "version": "3.1", "date": "2026-11-02", "notes": "Offline sync"},
            {"product": "Comet", "version": "3.0", "date": "2026-08-12", "notes": "New editor"},
        ]}
        r = c.post("/api/items/records", json=body)
        assert r.status_code == 200, r.text
        assert r.json()["added"] == 2
        found = c.post("/api/search", json={"query": "comet offline sync", "collections": ["releases"],
                                            "filters": {"product": "Comet"}}).json()["results"]
        assert {h["title"] for h in found} == {"Comet 3.1", "Comet 3.0"}
        assert found[0]["date"] == "2026-11-02"
        assert c.post("/api/items/records", json=body).json()["unchanged"] == 2


def test_bad_uploads_are_400_naming_the_problem(tmp_path: Path) -> None:
    engine = fresh(tmp_path)
    with engine, serve(create_app(engine)) as url, httpx.Client(base_url=url, timeout=30) as c:
        r = c.post("/api/items", files={"file": ("payload.exe", b"MZ\x90\x00", "application/octet-stream")})
        assert r.status_code == 400 and r.json()["error"]["code"] == "INGEST_FAILED"
        assert "payload.exe" in r.json()["error"]["message"] and str(tmp_path) not in r.text
        r = c.post("/api/items", files={"file": ("noext", b"hello", "text/plain")})
        assert r.status_code == 400 and r.json()["error"]["details"]["field"] == "file"
        r = c.post("/api/items", files={"file": ("notes.md", b"# x", "text/markdown")}, data={"collection": "nope"})
        assert r.status_code == 400 and "nope" in r.json()["error"]["message"]
        r = c.post("/api/items/records", json={"collection": "releases", "records": []})
        assert r.status_code == 400
        r = c.post("/api/items/records", json={"collection": "docs", "records": [{"a": 1}]})
        assert r.status_code == 400 and r.json()["error"]["code"] == "INGEST_FAILED"
        r = c.post("/api/items")
        assert r.status_code == 400
