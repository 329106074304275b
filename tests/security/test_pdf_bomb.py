"""Attack on the upload time budget (round 4): a PDF whose pages decompress to megabytes of nothing.

A page's content stream is Flate-compressed: 5 MB of spaces is ~5 kB in the file, and pypdf inflates and walks
all of it (up to its own 75 MB per stream) to find a few words. The ingest job checked its time budget and its
cancellation before and after parsing a file, never during it, so a 2 MB PDF of 400 such pages held the one ingest
worker every tenant shares for the whole parse (~450 s here, load ~20) whatever ``api.upload_timeout_s`` said,
and a ``DELETE`` of the job waited for it too. The budget is now checked before each page.

No speed is assumed. The test counts the pages the job actually parsed (pypdf's ``extract_text`` calls), and the
first page is held past the budget, so the product's bound — the budget is checked before each page — allows
exactly that one page of the file's 120; a job that checked only around the parse would parse all of them. How
long the test waits for the job is a liveness bound measured on this machine (one page's parse).
"""

from __future__ import annotations

import time
import zlib
from pathlib import Path
from typing import Any

import httpx
import pytest

from .conftest import gated_server
from .test_uploads import wait_job

PAGES = 120
SPACES = 5_000_000


def bomb(pages: int, spaces: int) -> bytes:
    """A valid PDF of ``pages`` pages, each drawing one word after ``spaces`` compressed spaces."""
    content = zlib.compress(b"BT /F1 12 Tf 10 10 Td (hello) Tj ET\n" + b" " * spaces, 9)
    font = 3 + 2 * pages
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(pages))
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", f"<< /Type /Pages /Kids [{kids}] /Count {pages} >>".encode()]
    for i in range(pages):
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
                       f"/Resources << /Font << /F1 {font} 0 R >> >> >>".encode())
        objects.append(f"<< /Length {len(content)} /Filter /FlateDecode >>\nstream\n".encode() + content
                       + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for n, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{n} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def one_page_seconds(tmp_path: Path) -> float:
    from pypdf import PdfReader

    path = tmp_path / "one.pdf"
    path.write_bytes(bomb(1, SPACES))
    started = time.monotonic()
    assert "hello" in (PdfReader(path).pages[0].extract_text() or "")
    return time.monotonic() - started


def test_attack_a_pdf_bomb_stops_at_the_time_budget_not_after_the_parse(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from pypdf import PageObject

    page = one_page_seconds(tmp_path)
    budget = 1.0
    parsed: list[int] = []
    extract_text = PageObject.extract_text

    def counted(self: PageObject, *args: Any, **kwargs: Any) -> str:
        parsed.append(1)
        if len(parsed) == 1:
            time.sleep(budget + 0.1)  # the first page outlasts the budget whatever this machine's speed
        return extract_text(self, *args, **kwargs)

    monkeypatch.setattr(PageObject, "extract_text", counted)
    with gated_server(tmp_path, upload_timeout_s=budget) as (url, _, embedder), \
            httpx.Client(base_url=url, timeout=30) as c:
        embedder.release.set()  # the embedder is not what this test holds up
        r = c.post("/api/items", params={"background": "true"},
                   files={"file": ("bomb.pdf", bomb(PAGES, SPACES), "application/pdf")})
        assert r.status_code == 202, r.text[:300]
        # a liveness bound: the whole parse of PAGES pages, twice over, plus the held page
        job = wait_job(c, r.json()["id"], seconds=budget + 3 * page + PAGES * page * 2)
        assert job["status"] == "failed" and job["error"]["details"]["reason"] == "timeout", job
        assert len(parsed) == 1, f"{len(parsed)} of {PAGES} pages parsed after the {budget} s budget ran out"
        assert c.post("/api/search", json={"query": "hello"}).json()["results"] == []
