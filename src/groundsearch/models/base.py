"""Model protocols. All model I/O sits behind these; fakes implement them for logic tests."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np

__all__ = ["ChatMessage", "Completion", "Embedder", "LLM", "Reranker", "StreamingLLM", "ToolCall"]


@runtime_checkable
class Embedder(Protocol):
    """Text → L2-normalised float32 vectors of a fixed dimension.

    ``model_id`` names the model *and its file hashes*, so caches keyed by it (prototype embeddings,
    stored vectors) are invalidated when the weights change.
    """

    dim: int
    model_id: str

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray: ...


@runtime_checkable
class Reranker(Protocol):
    def rerank(self, query: str, passages: Sequence[str]) -> list[float]: ...


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One OpenAI-style function call: ``arguments`` already parsed from the JSON the model wrote."""

    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ChatMessage:
    role: Literal["system", "user", "assistant", "tool"]
    content: str
    tool_calls: tuple[ToolCall, ...] = ()  # an assistant message that called tools
    tool_call_id: str | None = None  # a tool message: the call it answers


@dataclass(frozen=True, slots=True)
class Completion:
    text: str
    model: str
    finish_reason: str | None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tool_calls: tuple[ToolCall, ...] = ()


@runtime_checkable
class LLM(Protocol):
    """A chat model. ``json_schema`` asks for output constrained to that schema, in the endpoint's dialect.

    ``tools`` (OpenAI function-tool definitions) and ``tool_choice`` are optional: only the assistant passes
    them, and a provider that cannot call tools may leave them out of its signature."""

    name: str

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        json_schema: dict[str, Any] | None = None,
        temperature: float = 0.0,
        tools: Sequence[dict[str, Any]] | None = None,
        tool_choice: str | dict[str, Any] | None = None,
    ) -> Completion: ...


@runtime_checkable
class StreamingLLM(Protocol):
    """A chat model that can hand its answer over while it is written (what the chat turn streams to the page).

    ``stream`` takes ``complete``'s arguments and yields the answer's text as it arrives (``str`` pieces), then,
    last, the whole :class:`Completion` — tool calls and usage included, exactly what ``complete`` would have
    returned — so a caller never parses a half-written tool call. Closing the iterator early stops decoding."""

    name: str

    def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        temperature: float = 0.0,
        tools: Sequence[dict[str, Any]] | None = None,
        tool_choice: str | dict[str, Any] | None = None,
    ) -> Iterator[str | Completion]: ...
