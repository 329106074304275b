"""Existence oracles by id (round 10): another tenant's id must answer exactly as an id nobody has.

For every route that takes an id — items (get, similar, delete), jobs (get, cancel), conversations (get,
delete), feedback marks (delete), keys (revoke) — a key of tenant A sends tenant B's real id and a made-up id of
the same shape. The two answers must be the same status and the same body once each id is replaced by a
placeholder: any difference (403 against 404, another message, another detail) tells A that B has the id.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from .conftest import Server, chat, upload

VICTIM, PROBER = "oracle-victim-r10", "oracle-prober-r10"


@pytest.fixture(scope="module")
def victims(server: Server) -> dict[str, str]:
    key = server.key("editor", VICTIM)
    editor = server.client(key)
    assert upload(editor, "ledger.md", "# Ledger\n\nThe Corvina ledger closes in March.\n").status_code == 200
    found = editor.post("/api/search", json={"query": "Corvina ledger"}).json()
    item = found["results"][0]["item_id"]
    mark = editor.post("/api/feedback", json={"request_id": found["diagnostics"]["request_id"], "item_id": item,
                                              "useful": True})
    assert mark.status_code == 201, mark.text
    job = editor.post("/api/items", params={"background": "true"},
                      files={"file": ("later.md", b"# Later\n\nCorvina notes.\n", "text/markdown")})
    assert job.status_code == 202, job.text
    return {"item_id": item, "job_id": job.json()["id"], "feedback_id": mark.json()["id"],
            "conversation_id": chat(editor, "Corvina ledger?")["conversation_id"],
            "key_id": server.keys.create("viewer", tenant=VICTIM)[0].id, "key": key}


def _fake(real: str) -> str:
    """An id of the same shape that nobody has: its last hex digits or letters changed."""
    return real[:-4] + ("0000" if not real.endswith("0000") else "1111")


ROUTES = [("GET", "/api/items/{item_id}"), ("GET", "/api/items/{item_id}/similar"),
          ("DELETE", "/api/items/{item_id}"), ("GET", "/api/jobs/{job_id}"), ("DELETE", "/api/jobs/{job_id}"),
          ("GET", "/api/chat/{conversation_id}"), ("DELETE", "/api/chat/{conversation_id}"),
          ("DELETE", "/api/feedback/{feedback_id}"), ("DELETE", "/api/keys/{key_id}")]


def _answer(server: Server, method: str, path: str, value: str) -> tuple[int, Any]:
    name = re.search(r"\{([^}]+)\}", path).group(1)  # type: ignore[union-attr]
    role = "admin" if "keys" in path else "editor"
    with server.client(server.key(role, PROBER)) as c:
        r = c.request(method, path.replace("{" + name + "}", value))
    body = r.text.replace(value, "<id>")
    body = re.sub(r'"request_id":\s*"[0-9a-f]+"', '"request_id":"<rid>"', body)
    return r.status_code, body


@pytest.mark.parametrize(("method", "path"), ROUTES, ids=[f"{m} {p}" for m, p in ROUTES])
def test_attack_another_tenants_id_answers_as_an_unknown_one(
        server: Server, victims: dict[str, str], method: str, path: str) -> None:
    real = victims[re.search(r"\{([^}]+)\}", path).group(1)]  # type: ignore[union-attr]
    theirs, nobodys = _answer(server, method, path, real), _answer(server, method, path, _fake(real))
    assert theirs == nobodys, (theirs, nobodys)
    assert theirs[0] == 404, theirs
    owner = server.client(victims["key"])  # and the victim's objects are untouched
    assert owner.get(f"/api/items/{victims['item_id']}").status_code == 200
    assert owner.get(f"/api/chat/{victims['conversation_id']}").status_code == 200
    assert owner.get(f"/api/jobs/{victims['job_id']}").json()["cancel_requested"] is False
    assert victims["key_id"] in {k["id"] for k in server.client(server.key("admin", VICTIM)).get("/api/keys").json()}
