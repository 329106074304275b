"""Per-app state and the request dependencies: who is calling, may they, and have they budget left.

Those checks run before the request's body is read (:class:`AdmittedRoute`): FastAPI reads and parses a route's
body before it solves the route's dependencies, so with the checks as plain dependencies an anonymous client, a
forged key, a viewer or an editor over its budget each had the server read a whole upload (32 MiB, spooled to
disk) before the 401/403/429 (tests/security/test_upload_admission.py).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.routing import APIRoute

from ...engine import Engine
from ...scope import caller_scope
from ...settings import Settings
from .auth import LOCAL_PRINCIPAL, KeyStore, Principal, Role
from .ratelimit import Bucket, RateLimiter, text_units

__all__ = ["AdmittedRoute", "ApiState", "Requirement", "api_router", "principal", "requires", "spend_text", "state"]

_ADMITTED = "gs_admitted"  # scope["state"] entry: (the requirement checked, its principal)


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


class Requirement:
    """A dependency: authenticate, check ``role``, and count the request against ``bucket`` if given.

    In local mode the rate-limit key is the client address, so a runaway script still cannot starve the page.
    With keys, the tenant's budget is counted too: its admin mints and rotates keys at will. On an
    :class:`AdmittedRoute` the check has already run, before the body was read, and is not counted twice.
    """

    def __init__(self, role: Role, bucket: Bucket | None) -> None:
        self.role, self.bucket = role, bucket

    def admit(self, request: Request) -> Principal:
        who = principal(request)
        who.require(self.role)
        if self.bucket is not None:
            _spend(request, who, self.bucket, 1)
        request.scope.setdefault("state", {})[_ADMITTED] = (self, who)
        return who

    def __call__(self, request: Request) -> Principal:
        admitted = request.scope.get("state", {}).get(_ADMITTED)
        if admitted is not None and admitted[0] is self:
            return admitted[1]
        return self.admit(request)

    def __repr__(self) -> str:
        return f"requires({self.role!r}" + (f", {self.bucket!r})" if self.bucket else ")")


def _spend(request: Request, who: Principal, bucket: Bucket, cost: int) -> None:
    if state(request).keys is not None:
        state(request).limiter.check(bucket, who.key_id, caller_scope(who.tenant), cost)
    else:
        state(request).limiter.check(bucket, f"local:{_client(request)}", cost=cost)


def spend_text(request: Request, who: Principal, text: str) -> None:
    """Charge the search budget for the length of ``text`` (``ratelimit.text_units``), past the one unit admission
    spent: called once the body is parsed, before any work. A long query is a request's worth of CPU many times
    over, so counted as one it let a key burn many times the CPU its budget meant."""
    extra = text_units(text) - 1
    if extra > 0:
        _spend(request, who, "search", extra)


def requires(role: Role, bucket: Bucket | None = None) -> Requirement:
    return Requirement(role, bucket)


class AdmittedRoute(APIRoute):
    """A route whose :class:`Requirement` runs before FastAPI reads the body: a request refused for its key, role
    or budget is answered with the body unread (the body limit then counts what is read, as it streams)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        gates = [d.call for d in self.dependant.dependencies if isinstance(d.call, Requirement)]
        if not gates:
            return handler
        gate = gates[0]

        async def admitted(request: Request) -> Response:
            await run_in_threadpool(gate.admit, request)  # the keys file and Redis are blocking I/O
            return await handler(request)

        return admitted


def api_router(**options: Any) -> APIRouter:
    """The router every ``/api`` module uses: its routes are :class:`AdmittedRoute` s."""
    return APIRouter(prefix="/api", route_class=AdmittedRoute, **options)


def _client(request: Request) -> str:
    return request.client.host if request.client else "unknown"
