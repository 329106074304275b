"""Tier 3: an LLM fills the Intent under a strict JSON Schema, and its reply is validated before use.

Failure policy, per model of the fallback chain: one retry on any failure (invalid output, timeout,
HTTP error), then the next model. A model that fails ``breaker_failures`` requests in a row is skipped for
``breaker_cooldown_s`` (circuit breaker), so an outage costs one timeout per cooldown, not one per request.
When every model fails, :meth:`LLMTier.classify` returns no intent and says why; it never raises.

Prompt-injection hardening: the system prompt is a fixed file; the request goes only into the user
message, between ``<request>`` tags with angle brackets neutralised so it cannot close the tag; and
the output is bounded by the schema, so no instruction in the request can add keys or change the shape.
"""

from __future__ import annotations

import logging
import string
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ...errors import LLMError
from ...models.base import LLM, ChatMessage
from ...models.llm import TokenBudget
from ...types import Intent
from .schema import intent_json_schema, parse_intent_output

__all__ = ["CircuitBreaker", "LLMOutcome", "LLMTier", "intent_messages"]

log = logging.getLogger(__name__)

# Three consecutive failed requests is past bad luck (one retry each already absorbed transient errors).
BREAKER_FAILURES = 3
# Long enough that a dead endpoint costs one timeout per half-minute, short enough to notice recovery.
BREAKER_COOLDOWN_S = 30.0


@dataclass
class CircuitBreaker:
    """Consecutive-failure breaker with a cooldown; the clock is injectable for tests."""

    failures_to_open: int = BREAKER_FAILURES
    cooldown_s: float = BREAKER_COOLDOWN_S
    clock: Callable[[], float] = time.monotonic
    failures: int = 0
    opened_at: float | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def allow(self) -> bool:
        with self._lock:
            if self.opened_at is None:
                return True
            if self.clock() - self.opened_at >= self.cooldown_s:
                # Half-open: let one request probe; a failure re-opens at once.
                self.opened_at = None
                self.failures = self.failures_to_open - 1
                return True
            return False

    def success(self) -> None:
        with self._lock:
            self.failures = 0
            self.opened_at = None

    def failure(self) -> None:
        with self._lock:
            self.failures += 1
            if self.failures >= self.failures_to_open:
                self.opened_at = self.clock()


@dataclass(frozen=True, slots=True)
class LLMOutcome:
    intent: Intent | None
    model: str | None
    degraded: tuple[str, ...] = ()
    attempts: int = 0


def intent_messages(prompt: str, query: str, domains: Sequence[str]) -> list[ChatMessage]:
    """System prompt from the versioned file; the request only as delimited user content."""
    system = string.Template(prompt).safe_substitute(domains=", ".join(domains))
    fenced = query.replace("<", "‹").replace(">", "›")
    return [
        ChatMessage(role="system", content=system),
        ChatMessage(role="user", content=f"<request>\n{fenced}\n</request>"),
    ]


class LLMTier:
    def __init__(
        self,
        models: Sequence[LLM],
        domains: Sequence[str],
        prompt: str,
        *,
        max_tokens: int = 512,
        request_token_budget: int = 4000,
        breaker_failures: int = BREAKER_FAILURES,
        breaker_cooldown_s: float = BREAKER_COOLDOWN_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.models = tuple(models)
        self.domains = tuple(domains)
        self.schema = intent_json_schema(self.domains)
        self.prompt = prompt
        self.max_tokens = max_tokens
        self.request_token_budget = request_token_budget
        self.breakers = {
            id(m): CircuitBreaker(breaker_failures, breaker_cooldown_s, clock) for m in self.models
        }

    def classify(self, query: str) -> LLMOutcome:
        messages = intent_messages(self.prompt, query, self.domains)
        budget = TokenBudget(self.request_token_budget)
        notes: list[str] = []
        attempts = 0
        for model in self.models:
            breaker = self.breakers[id(model)]
            if not breaker.allow():
                notes.append(f"llm {model.name}: circuit open after repeated failures; skipped")
                continue
            errors: list[str] = []
            for _ in range(2):  # the call and one retry
                attempts += 1
                try:
                    completion = model.complete(
                        messages, max_tokens=budget.allow(self.max_tokens), json_schema=self.schema, temperature=0.0
                    )
                    budget.charge(completion)
                    intent = parse_intent_output(
                        completion.text, domains=self.domains, finish_reason=completion.finish_reason,
                        model=model.name,
                    )
                except LLMError as exc:
                    if exc.details.get("kind") == "budget":
                        notes.append(f"llm: {exc.message}")
                        return LLMOutcome(None, None, tuple(notes), attempts)
                    errors.append(exc.message)
                    log.info("intent llm attempt failed: %s", exc.message)
                    continue
                breaker.success()
                return LLMOutcome(intent, model.name, tuple(notes), attempts)
            breaker.failure()
            notes.append(f"llm {model.name}: failed twice ({errors[-1]})")
        if not self.models:
            notes.append("llm: no model configured")
        return LLMOutcome(None, None, tuple(notes), attempts)
