"""Lone surrogate escapes in uploaded records (session 12): ``"\\ud800"`` is valid JSON syntax for no character.

Python's ``json`` turns the escape into a lone UTF-16 surrogate, a ``str`` no UTF-8 encoder accepts, so a records
file (``.json``, ``.jsonl``) or a ``POST /api/items/records`` body holding one passed parsing and failed later,
where the text is encoded (hashing, SQLite, the records route writing its job file): a ``500 INTERNAL``
("ingest failed unexpectedly (UnicodeEncodeError)"), and with the exception raised out of the app, uvicorn
dropped the connection, so the client's next request on it was reset. The request bodies the API parses itself
refuse such a string for typed fields (400); records are free-form ``Any``. A client must get a 400 naming the
file (or the body) and the reason, nothing stored, and a connection still serving.
"""

from __future__ import annotations

import time

import httpx
import pytest

from groundsearch.types import SearchFilter

from .conftest import Server

LONE = "\\ud800"  # as written in the JSON text: backslash, u, d800
FILES = {
    "value.jsonl": '{"id": "s1", "product": "p", "version": "1", "notes": "n ' + LONE + '"}\n',
    "record-key.jsonl": '{"id": "s' + LONE + '", "product": "p", "version": "1", "notes": "n"}\n',
    "field-name.json": '[{"id": "s3", "product": "p", "version": "1", "notes": "n", "' + LONE + '": 1}]',
    "low-half.jsonl": '{"id": "s5", "product": "p", "version": "1", "notes": "\\udfff"}\n',
}


def _stored(server: Server, tenant: str) -> int:
    return server.engine.store.count(SearchFilter(tenant=tenant, statuses=("published", "draft", "archived")))


def _still_serving(c: httpx.Client) -> None:
    fine = c.post("/api/items/records", json={"collection": "rel", "records": [
        {"id": "ok", "product": "p", "version": "1", "notes": "a real pair \U0001F600 is fine"}]})
    assert fine.status_code == 200 and fine.json()["added"] == 1, fine.text


@pytest.mark.parametrize("background", [False, True], ids=["sync", "job"])
@pytest.mark.parametrize("name", list(FILES))
def test_attack_a_lone_surrogate_in_a_records_file_is_a_400(server: Server, name: str, background: bool) -> None:
    tenant = f"surrogate-{name}-{background}"
    with server.client(server.key("editor", tenant)) as c:
        r = c.post("/api/items", params={"background": str(background).lower()}, data={"collection": "rel"},
                   files={"file": (name, FILES[name].encode("ascii"), "application/json")})
        if background:
            assert r.status_code == 202, r.text
            job = r.json()["id"]
            deadline = time.monotonic() + 60  # a ceiling for a busy machine; 100 polls was about 5 s
            while (error := c.get(f"/api/jobs/{job}").json())["status"] in ("queued", "running") \
                    and time.monotonic() < deadline:
                time.sleep(0.05)
            assert error["status"] == "failed", error
            error = error["error"]
        else:
            assert r.status_code == 400, (r.status_code, r.text[:300])  # main: 500
            error = r.json()["error"]
        assert error["code"] == "INGEST_FAILED" and name in error["message"], error
        assert "surrogate" in error["message"], error
        assert _stored(server, tenant) == 0
        _still_serving(c)


@pytest.mark.parametrize("where", ["value", "field name"])
def test_attack_a_lone_surrogate_in_posted_records_is_a_400(server: Server, where: str) -> None:
    tenant = f"surrogate-body-{where}"
    record = ('{"id": "b1", "product": "p", "version": "1", "notes": "n ' + LONE + '"}' if where == "value" else
              '{"id": "b1", "product": "p", "version": "1", "notes": "n", "' + LONE + '": 1}')
    with server.client(server.key("editor", tenant)) as c:
        r = c.post("/api/items/records", content='{"collection": "rel", "records": [' + record + ']}',
                   headers={"content-type": "application/json"})
        assert r.status_code == 400, (r.status_code, r.text[:300])  # main: 500
        assert "surrogate" in r.json()["error"]["message"], r.text
        assert _stored(server, tenant) == 0
        _still_serving(c)
