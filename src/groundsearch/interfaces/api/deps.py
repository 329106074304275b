"""Per-app state and the request dependencies: who is calling, may they, and have they budget left."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from fastapi import Request

from ...engine import Engine
from ...scope import caller_scope
from ...settings import Settings
from .auth import LOCAL_PRINCIPAL, KeyStore, Principal, Role
from .ratelimit import Bucket, RateLimiter

__all__ = ["ApiState", "principal", "requires", "state"]


@dataclass(frozen=True, slots=True)
class ApiState:
    """Everything a handler needs, held by the app instance (``app.state.gs``), never by the module."""

    engine: Engine
    settings: Settings
    keys: KeyStore | None  # None: local mode
    limiter: RateLimiter


def state(request: Request) -> ApiState:
    return request.app.state.gs


def _presented_key(request: Request) -> str | None:
    auth = request.headers.get("authorization", "")
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip()
    return request.headers.get("x-api-key")


def principal(request: Request) -> Principal:
    s = state(request)
    if s.keys is None:
        return LOCAL_PRINCIPAL
    return s.keys.authenticate(_presented_key(request))


def requires(role: Role, bucket: Bucket | None = None) -> Callable[[Request], Principal]:
    """A dependency: authenticate, check ``role``, and count the request against ``bucket`` if given.

    In local mode the rate-limit key is the client address, so a runaway script still cannot starve the page.
    With keys, the tenant's budget is counted too: its admin mints and rotates keys at will.
    """

    def dependency(request: Request) -> Principal:
        who = principal(request)
        who.require(role)
        if bucket is not None:
            if state(request).keys is not None:
                state(request).limiter.check(bucket, who.key_id, caller_scope(who.tenant))
            else:
                state(request).limiter.check(bucket, f"local:{_client(request)}")
        return who

    dependency.__name__ = f"requires_{role}" + (f"_{bucket}" if bucket else "")
    return dependency


def _client(request: Request) -> str:
    return request.client.host if request.client else "unknown"
