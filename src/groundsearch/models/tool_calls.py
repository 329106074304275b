"""OpenAI tool calling, as pure codecs: messages to wire dicts, and tool calls back out of an answer.

Servers differ in one way that matters. OpenAI, Groq and vLLM return ``message.tool_calls``. llama-cpp-python's
server does so only when ``tool_choice`` names one function (it then constrains the arguments by grammar);
with ``"auto"`` and the model's own chat template (Qwen2.5: Hermes-style ``<tool_call>{…}</tool_call>``) the call
arrives as *text* in ``content`` — measured on the bundled 0.5B model, sometimes without the tags, sometimes
several bare objects in a row. So tagged calls, or a content that is nothing but ``{"name", "arguments"}``
objects, are read as calls (to offered tools only); any other text stays text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from .base import ChatMessage, ToolCall

__all__ = ["calls_from_message", "message_dict"]

_TAGGED = re.compile(r"<tool_call>\s*(\{.*?\})\s*</tool_call>", re.DOTALL)


def message_dict(m: ChatMessage) -> dict[str, Any]:
    out: dict[str, Any] = {"role": m.role, "content": m.content}
    if m.tool_calls:
        out["tool_calls"] = [{"id": c.id, "type": "function",
                              "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
                             for c in m.tool_calls]
    if m.tool_call_id is not None:
        out["tool_call_id"] = m.tool_call_id
    return out


def _arguments(raw: Any) -> dict[str, Any] | None:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            value = json.loads(raw or "{}")
        except (json.JSONDecodeError, RecursionError):  # nesting past the parser depth is no call
            return None
        return value if isinstance(value, dict) else None
    return None


def calls_from_message(message: dict[str, Any], offered: Sequence[str]) -> tuple[tuple[ToolCall, ...], str]:
    """``(tool calls, remaining text)`` of one response message; calls to tools not ``offered`` are ignored."""
    calls: list[ToolCall] = []
    for i, raw in enumerate(message.get("tool_calls") or ()):
        fn = (raw or {}).get("function") or {}
        args = _arguments(fn.get("arguments"))
        if fn.get("name") in offered and args is not None:
            calls.append(ToolCall(id=str(raw.get("id") or f"call_{i}"), name=fn["name"], arguments=args))
    text = message.get("content") or ""
    if calls or not offered or not text.strip():
        return tuple(calls), text
    bodies = _TAGGED.findall(text)
    rest = _TAGGED.sub("", text).strip()
    values: list[Any] = []
    for body in bodies:
        try:
            values.append(json.loads(body))
        except (json.JSONDecodeError, RecursionError):  # nesting past the parser depth is no call
            continue
    if not bodies:
        values, rest = _objects(text.strip().removeprefix("```json").removeprefix("```").removesuffix("```")), ""
    for i, value in enumerate(values):
        args = _arguments(value.get("arguments", value.get("parameters"))) if isinstance(value, dict) else None
        if isinstance(value, dict) and value.get("name") in offered and args is not None:
            calls.append(ToolCall(id=f"call_{i}", name=value["name"], arguments=args))
    return (tuple(calls), rest) if calls else ((), text)


def _objects(text: str) -> list[Any]:
    """The JSON objects ``text`` consists of (separated by whitespace or commas), or ``[]`` when it holds
    anything else — the 0.5B model writes several calls in a row as bare objects."""
    decoder, found, i = json.JSONDecoder(), [], 0
    while True:
        while i < len(text) and text[i] in " \t\r\n,":
            i += 1
        if i >= len(text):
            return found
        if text[i] != "{":
            return []
        try:
            value, i = decoder.raw_decode(text, i)
        except (json.JSONDecodeError, RecursionError):  # nesting past the parser depth is no call
            return []
        if not isinstance(value, dict) or "name" not in value:
            return []
        found.append(value)
