"""Attack on the background embedder (session 12): may one tenant's backlog hold back another's vectors?

Under ``groundsearch serve`` an upload is written as text at once (keyword-searchable) and its vectors are
filled by one background thread. It filled them in chunk-key order, whoever's they were: tenant A uploading a
700-chunk file made tenant B's one-chunk note, uploaded a moment later, wait behind all of A's windows, and an
editor uploading in a loop kept every other tenant's new items out of the vector leg for as long as it liked
(``diagnostics.vectors_pending`` said so). The embedder now takes turns: one window per tenant with chunks
waiting, each tenant's own chunks in key order. Over the real app with real keys; the embedder is held inside
A's first window so the order is not a race.
"""

from __future__ import annotations

from pathlib import Path

import httpx

from groundsearch.ingest.embed_worker import WINDOW

from .conftest import gated_server, upload, upload_file, wait_job, wait_until

A, B = "embed-turns-a", "embed-turns-b"
BACKLOG = "\n\n".join(f"## Section {i}\n\nBacklog paragraph {i} of tenant A about ledger reconciliation, "
                      f"cost centre {i}, and the quarterly close of books number {i}." for i in range(700))
NOTE = "# Quokka roster\n\nThe quokka roster of tenant B is due on Friday.\n"


def _pending(c: httpx.Client, query: str) -> int:
    r = c.post("/api/search", json={"query": query})
    assert r.status_code == 200, r.text
    return r.json()["diagnostics"]["vectors_pending"]


def test_attack_a_tenants_backlog_does_not_hold_back_another_tenants_vectors(tmp_path: Path) -> None:
    with gated_server(tmp_path, keyed=True, hold_at=1, background=True) as served:
        a = httpx.Client(base_url=served.url, timeout=60,
                         headers={"Authorization": f"Bearer {served.keys.create('editor', tenant=A)[1]}"})
        b = httpx.Client(base_url=served.url, timeout=60,
                         headers={"Authorization": f"Bearer {served.keys.create('editor', tenant=B)[1]}"})
        queued = upload_file(a, "backlog.md", BACKLOG.encode())
        assert queued.status_code == 202, queued.text
        done = wait_job(a, queued.json()["id"])
        assert done["status"] == "completed" and done["result"]["chunks_written"] > 600, done
        assert served.embedder.holding.wait(30), "the background embedder never started on A's backlog"
        assert upload(b, "roster.md", NOTE).status_code == 200
        assert _pending(b, "quokka roster") == 1
        served.embedder.release.set()
        wait_until(lambda: _pending(b, "quokka roster") == 0, what="B's chunk embedded")
        batches = served.embedder.batches
        # the chunk's own window: its heading is in the embedded text (an answer embeds only its sentences)
        mine = next(i for i, texts in enumerate(batches) if "Quokka roster" in texts)
        ahead = sum(texts.count("Backlog paragraph") for texts in batches[:mine + 1])
        # only the window of A's in flight when B uploaded is embedded before B's chunk (main: all 700 of A's)
        assert ahead <= WINDOW, f"B's chunk waited for {ahead} of A's chunks"
