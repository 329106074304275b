"""Fakes that implement the model protocols, for logic tests. They make no claim about quality or speed."""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from ..store.text import analyze
from .base import ChatMessage, Completion

__all__ = ["HashEmbedder", "ScriptedLLM"]


class HashEmbedder:
    """Deterministic bag-of-terms vectors: each analysed term adds a pseudo-random unit direction.

    Texts sharing terms get positive cosine, identical texts get cosine 1, so ranking logic can be
    tested without a real model.
    """

    def __init__(self, dim: int = 64) -> None:
        self.dim = dim
        self.model_id = f"hash-{dim}"

    def _term_vector(self, term: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.blake2b(term.encode(), digest_size=8).digest(), "little")
        return np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for term in analyze(text) or ["\x00empty"]:
                out[i] += self._term_vector(term)
            norm = np.linalg.norm(out[i])
            if norm > 0:
                out[i] /= norm
        return out

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts)


class ScriptedLLM:
    """Answers from a script: a list of responses (consumed in order) or a function of the messages.

    A response may be a string (returned as the completion text), a ``Completion`` (returned as is: tool calls),
    or an exception instance (raised), so tests can drive timeouts and invalid output through the real code paths.
    ``stream`` hands the same response over word by word (``token_delay`` seconds apart), then the completion.
    """

    def __init__(
        self,
        script: Sequence[str | Completion | BaseException] | Callable[[Sequence[ChatMessage]], str | Completion],
        *,
        name: str = "scripted",
        finish_reason: str = "stop",
        token_delay: float = 0.0,
    ) -> None:
        self.name = name
        self.token_delay = token_delay
        self._script = script if callable(script) else list(script)
        self._finish_reason = finish_reason
        self.calls: list[dict[str, Any]] = []

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        json_schema: dict[str, Any] | None = None,
        temperature: float = 0.0,
        tools: Sequence[dict[str, Any]] | None = None,
        tool_choice: str | dict[str, Any] | None = None,
    ) -> Completion:
        self.calls.append({"messages": list(messages), "max_tokens": max_tokens, "json_schema": json_schema,
                           "tools": list(tools or ()), "tool_choice": tool_choice})
        if callable(self._script):
            reply: str | Completion | BaseException = self._script(messages)
        else:
            if not self._script:
                raise AssertionError("ScriptedLLM ran out of scripted replies")
            reply = self._script.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, Completion):
            return reply
        return Completion(text=reply, model=self.name, finish_reason=self._finish_reason)

    def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        temperature: float = 0.0,
        tools: Sequence[dict[str, Any]] | None = None,
        tool_choice: str | dict[str, Any] | None = None,
    ) -> Iterator[str | Completion]:
        completion = self.complete(messages, max_tokens=max_tokens, tools=tools, tool_choice=tool_choice)
        self.calls[-1]["stream"] = True
        for piece in re.findall(r"\S+\s*|\s+", completion.text):
            if self.token_delay:
                time.sleep(self.token_delay)
            yield piece
        yield completion
