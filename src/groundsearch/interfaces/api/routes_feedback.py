"""Feedback on an answer's sources: ``POST /api/feedback`` marks one as useful or not, ``DELETE`` removes it.

A mark names the request (``diagnostics.request_id``) and an item that request showed; the engine checks both
against the caller's tenant, so a mark can only be left on what that tenant was actually shown, and another
tenant's request or mark reads as not found. A mark belongs to the key that made it (owner as for conversations:
``Principal.owner``): another key of the tenant replaying its request leaves a mark of its own, and its mark
id reads as not found. Every mark of the tenant feeds the weighted profile's bounded boost.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Path, Request, Response
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, ConfigDict, Field

from ...types import MAX_ITEM_ID_CHARS

from .auth import Principal
from .deps import api_router, requires, state

__all__ = ["router"]

router = api_router()


class FeedbackIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    request_id: str = Field(min_length=1, max_length=64, description="`diagnostics.request_id` of the answer")
    item_id: str = Field(min_length=1, max_length=MAX_ITEM_ID_CHARS, description="a source (`results[].item_id`) it showed")
    useful: bool


class FeedbackOut(BaseModel):
    id: str
    request_id: str
    item_id: str
    useful: bool


@router.post("/feedback", response_model=FeedbackOut, status_code=201, tags=["feedback"])
async def add_feedback(request: Request, body: FeedbackIn,
                       who: Principal = Depends(requires("viewer", "search"))) -> FeedbackOut:
    """Mark a source of one of your answers as useful or not (marking again replaces your mark)."""
    mark = await run_in_threadpool(state(request).engine.add_feedback, body.request_id, body.item_id, body.useful,
                                   tenant=who.tenant, owner=who.owner)
    return FeedbackOut(id=mark.id, request_id=mark.request_id, item_id=mark.item_id, useful=mark.useful)


@router.delete("/feedback/{feedback_id}", status_code=204, tags=["feedback"])
async def remove_feedback(request: Request, feedback_id: Annotated[str, Path(max_length=64)],
                          who: Principal = Depends(requires("viewer", "preview"))) -> Response:
    """Remove one of your marks (404 for an unknown id, or one of another key or tenant)."""
    await run_in_threadpool(state(request).engine.remove_feedback, feedback_id, tenant=who.tenant,
                            owner=who.owner)
    return Response(status_code=204)
