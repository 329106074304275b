"""A chat reply while the model writes it: which of its text a reader may see now, and the loop that forwards it
as ``token`` events and audits each paragraph the moment it is complete.

What is shown as it arrives is provisional — the page marks it so — and an ``audit`` event settles each paragraph
(``{paragraph, text, replaced, …}``): kept as streamed, or replaced by its audited form. A paragraph that needs a
corrective reroll is settled after the model finishes, because the reroll needs the model and the model is busy
writing (llama.cpp serves one request at a time; the in-process model is one context). The ``reply`` event then
carries the whole audited reply, so nothing unaudited is ever the final word.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from typing import Any

from ..models.base import Completion
from ..models.metering import Meter, metered
from ..types import Event
from .audit_adapter import ParagraphAuditor
from .guard import WITHHELD_SOURCE

__all__ = ["JSON_OPENERS", "Streamed", "paragraphs", "stream_reply", "visible"]

_PARAGRAPH = re.compile(r"\n\s*\n")
# Text the reader must never see mid-stream: a tool call the model writes as text (Hermes tags, or a bare JSON
# object — the bundled 0.5B model does both) and the tool message's withheld-text marker it tends to copy.
_TOOL_TAG = "<tool_call>"
_HELD_TAILS = (_TOOL_TAG, WITHHELD_SOURCE)
JSON_OPENERS = ("{", "```json")  # a final reply opening so is no reply (assistant/turn.py)
_FENCES = ("```json", "```")  # the fences models/tool_calls strips before reading bare objects, in its order


def _may_be_call(text: str) -> bool:
    """Whether ``text`` (the reply so far, stripped on the left) is, or may still become, what the tool-call
    reader takes for bare call objects: ``{`` first, alone or inside a fence — ``` or ```json — exactly as
    ``models.tool_calls`` reads them (a bare fence too: holding only ```json streamed such a call as tokens)."""
    if _FENCES[0].startswith(text):
        return True  # empty, or a prefix of a fence
    body = text
    for fence in _FENCES:
        body = body.removeprefix(fence)
    body = body.lstrip()
    return body.startswith("{") or (body == "" and text.startswith("```"))


def visible(raw: str) -> str:
    """The part of the model's text so far that may be shown. Monotone as ``raw`` grows: a tail that could still
    become a tool tag or the withheld marker is held back until it is clearly something else."""
    text = raw.lstrip()
    if _may_be_call(text):
        return ""  # the reply is (or may be) a tool call written as JSON: nothing to read until parsed
    cut = text.find(_TOOL_TAG)
    if cut >= 0:
        text = text[:cut]
    text = text.replace(WITHHELD_SOURCE, "")
    hold = max((k for tail in _HELD_TAILS for k in range(1, len(tail)) if text.endswith(tail[:k])), default=0)
    return text[:len(text) - hold]


def paragraphs(text: str) -> list[str]:
    """Non-empty paragraphs (split at blank lines, as the page splits them, so indices agree)."""
    return [p.strip() for p in _PARAGRAPH.split(text) if p.strip()]


@dataclass
class Streamed:
    completion: Completion | None  # None: the guard stopped the stream
    raw: str  # everything the model wrote
    first_token_at: float | None  # perf_counter() of the first token event
    stopped: bool  # the guard stopped it: the text repeats something it must not


def stream_reply(stream: Iterator[str | Completion], *, meter: Meter | None, auditor: ParagraphAuditor,
                 stop: Callable[[str], bool]) -> Generator[Event, None, Streamed]:
    """Forward ``stream`` (``StreamingLLM.stream``) as ``token`` events, auditing each complete paragraph.

    ``stop(text)`` is the information guard on what has been shown so far: once true, nothing more is shown
    and decoding is stopped. Each pull runs in its own metering block: a generator's next step may run in
    another thread's context (models/metering.py)."""
    raw, sent, first = "", "", None
    completion: Completion | None = None
    checked = 0
    try:
        while True:
            with metered(meter, "chat"):
                item: Any = next(stream, None)
            if item is None:
                break
            if isinstance(item, Completion):
                completion = item
                break
            raw += item
            now = visible(raw)
            if stop(now):
                return Streamed(None, raw, first, True)
            if len(now) > len(sent) and now.startswith(sent):
                first = first or time.perf_counter()
                yield Event("token", {"text": now[len(sent):]})
                sent = now
            done = paragraphs("\n\n".join(_PARAGRAPH.split(sent)[:-1]))  # the last piece is still being written
            while checked < len(done):
                payload = auditor.check(checked, done[checked])
                if payload is not None:
                    yield Event("audit", payload)
                checked += 1
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()
    return Streamed(completion, raw, first, False)
