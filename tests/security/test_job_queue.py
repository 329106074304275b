"""A tenant flooding the ingest queue must not lock every other tenant out of uploading (real app, real keys).

One worker thread serves every tenant's uploads, behind a bounded queue. The bound protects the machine; it
must not become a switch one tenant's editor flips to refuse everybody else's uploads.
"""

from __future__ import annotations

import httpx

from groundsearch.interfaces.api.routes_jobs import MAX_QUEUED

from .conftest import Gated, upload_file
from .conftest import wait_job
from .test_uploads import big_markdown


def test_attack_one_tenant_cannot_fill_the_queue_for_everyone(held: Gated) -> None:
    """Tenant B's editor holds the worker with one big file and queues as many uploads as it is let; tenant A's
    upload must still be accepted. Before the fix the queue bound was global: B's 16 queued files made A's
    upload a 429 ("16 uploads are already waiting")."""
    url, keys, embedder = held
    assert keys is not None
    b = httpx.Client(base_url=url, timeout=60, headers={"X-API-Key": keys.create("editor", tenant="flood-b")[1]})
    a = httpx.Client(base_url=url, timeout=60, headers={"X-API-Key": keys.create("editor", tenant="quiet-a")[1]})
    with a, b:
        first = upload_file(b, "hold.md", big_markdown(150_000, "obsidian"))
        assert first.status_code == 202, first.text
        assert embedder.holding.wait(60)  # the worker is busy with B's file; everything else waits in the queue
        codes = [upload_file(b, f"flood-{i}.md", f"# Flood {i}\n\nFiller {i}.\n".encode()).status_code
                 for i in range(MAX_QUEUED)]
        mine = upload_file(a, "mine.md", b"# Quiet note\n\nTenant A's own note about ferns.\n")
        assert mine.status_code == 202, mine.text  # A is not refused because of B ...
        assert 429 in codes, codes  # ... because B is refused first
        embedder.release.set()
        assert wait_job(a, mine.json()["id"])["status"] == "completed"
