"""Attack: uploads that burn CPU — a 50k-column CSV header, a 2 MB Markdown file, a client that gives up.

Over the real app and real HTTP. Work per upload is bounded (columns, chunks per file, time), heavy ingest runs
as a job with a tenant-scoped status endpoint, and a cancelled job (DELETE, or the client hanging up on a
synchronous upload) stops at its next checkpoint with nothing of the file written. No test here depends on how
fast the machine is: the polling deadlines are liveness bounds, far above the measured figures
(/work/notes/bench-uploads.md).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from .conftest import TERMINAL, Gated, Server, gated_server, wait_job

def outcome(c: httpx.Client, r: httpx.Response) -> tuple[str, str]:
    """(status, error message) of an upload, whether it was answered at once (200/400) or as a job (202)."""
    if r.status_code == 202:
        job = wait_job(c, r.json()["id"])
        return job["status"], (job.get("error") or {}).get("message", "")
    if r.status_code == 400:
        return "failed", r.json()["error"]["message"]
    assert r.status_code == 200, r.text[:300]
    return "completed", ""


def wide_csv(columns: int) -> bytes:
    header = ",".join(f"c{i}" for i in range(columns))
    row = ",".join("x" for _ in range(columns))
    return f"{header}\n{row}\n".encode()


def big_markdown(target_bytes: int, word: str) -> bytes:
    parts, size, n = [], 0, 0
    while size < target_bytes:
        block = (f"## Section {n}\n\nThe {word} procedure step {n} covers calibration, logging and review of the "
                 f"sensor array before the next shift begins. " * 3 + "\n\n")
        parts.append(block)
        size += len(block)
        n += 1
    return ("# Big manual\n\n" + "".join(parts)).encode()


def test_fifty_thousand_column_csv_is_refused_naming_the_column_limit(server: Server) -> None:
    with server.client(server.key("editor", "up-csv")) as c:
        r = c.post("/api/items", files={"file": ("wide.csv", wide_csv(50_000), "text/csv")},
                   data={"collection": "rel"})
        status, message = outcome(c, r)
    assert status == "failed"
    assert "columns" in message and "1000" in message.replace(",", ""), message


def test_csv_duplicate_header_is_still_named() -> None:
    from groundsearch.errors import IngestError
    from groundsearch.ingest.records import load_records
    from groundsearch.types import CollectionSpec, FieldSpec

    spec = CollectionSpec(name="r", kind="records", fields=(FieldSpec(name="title", type="text"),))
    path = Path(__file__).parent / "_dupes.csv"
    try:
        path.write_text("title,a,b,a,title\nx,1,2,3,4\n", encoding="utf-8")
        with pytest.raises(IngestError, match=r"repeats column\(s\) \['a', 'title'\]"):
            load_records(path, spec)
    finally:
        path.unlink(missing_ok=True)


def test_two_megabyte_markdown_is_a_job_refused_at_the_chunk_limit(server: Server) -> None:
    with server.client(server.key("editor", "up-md")) as c:
        r = c.post("/api/items", files={"file": ("huge.md", big_markdown(2_000_000, "zorblax"), "text/markdown")})
        assert r.status_code == 202, r.text[:300]
        job = r.json()
        assert job["status"] in ("queued", "running") and r.headers["location"] == f"/api/jobs/{job['id']}"
        status, message = outcome(c, r)
        assert status == "failed" and "chunks" in message, message
        found = c.post("/api/search", json={"query": "zorblax calibration"}).json()["results"]
    assert found == []


def test_a_large_upload_under_the_limits_completes_as_a_job(server: Server) -> None:
    with server.client(server.key("editor", "up-mid")) as c:
        r = c.post("/api/items", files={"file": ("mid.md", big_markdown(300_000, "quuxfield"), "text/markdown")})
        assert r.status_code == 202, r.text[:300]
        job = wait_job(c, r.json()["id"])
        assert job["status"] == "completed", job
        assert job["result"]["added"] == 1 and job["result"]["chunks_written"] > 100
        found = c.post("/api/search", json={"query": "quuxfield calibration"}).json()["results"]
    assert found and found[0]["title"] == "Big manual"


def test_a_job_is_visible_to_its_tenant_only(server: Server) -> None:
    a, b = server.key("editor", "jobs-a"), server.key("admin", "jobs-b")
    with server.client(a) as ca, server.client(b) as cb:
        r = ca.post("/api/items", params={"background": "true"},
                    files={"file": ("note.md", b"# Note\n\nA short note about widgets.", "text/markdown")})
        assert r.status_code == 202, r.text
        job_id = r.json()["id"]
        assert cb.get(f"/api/jobs/{job_id}").status_code == 404
        assert cb.delete(f"/api/jobs/{job_id}").status_code == 404
        assert job_id not in [j["id"] for j in cb.get("/api/jobs").json()["jobs"]]
        assert wait_job(ca, job_id)["status"] == "completed"
        assert job_id in [j["id"] for j in ca.get("/api/jobs").json()["jobs"]]
        viewer = server.key("viewer", "jobs-a")
        with server.client(viewer) as cv:
            assert cv.get(f"/api/jobs/{job_id}").status_code == 403  # jobs are editors' work (test_job_privacy)
            assert cv.delete(f"/api/jobs/{job_id}").status_code == 403


# ---- cancellation: an embedder that holds its second batch until the test lets it go (conftest.gated_server) --


@pytest.fixture
def gated(tmp_path: Path) -> Iterator[Gated]:
    """Local mode: uploads without keys."""
    with gated_server(tmp_path) as served:
        yield served


def test_deleting_a_running_job_stops_it_and_writes_nothing(gated: Gated) -> None:
    url, _, embedder = gated
    with httpx.Client(base_url=url, timeout=30) as c:
        r = c.post("/api/items", params={"background": "true"},
                   files={"file": ("cancel-me.md", big_markdown(150_000, "vexillum"), "text/markdown")})
        assert r.status_code == 202, r.text
        job_id = r.json()["id"]
        assert embedder.holding.wait(60)
        assert c.get(f"/api/jobs/{job_id}").json()["status"] == "running"
        d = c.delete(f"/api/jobs/{job_id}")
        assert d.status_code == 202 and d.json()["cancel_requested"] is True
        embedder.release.set()
        job = wait_job(c, job_id)
        assert job["status"] == "cancelled", job
        assert embedder.calls == 2  # no batch after the one in flight
        assert c.post("/api/search", json={"query": "vexillum calibration"}).json()["results"] == []
        # the same file uploaded again, uncancelled, lands whole: nothing stale was left behind
        r = c.post("/api/items", params={"background": "true"},
                   files={"file": ("cancel-me.md", big_markdown(150_000, "vexillum"), "text/markdown")})
        assert wait_job(c, r.json()["id"])["status"] == "completed"
        assert c.post("/api/search", json={"query": "vexillum calibration"}).json()["results"]


def test_a_client_that_hangs_up_cancels_its_synchronous_upload(gated: Gated) -> None:
    url, _, embedder = gated
    doc = big_markdown(60_000, "plumbago")  # small enough to be answered synchronously
    with pytest.raises(httpx.ReadTimeout), httpx.Client(base_url=url, timeout=httpx.Timeout(30, read=1.0)) as c:
        c.post("/api/items", files={"file": ("hang-up.md", doc, "text/markdown")})
    # No wait for the embedder to be holding: on a busy machine the server can notice the hang-up before the
    # file reaches the embedder, and the upload must end cancelled either way (the gate keeps it from finishing).
    with httpx.Client(base_url=url, timeout=30) as c:
        deadline = time.monotonic() + 60
        while True:  # the server notices the hang-up on its next disconnect poll
            jobs = [j for j in c.get("/api/jobs").json()["jobs"] if j["source"] == "hang-up.md"]
            if jobs and jobs[0]["cancel_requested"]:
                break
            assert time.monotonic() < deadline, jobs
            time.sleep(0.1)
        embedder.release.set()
        job = wait_job(c, jobs[0]["id"])
        assert job["status"] == "cancelled", job
        assert c.post("/api/search", json={"query": "plumbago calibration"}).json()["results"] == []


def test_a_job_over_its_time_budget_stops_and_writes_nothing(tmp_path: Path) -> None:
    budget = 0.5
    with gated_server(tmp_path, upload_timeout_s=budget) as (url, _, embedder), \
            httpx.Client(base_url=url, timeout=30) as c:
        r = c.post("/api/items", params={"background": "true"},
                   files={"file": ("slow.md", big_markdown(150_000, "gallimaufry"), "text/markdown")})
        # Either the deadline passes while the embedder is held mid-file, or (on a busy machine) it has passed
        # already at an earlier checkpoint; both must end the same way. No speed is assumed: a held batch cannot
        # finish, so waiting past the budget guarantees the deadline is behind us when it is released.
        job_id, deadline = r.json()["id"], time.monotonic() + 60
        while not embedder.holding.is_set() and c.get(f"/api/jobs/{job_id}").json()["status"] in ("queued", "running"):
            assert time.monotonic() < deadline
            time.sleep(0.05)
        time.sleep(budget * 3)
        embedder.release.set()
        job = wait_job(c, job_id)
        assert job["status"] == "failed" and job["error"]["code"] == "INGEST_STOPPED", job
        assert job["error"]["details"]["reason"] == "timeout"
        assert embedder.calls <= 2  # no batch after the one in flight
        assert c.post("/api/search", json={"query": "gallimaufry calibration"}).json()["results"] == []
