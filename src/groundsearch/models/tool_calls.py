"""OpenAI tool calling, as pure codecs: messages to wire dicts, and tool calls back out of an answer.

Servers differ in one way that matters. OpenAI, Groq and vLLM return ``message.tool_calls``. llama-cpp-python's
server does so only when ``tool_choice`` names one function (it then constrains the arguments by grammar);
with ``"auto"`` and the model's own chat template (Qwen2.5: Hermes-style ``<tool_call>{…}</tool_call>``) the call
arrives as *text* in ``content`` — measured on the bundled 0.5B model, sometimes without the tags. So a
content that is exactly one call (tagged or a bare ``{"name", "arguments"}`` object) of an offered tool is read
as that call; any other text stays text.
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
        except json.JSONDecodeError:
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
    if not bodies:
        stripped = text.strip().removeprefix("```json").removeprefix("```").removesuffix("```").strip()
        if stripped.startswith("{") and stripped.endswith("}"):
            bodies, rest = [stripped], ""
    for i, body in enumerate(bodies):
        try:
            value = json.loads(body)
        except json.JSONDecodeError:
            continue
        args = _arguments(value.get("arguments", value.get("parameters"))) if isinstance(value, dict) else None
        if isinstance(value, dict) and value.get("name") in offered and args is not None:
            calls.append(ToolCall(id=f"call_{i}", name=value["name"], arguments=args))
    return (tuple(calls), rest) if calls else ((), text)
