"""Search, streaming search, typeahead, suggestions, health and cache: thin calls into ``Engine``."""

from __future__ import annotations

import time
from typing import Annotated, Any

from fastapi import Depends, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError
from sse_starlette import EventSourceResponse

from ...errors import Forbidden, GroundsearchError
from ...types import MAX_QUERY_CHARS, Profile, SearchResponse
from .auth import Principal
from .deps import api_router, principal, requires, spend_text, state
from .models import PREVIEW_MAX, CacheClearOut, HealthOut, PreviewItem, PreviewOut, SearchBody, SuggestionsOut, clamp
from .sse import first_event, sse_events, stream_responses

__all__ = ["router"]

router = api_router()

_SEARCH_RESPONSES = stream_responses(
    "The search response as JSON, or with `stream=true` a `text/event-stream` of stage events "
    "(`intent`, `plan`, `keyword`, `vector`, `results`, `table`, `chart`, `timeline`, `graph`, "
    "`unsupported-format`, `low-confidence`, `prose`, `error`) ending with `complete {total_latency_ms}`.")
StreamFlag = Annotated[bool, Query(description="answer with Server-Sent Events instead of JSON")]


async def _run(request: Request, body: SearchBody, who: Principal, stream: bool) -> Any:
    who.read_filter(include_drafts=body.include_drafts)  # drafts need the editor role: 403 before any work
    await run_in_threadpool(spend_text, request, who, body.query)  # Redis is blocking I/O
    engine = state(request).engine
    if not stream:
        return await run_in_threadpool(engine.search, body, tenant=who.tenant)
    started = time.perf_counter()
    events = engine.stream(body, tenant=who.tenant)
    first = await first_event(events)
    return EventSourceResponse(sse_events(events, first, started, getattr(request.state, "request_id", "-")),
                               ping=15)


@router.post("/search", response_model=SearchResponse, responses=_SEARCH_RESPONSES, tags=["search"])
async def search(request: Request, body: SearchBody, stream: StreamFlag = False,
                 who: Principal = Depends(requires("viewer", "search"))) -> Any:
    """Search: intent, prose with citations, structured results and evidence. `?stream=true` for SSE."""
    return await _run(request, body, who, stream)


@router.post("/intelligent-search", response_model=SearchResponse, responses=_SEARCH_RESPONSES, tags=["search"])
async def intelligent_search(request: Request, body: SearchBody, stream: StreamFlag = False,
                             who: Principal = Depends(requires("viewer", "search"))) -> Any:
    """The same handler as `POST /api/search` (kept for clients of the older name): same body, same response."""
    return await _run(request, body, who, stream)


@router.get("/search", response_model=SearchResponse, responses=_SEARCH_RESPONSES, tags=["search"])
async def search_get(
    request: Request,
    q: Annotated[str, Query(max_length=MAX_QUERY_CHARS, description="the query")],
    stream: StreamFlag = False,
    limit: int = 20,
    offset: Annotated[int, Query(ge=0, le=10_000)] = 0,
    collection: Annotated[list[str] | None, Query(description="restrict to collections (repeatable)")] = None,
    profile: Profile = "rrf",
    who: Principal = Depends(requires("viewer", "search")),
) -> Any:
    """`POST /api/search` as a GET with query parameters, so an `EventSource` can open the stream."""
    try:
        body = SearchBody(query=q, limit=limit, offset=offset, collections=collection or None, profile=profile)
    except ValidationError as exc:
        raise RequestValidationError([_as_query_error(e) for e in exc.errors(include_url=False)]) from exc
    return await _run(request, body, who, stream)


def _as_query_error(error: Any) -> Any:
    """Report a body-model error against the query parameter the GET form uses (``query`` is sent as ``q``)."""
    names = {"query": "q", "collections": "collection"}
    field = str(error["loc"][0]) if error.get("loc") else "q"
    return {**error, "loc": ("query", names.get(field, field))}


@router.get("/search/preview", response_model=PreviewOut, tags=["search"])
def preview(
    request: Request,
    q: Annotated[str, Query(max_length=MAX_QUERY_CHARS, description="what the user has typed so far")] = "",
    limit: Annotated[int, Query(description="clamped to 1–20")] = 8,
    who: Principal = Depends(requires("viewer", "preview")),
) -> PreviewOut:
    """Cheap lexical typeahead on titles (no embedding): title matches first. Wildcards in `q` are literal."""
    hits = state(request).engine.preview(q, limit=clamp(limit, 1, PREVIEW_MAX), tenant=who.tenant)
    return PreviewOut(query=q, items=[PreviewItem(item_id=h.item_id, collection=h.collection, title=h.title,
                                                  url=h.url, title_match=h.title_match) for h in hits])


@router.get("/search/suggestions", response_model=SuggestionsOut, tags=["search"])
def suggestions(request: Request, limit: Annotated[int, Query(description="clamped to 1–50")] = 10,
                who: Principal = Depends(requires("viewer", "preview"))) -> SuggestionsOut:
    """Popular topics: what the caller's tenant searched most in the last 30 days (query terms that are words of
    its corpus), else the entities mentioned in most of its published chunks. Fails soft: an empty list rather
    than an error, since the page works without them."""
    try:
        return SuggestionsOut(suggestions=list(state(request).engine.suggestions(clamp(limit, 1, 50),
                                                                                 who.read_filter())))
    except Exception:
        return SuggestionsOut(suggestions=[])


@router.get("/search/health", response_model=HealthOut, tags=["operations"])
def health(request: Request) -> HealthOut:
    """Liveness plus what is loaded. Open without a key so load balancers can probe it; with keys required, the
    store's counts, models and index details are for the operator key only (they span every tenant)."""
    s = state(request)
    full = s.keys is None or _is_operator(request)
    report = {**s.engine.health(counts=full), "rate_limits": s.limiter.backend,
              "auth": "local" if s.keys is None else "api-keys"}
    if not full:
        # every tenant's item and chunk counts, drafts included, moved as anyone uploaded: liveness only
        report = {"status": report["status"], "auth": report["auth"], "rate_limits": report["rate_limits"],
                  "indexes": {name: {k: v for k, v in index.items() if k in ("state", "search")}
                              for name, index in report.get("indexes", {}).items()}}
    return HealthOut(**report)


def _is_operator(request: Request) -> bool:
    """Whether the request carries a valid operator key; a probe without one (or with a bad one) is no error."""
    try:
        return principal(request).tenant is None
    except GroundsearchError:
        return False


@router.post("/search/cache/clear", response_model=CacheClearOut, tags=["operations"])
def cache_clear(request: Request, who: Principal = Depends(requires("admin"))) -> CacheClearOut:
    """Drop the engine's caches (intent, answers). The operator's only (an every-tenant admin key): every tenant's
    searches use them, and a tenant admin clearing in a loop made them all 5-25x slower
    (tests/security/test_cache_clear_scope.py)."""
    if who.tenant is not None:
        raise Forbidden("clearing the caches is the operator's: every tenant's searches use them",
                        details={"required": "operator"})
    return CacheClearOut(cleared=dict(state(request).engine.clear_caches()))
