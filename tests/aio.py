"""Run a client coroutine from a synchronous test, whatever else the session has running."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


def run_in_own_loop(make: Callable[[], Coroutine[Any, Any, T]], timeout: float) -> T:
    """`asyncio.run(make())` on a worker thread with a time limit.

    The session-wide Playwright browser of tests/web keeps an event loop running on the main thread, where
    `asyncio.run` refuses to start; a thread of its own has no loop, so the order tests run in stops mattering.
    """

    async def bounded() -> T:
        return await asyncio.wait_for(make(), timeout)

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, bounded()).result()
