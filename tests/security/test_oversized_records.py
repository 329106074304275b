"""Attack on upload bounds (round 4): a records file must not carry more text than the chunk limit allows.

``api.upload_max_chunks`` (1,000) bounds an upload's work because a document's chunks are at most
``MAX_CHUNK_CHARS`` (700) characters. A record is one chunk however long its text fields are, so one 2 MB record
— or a thousand 3 kB ones — passed the limit with 3–40× the text a document may have, and every sentence of it
went to the embedder after the time budget had stopped counting (the answers' sentence vectors). A tenant's
editor pinned the one ingest worker that every tenant shares. Records now count one chunk per 700 characters.
"""

from __future__ import annotations

import json

from .conftest import Server
from .test_uploads import outcome


def _record(i: int, chars: int, word: str) -> dict[str, str]:
    sentence = f"The {word} valve {i} was inspected and logged before the shift. "
    return {"id": f"r{i}", "product": f"Valve {word}", "version": str(i),
            "notes": (sentence * (chars // len(sentence) + 1))[:chars]}


def _jsonl(records: list[dict[str, str]]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def _refused(server: Server, tenant: str, rows: list[dict[str, str]], word: str) -> str:
    """Upload ``rows`` as one records file for ``tenant``: it must fail, and nothing of it be found."""
    with server.client(server.key("editor", tenant)) as c:
        r = c.post("/api/items", files={"file": (f"{word}.jsonl", _jsonl(rows), "application/x-ndjson")},
                   data={"collection": "rel"})
        status, message = outcome(c, r)
        assert status == "failed" and "chunks" in message, message
        assert c.post("/api/search", json={"query": f"{word} valve inspected"}).json()["results"] == []
    return message


def test_attack_one_huge_record_is_refused_at_the_chunk_limit(server: Server) -> None:
    assert "700" in _refused(server, "rec-huge", [_record(0, 2_000_000, "glimmet")], "glimmet")


def test_attack_many_long_records_are_refused_at_the_chunk_limit(server: Server) -> None:
    _refused(server, "rec-many", [_record(i, 3_000, "quorril") for i in range(1000)], "quorril")


def test_records_within_the_limit_still_complete(server: Server) -> None:
    """The bound counts text, not rows: 300 records of 1,200 characters (600 chunks' worth) are one upload."""
    with server.client(server.key("editor", "rec-ok")) as c:
        rows = [_record(i, 1_200, "tessalin") for i in range(300)]
        r = c.post("/api/items", files={"file": ("ok.jsonl", _jsonl(rows), "application/x-ndjson")},
                   data={"collection": "rel"})
        status, message = outcome(c, r)
        assert status == "completed", message
        assert c.post("/api/search", json={"query": "tessalin valve inspected"}).json()["results"]
