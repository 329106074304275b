"""Connecting to Postgres: clear errors when it is unreachable, retries on transient failures.

A *transient* error is one where retrying the whole transaction is safe and likely to succeed: the
connection broke (server restart, failover, a terminated backend, a network blip) or the server asked
us to retry (serialization failure, deadlock). Every store write is an idempotent replace, and every
read is side-effect free, so the store retries whole operations on these and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import psycopg
from psycopg import conninfo
from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential_jitter

from ..errors import StoreError, StoreUnavailable

T = TypeVar("T")

__all__ = ["connect_once", "describe", "in_transaction", "is_transient", "retrying"]

CONNECT_TIMEOUT_S = 5
RETRY_ATTEMPTS = 4  # first try + 3 retries, ~0.1 s, 0.2 s, 0.4 s apart: rides out a failover blip, not an outage


def describe(dsn: str) -> str:
    """``host:port/dbname`` of a DSN, never its password (safe for error messages and logs)."""
    try:
        parts = conninfo.conninfo_to_dict(dsn)
    except psycopg.ProgrammingError:
        return "<unparseable DSN>"
    return f"{parts.get('host', 'localhost')}:{parts.get('port', 5432)}/{parts.get('dbname', '')}"


# Retry-worthy server answers: serialization failure, deadlock, admin/crash shutdown, cannot connect now,
# too many connections. Class 08 (connection exception) is added below; any other SQLSTATE is a real error.
_TRANSIENT_SQLSTATES = frozenset({"40001", "40P01", "57P01", "57P02", "57P03", "53300"})


def is_transient(exc: BaseException) -> bool:
    from psycopg_pool import PoolTimeout

    if isinstance(exc, PoolTimeout):
        return True
    if not isinstance(exc, psycopg.Error):
        return False
    state = exc.sqlstate
    if state is None:  # raised by the client: connection refused, lost, or closed under us
        return isinstance(exc, psycopg.OperationalError)
    return state.startswith("08") or state in _TRANSIENT_SQLSTATES


def retrying() -> Retrying:
    return Retrying(
        retry=retry_if_exception(is_transient),
        stop=stop_after_attempt(RETRY_ATTEMPTS),
        wait=wait_exponential_jitter(multiplier=0.1, max=1.0),
        reraise=True,
    )


def unavailable(dsn: str, exc: BaseException) -> StoreUnavailable:
    return StoreUnavailable(
        f"cannot reach Postgres at {describe(dsn)}: {str(exc).strip() or type(exc).__name__}; "
        "check that the server is running and GROUNDSEARCH_DATABASE_URL is right",
        details={"server": describe(dsn)},
    )


@contextmanager
def connect_once(dsn: str) -> Iterator[psycopg.Connection]:
    """One autocommit connection (for migrations and checks), retried on transient failures."""
    try:
        for attempt in retrying():
            with attempt:
                conn = psycopg.connect(dsn, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
    except psycopg.OperationalError as exc:
        raise unavailable(dsn, exc) from exc
    with conn:
        yield conn


def in_transaction(pool: Any, dsn: str, work: Callable[[psycopg.Connection], T]) -> T:
    """Run ``work`` in one transaction on a connection of ``pool`` (a ``psycopg_pool.ConnectionPool``), retrying
    the whole of it on a transient failure; other database errors become ``StoreError`` with their SQLSTATE."""
    from psycopg_pool import PoolTimeout

    try:
        for attempt in retrying():
            with attempt:
                with pool.connection(timeout=15) as conn:
                    with conn.transaction():
                        return work(conn)
    except psycopg.Error as exc:
        if is_transient(exc):
            raise unavailable(dsn, exc) from exc
        primary = exc.diag.message_primary or str(exc)
        raise StoreError(f"Postgres rejected the operation: {primary}", details={"sqlstate": exc.sqlstate}) from exc
    except PoolTimeout as exc:
        raise unavailable(dsn, exc) from exc
    raise AssertionError("unreachable")  # pragma: no cover
