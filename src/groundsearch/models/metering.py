"""Per-request LLM metering: every model call's tokens and cost, counted against one ``TokenBudget``.

The providers (``OpenAICompatLLM``, ``LlamaCppLLM``) call :func:`allow` before and :func:`charge` after each
completion, so no stage can spend tokens uncounted — intent, narration, repair, the LLM reranker, and any
later caller (chat: wrap its model calls in ``metered(meter, "chat")``). The current meter travels in a
``ContextVar`` set by :func:`metered` around one stage; a block that yields must not hold it (a generator's
next step may run in another thread's context), so the orchestrator opens one block per stage, and the
retriever copies the context into its worker threads. Outside any block (eval, the shadow tier) calls are
not metered.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from ..errors import LLMError
from .base import ChatMessage, Completion

__all__ = ["Meter", "allow", "charge", "cost_usd", "estimated_prompt_tokens", "metered", "stage"]

_CURRENT: ContextVar[tuple[Meter, str] | None] = ContextVar("groundsearch_meter", default=None)


def cost_usd(prices: Mapping[str, Any], model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """The price of one call under ``prices`` (``llm.prices``: USD per million tokens); ``None`` if unpriced."""
    price = prices.get(model)
    if price is None:
        return None
    return (prompt_tokens * price.prompt_per_mtok + completion_tokens * price.completion_per_mtok) / 1_000_000


@dataclass
class _Stage:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0


@dataclass
class Meter:
    """What one request spent on models, by stage; ``total_tokens`` is its budget across every call."""

    total_tokens: int
    prices: Mapping[str, Any] = field(default_factory=dict)
    spent: int = 0
    stages: dict[str, _Stage] = field(default_factory=dict)
    models: set[str] = field(default_factory=set)
    unpriced: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def allow(self, max_tokens: int) -> int:
        """``max_tokens`` clamped to what the request has left; ``LLMError`` (kind ``budget``) when nothing is."""
        left = self.total_tokens - self.spent
        if left <= 0:
            raise LLMError(f"request token budget of {self.total_tokens} is spent",
                           details={"kind": "budget", "spent": self.spent})
        return min(max_tokens, left)

    def charge(self, stage: str, completion: Completion) -> None:
        cost = cost_usd(self.prices, completion.model, completion.prompt_tokens, completion.completion_tokens)
        with self._lock:
            s = self.stages.setdefault(stage, _Stage())
            s.calls += 1
            s.prompt_tokens += completion.prompt_tokens
            s.completion_tokens += completion.completion_tokens
            s.cost_usd += cost or 0.0
            self.spent += completion.prompt_tokens + completion.completion_tokens
            self.models.add(completion.model)
            if cost is None:
                self.unpriced.add(completion.model)

    def usage(self) -> dict[str, Any]:
        """The diagnostics/telemetry view: per-stage calls, tokens, cost; totals; models never priced."""
        with self._lock:
            stages = {name: {"calls": s.calls, "prompt_tokens": s.prompt_tokens,
                             "completion_tokens": s.completion_tokens, "cost_usd": round(s.cost_usd, 8)}
                      for name, s in sorted(self.stages.items())}
            return {"stages": stages, "prompt_tokens": sum(s["prompt_tokens"] for s in stages.values()),
                    "completion_tokens": sum(s["completion_tokens"] for s in stages.values()),
                    "cost_usd": round(sum(s["cost_usd"] for s in stages.values()), 8),
                    "budget_tokens": self.total_tokens, "models": sorted(self.models),
                    "unpriced_models": sorted(self.unpriced)}


@contextmanager
def metered(meter: Meter | None, stage: str) -> Iterator[None]:
    """Charge model calls made inside the block to ``meter`` under ``stage`` (no-op for ``None``)."""
    if meter is None:
        yield
        return
    token = _CURRENT.set((meter, stage))
    try:
        yield
    finally:
        _CURRENT.reset(token)


@contextmanager
def stage(name: str) -> Iterator[None]:
    """Charge calls inside the block under ``name`` to whatever meter is current (none: a no-op), so a module
    deep in a stage (the retriever: HyDE, rerank) can say which step spent the tokens without holding the meter."""
    current = _CURRENT.get()
    if current is None:
        yield
        return
    token = _CURRENT.set((current[0], name))
    try:
        yield
    finally:
        _CURRENT.reset(token)


def allow(max_tokens: int) -> int:
    current = _CURRENT.get()
    return max_tokens if current is None else current[0].allow(max_tokens)


def estimated_prompt_tokens(messages: Sequence[ChatMessage]) -> int:
    """A prompt's tokens at 4 characters a token: what is charged when the server reports no usage (a streamed
    reply from llama.cpp's Python server, or a stream closed before its last chunk)."""
    return (sum(len(m.content) for m in messages) + 3) // 4


def charge(completion: Completion) -> None:
    current = _CURRENT.get()
    if current is not None:
        current[0].charge(current[1], completion)
