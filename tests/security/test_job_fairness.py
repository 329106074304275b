"""One tenant's uploads must not take another tenant's turn or erase its job records (round 11; real app, real keys).

Every tenant's uploads share one ingest worker and one table of recent jobs. The queue already caps each tenant's
share of waiting slots (``test_job_queue.py``); these attacks are on what happens inside the bounds: the order the
worker takes jobs in, and which finished jobs the table forgets first.
"""

from __future__ import annotations

import httpx
import pytest

from groundsearch.interfaces.api import routes_jobs

from .conftest import Gated, Server, upload_file
from .test_uploads import big_markdown, wait_job

KEEP = 6


def _note(marker: str) -> bytes:
    return f"# Note {marker}\n\nThe {marker} checklist for the night shift.\n".encode()


def test_attack_a_tenant_uploading_in_a_loop_does_not_erase_another_tenants_job(server: Server,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Tenant B uploads in the background and polls its job later; meanwhile tenant A's editor uploads more small
    files than the table keeps. Before the fix the table forgot the oldest finished job whoever owned it: B's
    completed job answered 404 and left B's job list (A had spent ``KEEP`` uploads, 200 by default — three minutes
    of one key's ingest budget, or twenty seconds of the tenant's). Now a tenant's flood forgets its own jobs first."""
    monkeypatch.setattr(routes_jobs, "KEEP", KEEP)
    with server.client(server.key("editor", "jobs-quiet")) as b, server.client(server.key("editor", "jobs-loud")) as a:
        r = upload_file(b, "quiet.md", _note("heron"))
        assert r.status_code == 202, r.text
        job_id = r.json()["id"]
        assert wait_job(b, job_id)["status"] == "completed"
        for i in range(KEEP + 2):
            flood = upload_file(a, f"loud-{i}.md", _note(f"gull{i}"), background=False)
            assert flood.status_code == 200, flood.text
        kept = b.get(f"/api/jobs/{job_id}")
        assert kept.status_code == 200, kept.text  # 404 before the fix
        assert kept.json()["result"]["added"] == 1
        assert [j["id"] for j in b.get("/api/jobs").json()["jobs"]] == [job_id]
        mine = [j["source"] for j in a.get("/api/jobs").json()["jobs"]]
        assert len(mine) <= KEEP and mine[0] == f"loud-{KEEP + 1}.md"  # the flooder keeps its newest


def test_attack_a_tenant_with_a_full_queue_does_not_make_another_tenant_wait_behind_it(held: Gated) -> None:
    """Tenant A's editor holds the worker with one big file and queues three more; tenant B's one upload comes
    after them. Before the fix the worker took jobs first come, first served, so B waited for every file A had
    queued — up to ``MAX_QUEUED_PER_TENANT`` (8) jobs of ``api.upload_timeout_s`` (300 s) each, and a synchronous
    upload's client gives up long before. Now the worker takes the tenant that waited longest since its last turn:
    B's file is the next one embedded after A's running one."""
    url, keys, embedder = held
    assert keys is not None
    a = httpx.Client(base_url=url, timeout=60, headers={"X-API-Key": keys.create("editor", tenant="queue-a")[1]})
    b = httpx.Client(base_url=url, timeout=60, headers={"X-API-Key": keys.create("editor", tenant="queue-b")[1]})
    with a, b:
        first = upload_file(a, "hold.md", big_markdown(150_000, "obsidian"))
        assert first.status_code == 202, first.text
        assert embedder.holding.wait(60)  # the worker is inside A's big file; everything else queues
        queued = [upload_file(a, f"a-{w}.md", _note(w)) for w in ("amberone", "ambertwo", "amberthree")]
        mine = upload_file(b, "b.md", _note("bluejay"))
        assert all(r.status_code == 202 for r in [*queued, mine]), [r.text for r in [*queued, mine]]
        embedder.release.set()
        for client, r in [(a, first), *((a, q) for q in queued), (b, mine)]:
            assert wait_job(client, r.json()["id"])["status"] == "completed"
    turn = {w: next(i for i, text in enumerate(embedder.batches) if w in text)
            for w in ("obsidian", "amberone", "ambertwo", "amberthree", "bluejay")}
    order = sorted(turn, key=turn.get)
    assert order[:2] == ["obsidian", "bluejay"], order  # FIFO before the fix: B last, after all of A's files
    assert order[2:] == ["amberone", "ambertwo", "amberthree"], order  # A's own files keep their order


def test_attack_two_tenants_filling_the_queue_do_not_lock_a_third_out(held: Gated) -> None:
    """Tenants A and B each queue their share (``MAX_QUEUED_PER_TENANT``, 8) behind A's running file: the queue is
    full. Before the fix tenant C's one upload was a 429 ("16 uploads are already waiting") — the per-tenant share
    stopped one tenant from filling the queue, not two. Now a tenant with nothing waiting always gets its upload in
    (the bound is then ``MAX_QUEUED`` plus one job per otherwise quiet tenant), and with turns it runs in the first
    round, not after the 16."""
    url, keys, embedder = held
    assert keys is not None
    clients = {t: httpx.Client(base_url=url, timeout=60, headers={"X-API-Key": keys.create("editor", tenant=t)[1]})
               for t in ("full-a", "full-b", "full-c")}
    a, b, c = clients.values()
    try:
        first = upload_file(a, "hold.md", big_markdown(150_000, "obsidian"))
        assert first.status_code == 202, first.text
        assert embedder.holding.wait(60)
        share = routes_jobs.MAX_QUEUED_PER_TENANT
        filled = [upload_file(x, f"{n}-{i}.md", _note(f"{n}fill{i}")).status_code
                  for x, n in ((a, "a"), (b, "b")) for i in range(share)]
        assert filled == [202] * routes_jobs.MAX_QUEUED, filled
        assert upload_file(b, "b-more.md", _note("bmore")).status_code == 429  # each tenant's share still holds
        mine = upload_file(c, "c.md", _note("cormorant"))
        assert mine.status_code == 202, mine.text  # 429 before the fix
        assert upload_file(c, "c-more.md", _note("cmore")).status_code == 429  # one waiting job past the bound, not two
        embedder.release.set()
        assert wait_job(c, mine.json()["id"])["status"] == "completed"
        for x, n in ((a, "a"), (b, "b")):
            for job in x.get("/api/jobs").json()["jobs"]:
                assert wait_job(x, job["id"])["status"] == "completed"
        turn = {w: next(i for i, text in enumerate(embedder.batches) if w in text)
                for w in ("obsidian", "cormorant", "afill0", "bfill0", "bfill1")}
        # one round: every tenant's oldest waiting file, tenants never served first (B's came in before C's)
        assert sorted(turn, key=turn.get) == ["obsidian", "bfill0", "cormorant", "afill0", "bfill1"], turn
    finally:
        embedder.release.set()
        for x in clients.values():
            x.close()
