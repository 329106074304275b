"""A real HTTP server on 127.0.0.1 for link-health tests: 200, 301, 404, a hang, and a HEAD-refusing page."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class LinkServer:
    def __init__(self) -> None:
        self.hits: Counter[str] = Counter()
        self.release = threading.Event()  # the hang ends when the test is done
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _answer(self, method: str) -> None:
                owner.hits[f"{method} {self.path}"] += 1
                if self.path == "/hang":
                    owner.release.wait(30)
                    return
                if self.path == "/moved":
                    self.send_response(301)
                    self.send_header("Location", "/ok")
                elif self.path == "/no-head" and method == "HEAD":
                    self.send_response(405)
                elif self.path in ("/ok", "/no-head"):
                    self.send_response(200)
                else:
                    self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_HEAD(self) -> None:  # noqa: N802 (http.server's naming)
                self._answer("HEAD")

            def do_GET(self) -> None:  # noqa: N802
                self._answer("GET")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"

    def url(self, path: str) -> str:
        return self.base + path


@contextmanager
def link_server() -> Iterator[LinkServer]:
    server = LinkServer()
    thread = threading.Thread(target=server.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.release.set()
        server.server.shutdown()
        server.server.server_close()
