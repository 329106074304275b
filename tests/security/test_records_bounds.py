"""Attack on upload bounds (round 5): JSON records posted to ``POST /api/items/records`` get the file upload's bounds.

A file upload runs as a job on the one ingest worker, behind a queue of which a tenant may hold half, under
``api.upload_max_chunks`` and ``api.upload_timeout_s``, and is cancelled when its client hangs up. The records
endpoint ingested on the request's own thread with none of that: no chunk limit, no time budget, no queue, so an
editor posting records from many connections at once ran as many ingests (embedding included) side by side as
the server had threads, beside the worker the bound was meant to keep alone, and ``upload_max_chunks`` meant
nothing there. Records now become a job like any upload, answered when it finishes.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import httpx

from groundsearch.interfaces.api.auth import KeyStore

from .conftest import Gated, gated_server
from .test_uploads import big_markdown, wait_job


def editor(keys: KeyStore | None, tenant: str) -> str:
    assert keys is not None
    return keys.create("editor", tenant=tenant)[1]


def _records(word: str, n: int, chars: int = 200) -> dict[str, Any]:
    sentence = f"The {word} pump was serviced. "
    return {"collection": "rel", "records": [
        {"id": f"{word}-{i}", "product": f"Pump {word}", "version": str(i),
         "notes": (sentence * (chars // len(sentence) + 1))[:chars]} for i in range(n)]}


def test_attack_records_wait_for_the_ingest_worker_like_any_upload(held: Gated) -> None:
    url, keys, embedder = held
    assert keys is not None
    a = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {keys.create('editor', tenant='rb-a')[1]}"},
                     timeout=60)
    b = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {keys.create('editor', tenant='rb-b')[1]}"},
                     timeout=60)
    r = a.post("/api/items", params={"background": "true"},
               files={"file": ("big.md", big_markdown(150_000, "halyard"), "text/markdown")})
    assert r.status_code == 202, r.text
    assert embedder.holding.wait(60)  # the worker is mid-file on tenant A's upload

    answer: list[httpx.Response] = []
    posting = threading.Thread(target=lambda: answer.append(b.post("/api/items/records", json=_records("quern", 5))))
    posting.start()
    deadline = time.monotonic() + 30
    while not answer and time.monotonic() < deadline:
        jobs = [j for j in b.get("/api/jobs").json()["jobs"] if j["source"].startswith("records-")]
        if jobs and jobs[0]["status"] == "queued":
            break
        time.sleep(0.1)
    assert not answer, f"records were ingested beside the held worker: {answer[0].status_code} {answer[0].text}"
    assert embedder.calls == 2  # nothing else reached the embedder while the worker held A's file
    embedder.release.set()
    posting.join(60)
    assert answer and answer[0].status_code == 200, answer
    assert answer[0].json()["added"] == 5
    assert wait_job(a, r.json()["id"])["status"] == "completed"
    assert b.post("/api/search", json={"query": "quern pump serviced"}).json()["results"]


def test_attack_records_are_held_to_the_chunk_limit(tmp_path: Path) -> None:
    """Five records of 1,500 characters are 15 chunks' worth; an upload here may have 3."""
    with gated_server(tmp_path, keyed=True, hold_at=0, upload_max_chunks=3) as (url, keys, _), \
            httpx.Client(base_url=url, headers={"Authorization": f"Bearer {editor(keys, 'rb-c')}"},
                         timeout=60) as c:
        r = c.post("/api/items/records", json=_records("tallow", 5, chars=1_500))
        assert r.status_code == 400, r.text
        assert "chunks" in r.json()["error"]["message"]
        assert c.post("/api/search", json={"query": "tallow pump serviced"}).json()["results"] == []
        ok = c.post("/api/items/records", json=_records("tallow", 1, chars=1_500))  # 3 chunks' worth: allowed
        assert ok.status_code == 200 and ok.json()["added"] == 1, ok.text
