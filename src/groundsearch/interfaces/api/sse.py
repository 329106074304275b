"""Server-Sent Events over ``Engine.stream``: forward each stage event by name, ``complete`` always last.

``Engine.stream`` is a synchronous generator doing blocking work between yields. It is advanced one step at a
time in a worker thread, so the event loop stays free and — the point of this design — when the client goes
away, sse-starlette cancels this coroutine, no further step is pulled, and closing the generator stops the
remaining stages (the engine's ``finally`` blocks run). A thread is never abandoned mid-step: cancellation waits
for the current step, because a generator cannot be closed while it is executing.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any, get_args

import anyio

from ...errors import GroundsearchError
from ...store.index_check import is_panic
from ...types import Event, EventName

__all__ = ["first_event", "sse_events", "stream_responses"]

log = logging.getLogger("groundsearch.api")


def stream_responses(description: str) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` for a route that answers JSON or, with ``stream=true``, ``text/event-stream``."""
    return {200: {"description": description, "content": {"text/event-stream": {"schema": {
        "description": "one Server-Sent Event; `data` is a JSON object",
        "type": "object",
        "required": ["event", "data"],
        "properties": {"event": {"type": "string", "enum": list(get_args(EventName))},
                       "data": {"type": "string", "contentMediaType": "application/json"},
                       "id": {"type": "string"}},
    }}}}}


def _dumps(data: Any) -> str:
    return json.dumps(data, default=str, separators=(",", ":"))


async def pull(events: Iterator[Event]) -> Event | None:
    return await anyio.to_thread.run_sync(next, events, None)


async def first_event(events: Iterator[Event]) -> Event | None:
    """Run the first step before the response starts, so bad input still gets a plain 400, not a stream."""
    try:
        return await pull(events)
    except BaseException:
        events.close()
        raise


async def sse_events(events: Iterator[Event], first: Event | None, started: float,
                     request_id: str) -> AsyncIterator[dict[str, str]]:
    """Yield sse-starlette event dicts. ``started`` is ``time.perf_counter()`` at request start."""
    seq = 0
    complete: dict[str, Any] = {}
    try:
        event = first
        while event is not None:
            if event.name == "complete":
                complete = dict(event.data)  # held back: nothing may follow ``complete``
            else:
                seq += 1
                yield {"event": event.name, "id": str(seq), "data": _dumps(dict(event.data))}
            event = await pull(events)
    except GroundsearchError as exc:
        from .errors import status_for

        code = exc.code if status_for(exc) != 500 else "INTERNAL"
        message = exc.message if status_for(exc) != 500 else f"internal error; quote request id {request_id}"
        if status_for(exc) == 500:
            log.error("stream failed (request id %s)", request_id, exc_info=exc)
        yield {"event": "error", "data": _dumps({"error": {"code": code, "message": message,
                                                           "details": {"request_id": request_id}}})}
    except BaseException as exc:  # Exception, or a Rust panic (a BaseException); cancellation passes through
        if not isinstance(exc, Exception) and not is_panic(exc):
            raise
        log.error("stream failed (request id %s)", request_id, exc_info=exc)
        yield {"event": "error", "data": _dumps({"error": {
            "code": "INTERNAL", "message": f"internal error; quote request id {request_id}",
            "details": {"request_id": request_id}}})}
    finally:
        events.close()
    complete["total_latency_ms"] = round((time.perf_counter() - started) * 1000, 2)
    yield {"event": "complete", "id": str(seq + 1), "data": _dumps(complete)}
