"""A stall watchdog for an HTTP response: close it when no progress has been made for ``seconds``.

httpx's timeout is per network read. A model endpoint that keeps a response alive without answering — an SSE
comment every few seconds, one byte of a line at a time — never trips it, so a call (and a chat stream waiting
on it) could last for ever. Closing the response from the watchdog's thread makes the blocked read fail at
once; the caller sees ``expired`` and reports a timeout.
"""

from __future__ import annotations

import threading
import time

import httpx

__all__ = ["StallWatchdog"]


class StallWatchdog:
    """``with StallWatchdog(response, seconds) as dog:`` — call ``dog.progress()`` whenever real output arrives."""

    def __init__(self, response: httpx.Response, seconds: float) -> None:
        self._response, self._seconds = response, seconds
        self._last = time.monotonic()
        self._done = threading.Event()
        self.expired = False
        self._thread = threading.Thread(target=self._watch, name="groundsearch-llm-watchdog", daemon=True)

    def progress(self) -> None:
        self._last = time.monotonic()

    def _watch(self) -> None:
        while not self._done.wait(min(0.25, self._seconds)):
            if time.monotonic() - self._last > self._seconds:
                self.expired = True
                self._response.close()
                return

    def __enter__(self) -> StallWatchdog:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
