"""Attack: many large uploads at once, to make the server hold them all in memory (round 10).

``POST /api/items`` takes up to 32 MiB. Starlette spools a multipart file to disk past 1 MiB, but the route then
read the whole of it into one ``bytes`` (``await file.read(...)``) to write it to the staging folder: each upload
in flight cost its full size in RAM. Measured on a real ``groundsearch serve`` (scripts/upload_rss.py): one 32 MiB
upload raised the server's peak RSS by 33 MiB, 8 at once from 118 to 193–206 MiB, 16 to 252 MiB — an editor's 60
uploads a minute, or many editors, push that towards gigabytes. Now the route copies the spooled file to staging
1 MiB at a time: 121, 128–130 and 139 MiB.

The test counts the server's Python allocations (``tracemalloc``; the server runs in this process) while one
24 MiB upload is staged: before the fix the peak held the whole body, now it stays a few chunks. The upload is
records into a documents collection, so the ingest job fails at once without reading it back.
"""

from __future__ import annotations

import tracemalloc
from pathlib import Path

from .conftest import Server, wait_job

SIZE = 24 * 1024 * 1024
CEILING = 8 * 1024 * 1024  # well under SIZE: the upload may pass through in chunks, never whole


def test_attack_an_upload_is_never_held_whole_in_memory(server: Server, tmp_path: Path) -> None:
    upload = tmp_path / "big.jsonl"
    upload.write_bytes(b'{"id": "r1", "notes": "x"}\n' + b" " * (SIZE - 27))
    editor = server.client(server.key("editor", "upload-memory"))
    tracemalloc.start()
    try:
        with upload.open("rb") as body:  # the client streams it from disk too: the peak is the server's
            r = editor.post("/api/items", params={"background": "true"}, data={"collection": "docs"},
                            files={"file": ("big.jsonl", body, "application/jsonl")})
        assert r.status_code == 202, r.text
        job = wait_job(editor, r.json()["id"])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert job["status"] == "failed" and "documents collection" in job["error"]["message"], job
    assert peak < CEILING, f"{peak / 2**20:.1f} MiB allocated at the peak for a {SIZE / 2**20:.0f} MiB upload"
