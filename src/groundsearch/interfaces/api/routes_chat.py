"""The grounded assistant over HTTP: ``POST /api/chat`` (JSON, or SSE with ``?stream=true``),
``GET /api/chat/{id}`` (history) and ``DELETE /api/chat/{id}``. Thin calls into ``assistant/turn.py``.

Keys, roles and tenancy are exactly search's: a viewer may chat, a turn counts against the search rate
limit, retrieval sees what the caller's search would see, and the conversation is stored under the caller's
own tenant and key — so another tenant's or another key's conversation id answers 404, indistinguishable from an
unknown one (operator keys share the reserved scope: ``Principal.owner``).
"""

from __future__ import annotations

import time
from typing import Annotated, Any

from fastapi import Depends, Request, Response
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, ConfigDict, Field, StringConstraints
from sse_starlette import EventSourceResponse

from ...assistant.turn import fold_chat, forget, history, run_turn
from ...scope import caller_scope
from ...types import MAX_QUERY_CHARS
from .auth import Principal
from .deps import api_router, requires, spend_text, state
from .sse import first_event, sse_events, stream_responses

__all__ = ["router"]

router = api_router(tags=["chat"])


# not trimmed like the rest of the body: an id is matched exactly, so " abc" never continues "abc"
_ConversationId = Annotated[str, StringConstraints(strip_whitespace=False, pattern=r"^[A-Za-z0-9_-]{1,64}$")]


class ChatBody(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True)

    message: str = Field(min_length=1, max_length=MAX_QUERY_CHARS, description="what the user says this turn")
    conversation_id: _ConversationId | None = Field(
        default=None, description="continue this conversation; omitted: start a new one")
    assistant: str | None = Field(default=None, max_length=64,
                                  description="which configured assistant starts a new conversation")


def _turn(engine: Any, body: ChatBody, who: Principal) -> Any:
    return run_turn(engine, body.message, conversation_id=body.conversation_id, tenant=caller_scope(who.tenant),
                    owner=who.owner, search_tenant=who.tenant, assistant=body.assistant)


_CHAT_RESPONSES = stream_responses(
    "The turn as JSON, or with `stream=true` a `text/event-stream`: the dossier's search stages, then `dossier`; "
    "with a streaming model `token` events as it writes and one `audit {paragraph, text, replaced}` per paragraph "
    "as each is complete and audited; `discovery`, `handoff`, `reply` (the whole audited reply and its `audit`) "
    "and `complete {conversation_id}`. Offline: one whole-reply `audit`.")


@router.post("/chat", responses=_CHAT_RESPONSES)
async def chat(request: Request, body: ChatBody, stream: bool = False,
               who: Principal = Depends(requires("viewer", "search"))) -> Any:
    """One turn: dossier, reply (LLM with tools, or offline), audit, persisted. `?stream=true`: SSE with the
    search stages, then `dossier`, `token`s and per-paragraph `audit`s (streaming model), `discovery`,
    `handoff`, `reply`, `complete {conversation_id}`."""
    await run_in_threadpool(spend_text, request, who, body.message)  # Redis is blocking I/O
    engine = state(request).engine
    if not stream:
        return await run_in_threadpool(lambda: fold_chat(_turn(engine, body, who)))
    started = time.perf_counter()
    events = _turn(engine, body, who)
    first = await first_event(events)
    return EventSourceResponse(sse_events(events, first, started, getattr(request.state, "request_id", "-")), ping=15)


@router.get("/chat/{conversation_id}")
def chat_history(request: Request, conversation_id: str,
                 who: Principal = Depends(requires("viewer", "preview"))) -> Any:
    """The stored turns (bounded by `chat.keep_turns`) with their dossiers and audit traces; a source the caller
    may no longer read (deleted, or a draft to a viewer) is marked `withdrawn` and its text and sentences redacted."""
    return history(state(request).engine, conversation_id, tenant=caller_scope(who.tenant),
                   owner=who.owner, drafts=who.has("editor"))


@router.delete("/chat/{conversation_id}", status_code=204)
def chat_delete(request: Request, conversation_id: str,
                who: Principal = Depends(requires("viewer", "preview"))) -> Response:
    """Remove the conversation and every trace of it (turns, signals, dossiers, audit traces)."""
    forget(state(request).engine, conversation_id, tenant=caller_scope(who.tenant), owner=who.owner)
    return Response(status_code=204)
