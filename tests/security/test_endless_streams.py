"""SSE that never ends: a chat stream must finish even when the model endpoint never stops "answering".

The model endpoint here is a real TCP server speaking just enough HTTP: it accepts the request, sends response
headers, and then keeps the connection alive forever — an SSE comment, or one more byte of a line, every 0.3 s —
without ever sending an answer. ``llm.timeout_s`` is 1 s. The chat turn must give up on the model, answer
offline and send ``complete``; before the fix each read reset the timeout, so the stream (and the worker thread
pulling it) lived as long as the endpoint kept trickling.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from groundsearch.interfaces.api import create_app
from groundsearch.models.llm import OpenAICompatLLM
from tests.api.live import make_engine, serve

TIMEOUT_S = 1.0
TRICKLE_FOR_S = 120.0  # far beyond any bound the test accepts


class Trickler:
    """Answers every request with headers and then an endless trickle of ``piece``."""

    def __init__(self, head: bytes, piece: bytes) -> None:
        self.head, self.piece = head, piece
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"
        self.stop = threading.Event()
        self.requests = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            try:
                conn.recv(65536)  # the request (its body may be cut off: it is never answered anyway)
                self.requests += 1
                conn.sendall(self.head)
                ends = time.monotonic() + TRICKLE_FOR_S
                while not self.stop.is_set() and time.monotonic() < ends:
                    conn.sendall(self.piece)
                    time.sleep(0.3)
            except OSError:
                return

    def close(self) -> None:
        self.stop.set()
        self.sock.close()


SSE_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
ENDPOINTS = {
    "sse comments": (SSE_HEAD, b"8\r\n: ping\n\n\r\n"),
    "one data line that never ends": (SSE_HEAD + b"5\r\ndata:\r\n", b"1\r\n \r\n"),
}


@pytest.fixture(params=list(ENDPOINTS))
def trickling(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, Trickler]]:
    head, piece = ENDPOINTS[request.param]
    model = Trickler(head, piece)
    engine = make_engine(tmp_path)
    engine.llm = OpenAICompatLLM(model.url, "trickle", dialect="openai", timeout_s=TIMEOUT_S)
    try:
        with engine, serve(create_app(engine)) as url:
            yield url, model
    finally:
        model.close()


@pytest.mark.parametrize("stream", [True, False])
def test_attack_a_trickling_model_cannot_keep_a_chat_open(trickling: tuple[str, Trickler], stream: bool) -> None:
    url, model = trickling
    started = time.monotonic()
    with httpx.Client(base_url=url, timeout=httpx.Timeout(90)) as c:
        if stream:
            with c.stream("POST", "/api/chat", params={"stream": "true"},
                          json={"message": "How do I configure search?"}) as r:
                body = ""
                for text in r.iter_text():
                    body += text
                    assert time.monotonic() - started < 60, "the chat stream is still open after 60 s"
            assert "event: complete" in body
        else:
            r = c.post("/api/chat", json={"message": "How do I configure search?"})
            assert r.status_code == 200, r.text
            body = r.text
    assert model.requests >= 1, "the model was never called: this test would prove nothing"
    assert "timed out" in body  # the turn says why it answered offline
    assert time.monotonic() - started < 60
