"""Bad input gets a 4xx naming the problem, in the one error shape; never a 500. Real failures map as documented."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest

from groundsearch.engine import Engine
from groundsearch.errors import EmbeddingFailed
from groundsearch.interfaces.api import create_app
from groundsearch.models.fake import HashEmbedder
from groundsearch.store.sqlite import SQLiteStore

from .live import make_engine, make_settings, serve


def error_of(r: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "details"}
    assert body["error"]["code"] == code and body["error"]["message"]
    return body["error"]


def fields(err: dict[str, Any]) -> set[str]:
    return {f["field"] for f in err["details"]["fields"]}


@pytest.mark.parametrize(("body", "field"), [
    ({"query": 5}, "body.query"),
    ({"query": ["a"]}, "body.query"),
    ({}, "body.query"),
    ({"query": ""}, "body.query"),
    ({"query": "   "}, "body.query"),
    ({"query": "x" * 2001}, "body.query"),
    ({"query": "x", "limit": "many"}, "body.limit"),
    ({"query": "x", "limit": 2.5}, "body.limit"),
    ({"query": "x", "offset": -1}, "body.offset"),
    ({"query": "x", "threshold": 2}, "body.threshold"),
    ({"query": "x", "hints": {"format": "pie"}}, "body.hints.format"),
    ({"query": "x", "hints": {"colour": "red"}}, "body.hints.colour"),
    ({"query": "x", "surprise": True}, "body.surprise"),
    ({"query": "x", "filters": {"product": {"nested": 1}}}, "body.filters.product"),
    ({"query": "x", "collections": "docs"}, "body.collections"),
])
def test_wrong_types_and_missing_fields_name_the_field(client: httpx.Client, body: dict[str, Any], field: str) -> None:
    err = error_of(client.post("/api/search", json=body), 400, "VALIDATION_FAILED")
    assert any(f == field or f.startswith(field) for f in fields(err)), err


def test_body_that_is_not_an_object(client: httpx.Client) -> None:
    for raw in (b"[1, 2]", b'"query"', b"null", b"{", b"{'query': 'x'}"):
        r = client.post("/api/search", content=raw, headers={"content-type": "application/json"})
        error_of(r, 400, "VALIDATION_FAILED")


def test_invalid_utf8_is_400(client: httpx.Client) -> None:
    for raw in (b'{"query": "\xff\xfe caf\xe9"}', b"\xc3\x28", b'{"query": "ok\xed\xa0\x80"}'):
        r = client.post("/api/search", content=raw, headers={"content-type": "application/json"})
        err = error_of(r, 400, "VALIDATION_FAILED")
        assert "body" in fields(err) or any(f.startswith("body") for f in fields(err))


def test_unknown_filter_and_collection_are_400_with_details(client: httpx.Client) -> None:
    err = error_of(client.post("/api/search", json={"query": "x", "filters": {"colour": "red"}}), 400,
                   "VALIDATION_FAILED")
    assert err["details"]["field"] == "colour"
    err = error_of(client.post("/api/search", json={"query": "x", "collections": ["nope"]}), 400,
                   "VALIDATION_FAILED")
    assert "nope" in err["message"]
    bad_date = client.post("/api/search", json={"query": "x", "filters": {"date_from": "yesterday"}})
    error_of(bad_date, 400, "VALIDATION_FAILED")


def test_known_filter_gives_correct_results(client: httpx.Client) -> None:
    r = client.post("/api/search", json={"query": "vector search", "collections": ["releases"],
                                          "filters": {"product": "Beacon"}})
    assert r.status_code == 200, r.text
    assert [h["title"] for h in r.json()["results"]] == ["Beacon 0.4"]


def test_huge_bodies_are_refused_before_parsing(client: httpx.Client) -> None:
    huge = b'{"query": "' + b"a" * 200_000 + b'"}'
    err = error_of(client.post("/api/search", content=huge, headers={"content-type": "application/json"}), 413,
                   "PAYLOAD_TOO_LARGE")
    assert err["details"]["max_bytes"] == 64 * 1024

    def chunks():  # no Content-Length: the limit is enforced while the body streams in
        for _ in range(40):
            yield b"a" * 4096

    r = client.post("/api/search", content=chunks(), headers={"content-type": "application/json"})
    error_of(r, 413, "PAYLOAD_TOO_LARGE")

    def small():  # a chunked body under the limit is served normally
        yield b'{"query": '
        yield b'"atlas"}'

    assert client.post("/api/search", content=small(), headers={"content-type": "application/json"}).status_code == 200


def test_lying_content_length_header(base_url: str) -> None:
    host, port = base_url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(b"POST /api/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: abc\r\n\r\n{}")
        reply = s.recv(4096)
    assert reply.split(b" ", 2)[1] in (b"400", b"413"), reply[:200]


def test_preview_and_get_parameters(client: httpx.Client) -> None:
    error_of(client.get("/api/search/preview", params={"q": "x", "limit": "ten"}), 400, "VALIDATION_FAILED")
    error_of(client.get("/api/search", params={"q": ""}), 400, "VALIDATION_FAILED")
    error_of(client.get("/api/search"), 400, "VALIDATION_FAILED")
    error_of(client.get("/api/search", params={"q": "x", "offset": "-3"}), 400, "VALIDATION_FAILED")


def test_not_found_and_method(client: httpx.Client) -> None:
    error_of(client.get("/api/items/no-such-item"), 404, "NOT_FOUND")
    error_of(client.delete("/api/items/no-such-item"), 404, "NOT_FOUND")
    error_of(client.get("/api/nowhere"), 404, "NOT_FOUND")
    error_of(client.put("/api/search", json={"query": "x"}), 405, "METHOD_NOT_ALLOWED")


def test_unexpected_errors_are_redacted_with_a_request_id(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          caplog: pytest.LogCaptureFixture) -> None:
    with make_engine(tmp_path) as engine, serve(create_app(engine)) as url:
        def explode(*a: Any, **k: Any) -> Any:
            raise RuntimeError("secret connection string postgres://admin:hunter2@db")

        monkeypatch.setattr(engine, "search", explode)
        r = httpx.post(f"{url}/api/search", json={"query": "atlas"})
        err = error_of(r, 500, "INTERNAL")
        assert "hunter2" not in r.text and "secret" not in r.text
        assert err["details"]["request_id"] == r.headers["x-request-id"]
        assert r.headers["x-request-id"] in caplog.text and "hunter2" in caplog.text  # logged for the operator


class BrokenEmbedder(HashEmbedder):
    """An embedder that cannot run, as when its model file fails to load at query time."""

    def embed_queries(self, texts: Any) -> np.ndarray:
        raise EmbeddingFailed("the embedding model cannot run: onnxruntime session failed")

    def embed_query(self, text: str) -> np.ndarray:
        raise EmbeddingFailed("the embedding model cannot run: onnxruntime session failed")


def test_embedder_failure_is_503_without_partial_results(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    make_engine(tmp_path, settings).close()
    store = SQLiteStore.open(settings.data_dir / "store", dim=384)
    with Engine(settings, store, BrokenEmbedder(dim=384)) as engine, serve(create_app(engine)) as url:
        r = httpx.post(f"{url}/api/search", json={"query": "atlas"})
        err = error_of(r, 503, "EMBEDDING_FAILED")
        assert "results" not in r.json()
        assert "onnxruntime" in err["message"]
        kw = httpx.post(f"{url}/api/search", json={"query": "atlas", "profile": "keyword"})
        assert kw.status_code == 200  # a keyword-only search needs no embedder
