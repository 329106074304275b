"""``POST /api/validate-urls``: the auditor's link-health check (L4) for a client's own list of links."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from ...scope import caller_scope
from .auth import Principal
from .deps import api_router, requires, state

__all__ = ["MAX_URLS", "router"]

router = api_router()

MAX_URLS = 20  # each may cost one 3 s timeout; the checks run in parallel, so one request stays bounded


Url = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2048)]


class ValidateUrlsIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    urls: list[Url] = Field(min_length=1, max_length=MAX_URLS, description=f"1–{MAX_URLS} http(s) addresses")


class UrlStatusOut(BaseModel):
    url: str
    healthy: bool
    status: int | None = Field(description="final HTTP status after redirects; null: no response")
    final_url: str | None = None
    reason: str = Field(description="why it is not healthy (HTTP 404, a timeout, refused: a private address)")
    cached: bool = Field(description="answered from the 24 h cache; no request was sent")


class ValidateUrlsOut(BaseModel):
    checked: bool = Field(description="false: link health is switched off here (e.g. no outside network)")
    state: str
    results: list[UrlStatusOut]


@router.post("/validate-urls", response_model=ValidateUrlsOut, tags=["search"])
async def validate_urls(request: Request, body: ValidateUrlsIn,
                        who: Principal = Depends(requires("viewer", "search"))) -> ValidateUrlsOut:
    """Is each link alive? HEAD (GET when refused), 3 s timeout, redirects followed, cached 24 h. Private and
    loopback addresses are refused unless the deployment allows them (`auditor.url_allow_private`)."""
    health = state(request).engine.url_health(caller_scope(who.tenant))
    if not health.enabled:
        return ValidateUrlsOut(checked=False, state=health.state, results=[])
    urls = body.urls
    found = await run_in_threadpool(health.check_many, urls)
    return ValidateUrlsOut(checked=True, state=health.state,
                           results=[UrlStatusOut(**found[u].as_dict()) for u in dict.fromkeys(urls)])
