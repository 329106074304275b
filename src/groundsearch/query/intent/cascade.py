"""The intent cascade: rules → prototype embeddings → LLM; the first tier that clears its gate wins.

Why a cascade: most requests say what they want in plain words ("as a table", "research papers"), which
rules decide in microseconds; paraphrases fall to a nearest-prototype lookup (one embedding); only the
rest pay for an LLM. Fields the rules decided from an explicit cue are kept whichever tier answers — a
literal "as a table" outranks a model's guess, and an instruction hidden in the request cannot argue
with it. When the LLM is absent or fails, the most confident lower-tier intent is used and
``degraded`` says why; classification never raises for model trouble.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ...errors import EmbeddingFailed, InvalidInput, InvalidQuery, ModelError
from ...models.base import LLM, Embedder
from ...models.llm import load_prompt, models_of
from ...settings import Settings
from ...types import MAX_QUERY_CHARS, Hints, Intent
from .cache import IntentCache, build_intent_cache, cache_key
from .directives import TypoMemo, own_lines
from .format_model import FormatClassifier
from .format_step import FormatDecision, FormatStep
from .kind_model import KindClassifier, KindStep, OneVectorMemo
from .llm_tier import LLMTier
from .prototypes import PrototypeIndex, PrototypeMatch
from .rules import DomainVocab, RuleResult, classify_rules
from .schema import domain_names

__all__ = ["Classification", "IntentCascade", "merge_with_rules"]

log = logging.getLogger(__name__)

COMPARED_FIELDS = ("format", "chart_subtype", "domains", "complexity")
# Caller scopes whose tier-1 typo memo is kept (least recently used dropped): each holds at most
# directives.FUZZY_MEMO words, ~1 MB.
TYPO_MEMO_SCOPES = 16


@dataclass(frozen=True, slots=True)
class Classification:
    intent: Intent
    cache_hit: bool
    model: str | None
    latency_ms: dict[str, float]
    degraded: tuple[str, ...]
    format_tier: str = "cache"  # which tier decided the format: rules / classifier / llm / fallback
    format_confidence: float | None = None  # that tier's measured accuracy for this case (dev split)


def _consistent(values: dict[str, Any]) -> dict[str, Any]:
    """A chart always has a subtype (bar when unsaid); nothing else has one; the pattern follows the fields."""
    if values["format"] == "chart":
        values["chart_subtype"] = values.get("chart_subtype") or "bar"
    else:
        values["chart_subtype"] = values["chart_requested"] = None
    if values["format"] == "graph":
        values["retrieval_pattern"] = "kg"
    elif values.get("retrieval_pattern") != "kg":
        if values["comparison_targets"]:
            values["retrieval_pattern"] = "hybrid"
        else:
            values["retrieval_pattern"] = "agentic" if len(values["domains"]) >= 2 else "pipeline"
    return values


def merge_with_rules(rules: RuleResult, other: dict[str, Any], *, tier: str, confidence: float) -> Intent:
    """``other``'s fields, except those the rules decided from explicit cues (those win)."""
    values = {**rules.intent.model_dump(), **other}
    base = rules.intent
    if "format" in rules.decided:
        values["format"], values["chart_subtype"] = base.format, base.chart_subtype
    for name in ("domains", "complexity", "horizon_days", "comparison_targets"):
        if name in rules.decided:
            values[name] = getattr(base, name)
    if base.topic_keywords:
        values["topic_keywords"] = base.topic_keywords
    values.update(tier=tier, confidence=round(min(1.0, max(0.0, confidence)), 4))
    return Intent.model_validate(_consistent(values))


def _prototype_intent(rules: RuleResult, match: PrototypeMatch) -> Intent:
    proto = match.prototype
    fields = {"format": proto.format, "chart_subtype": proto.chart_subtype, "domains": match.domains,
              "complexity": proto.complexity}
    return merge_with_rules(rules, fields, tier="prototypes", confidence=match.cosine)


def _with_format(intent: Intent, decision: FormatDecision) -> Intent:
    values = intent.model_dump()
    values.update(format=decision.format, chart_subtype=decision.chart_subtype,
                  chart_requested=decision.chart_requested[:64] if decision.chart_requested else None)
    if decision.tier != "rules" and intent.tier == "rules":
        values["tier"] = "prototypes"  # tier 1 abstained on the format, so it is not the rules' answer
    return Intent.model_validate(_consistent(values))


class _SharedE5:
    """The e5 both classifiers read, built on first use: the engine's embedder when it is e5 already, else one
    one-thread e5 shared by the process (multilingual), behind one lock and a one-request memo."""

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder
        self._e5: OneVectorMemo | None = None
        self._lock = threading.Lock()

    def __call__(self) -> OneVectorMemo:
        with self._lock:
            if self._e5 is None:
                own = self._embedder.model_id.startswith("multilingual-e5")
                self._e5 = OneVectorMemo(self._embedder) if own else _own_e5()
            return self._e5

    def forget(self) -> None:
        """End the calling thread's one-request memo (if e5 was ever built)."""
        if self._e5 is not None:
            self._e5.forget()


@lru_cache(maxsize=1)
def _own_e5() -> OneVectorMemo:
    # The classifiers are asked on most requests (tier 1's override cases), so every engine of a process (tests,
    # workers) shares one copy of e5 and its lock rather than loading its own.
    from ...models.e5 import E5Embedder

    return OneVectorMemo(E5Embedder(threads=1))


class IntentCascade:
    """``classify(query, hints)`` → :class:`Classification`. Thread-safe; build one per engine."""

    def __init__(
        self,
        settings: Settings,
        embedder: Embedder,
        llm: LLM | None,
        *,
        cache: IntentCache | None = None,
        data_dir: Path | None = None,
        format_step: FormatStep | None = None,
        kind_step: KindStep | None = None,
        on_shadow: Callable[[str, str, dict[str, Any] | None], None] | None = None,
    ) -> None:
        self.settings = settings
        # Where shadow comparisons go (telemetry: query as a keyed hash); the log line never names the query.
        self.on_shadow = on_shadow
        self.domains = domain_names(settings)
        self.vocab = DomainVocab(self.domains)
        self._embedder = embedder
        self._data_dir = data_dir if data_dir is not None else settings.data_dir
        self._prototypes: PrototypeIndex | None = None
        self._proto_lock = threading.Lock()
        self._typo_memos: OrderedDict[str, TypoMemo] = OrderedDict()  # per caller scope (directives.TypoMemo)
        self._typo_lock = threading.Lock()
        self.cache = cache if cache is not None else build_intent_cache(
            settings.redis_url, settings.intent.cache_size, settings.intent.cache_ttl_s
        )
        self.llm_tier: LLMTier | None = None
        if llm is not None:
            self.llm_tier = LLMTier(
                models_of(llm), self.domains, load_prompt("intent", settings.llm.prompts_version),
                max_tokens=settings.llm.max_tokens, request_token_budget=settings.llm.request_token_budget,
            )
        self._shadow: ThreadPoolExecutor | None = None
        self._e5 = e5 = _SharedE5(embedder)
        self.format_step = format_step if format_step is not None else FormatStep(lambda: FormatClassifier(e5()))
        # a caller that brings its own format step brings its own kind step: none means the lexicon's kind stands
        self.kind_step = kind_step if kind_step is not None else KindStep(
            (lambda: KindClassifier(e5())) if format_step is None else None)

    # -- tiers ---------------------------------------------------------------------------------------

    def prototypes(self) -> PrototypeIndex:
        with self._proto_lock:
            if self._prototypes is None:
                self._prototypes = PrototypeIndex(self._embedder, data_dir=self._data_dir)
            return self._prototypes

    def _typo_memo(self, scope: str) -> TypoMemo:
        with self._typo_lock:
            memo = self._typo_memos.pop(scope, None)
            self._typo_memos[scope] = memo = {} if memo is None else memo
            while len(self._typo_memos) > TYPO_MEMO_SCOPES:
                self._typo_memos.popitem(last=False)
            return memo

    def _classify_uncached(self, query: str, scope: str
                           ) -> tuple[Intent, str | None, dict[str, float], list[str], FormatDecision]:
        latency: dict[str, float] = {}
        t = time.perf_counter()
        rules = classify_rules(query, self.vocab, self._typo_memo(scope))
        latency["rules"] = (time.perf_counter() - t) * 1000
        intent, model, degraded, llm_intent = self._routing(query, rules, latency)
        assert rules.directive is not None
        t = time.perf_counter()
        # the classifier reads what tier 1 read: a pasted mail's quoted lines and headers are not the wish
        own = own_lines(query)
        try:
            decision, notes = self.format_step.decide(own, rules.directive, llm_intent)
            if decision.tier != "rules":
                latency["format"] = (time.perf_counter() - t) * 1000
            t, asked = time.perf_counter(), self.kind_step.asked(decision, own)
            decision, kind_notes = self.kind_step.refine(own, decision, rules.directive)
            if asked:
                latency["kind"] = (time.perf_counter() - t) * 1000
        finally:
            self._e5.forget()  # the memo serves this request's two classifiers only
        degraded.extend(notes + kind_notes)
        return _with_format(intent, decision), model, latency, degraded, decision

    def _routing(self, query: str, rules: RuleResult, latency: dict[str, float]
                 ) -> tuple[Intent, str | None, list[str], Intent | None]:
        """The whole-intent cascade for the routing fields; the format is decided after it, field by field."""
        degraded: list[str] = []
        if rules.confidence >= self.settings.intent.rules_threshold:
            return rules.intent, None, degraded, None

        candidates = [rules.intent]
        t = time.perf_counter()
        try:
            match = self.prototypes().nearest(query, self.vocab)
        except (EmbeddingFailed, ModelError) as exc:
            degraded.append(f"intent prototypes unavailable: {exc.message}")
        else:
            proto_intent = _prototype_intent(rules, match)
            candidates.append(proto_intent)
            if match.cosine >= self.settings.intent.prototype_threshold:
                latency["prototypes"] = (time.perf_counter() - t) * 1000
                return proto_intent, None, degraded, None
        latency["prototypes"] = (time.perf_counter() - t) * 1000

        if self.llm_tier is not None:
            t = time.perf_counter()
            outcome = self.llm_tier.classify(query)
            latency["llm"] = (time.perf_counter() - t) * 1000
            degraded.extend(outcome.degraded)
            if outcome.intent is not None:
                produced = outcome.intent.model_dump(exclude={"tier", "confidence"})
                intent = merge_with_rules(rules, produced, tier="llm", confidence=outcome.intent.confidence)
                return intent, outcome.model, degraded, outcome.intent
        else:
            degraded.append("intent: no LLM configured; best of tiers 1-2 used below its confidence gate")
        best = max(candidates, key=lambda i: i.confidence)
        if self.llm_tier is not None:
            degraded.append(f"intent: LLM tier failed; fell back to tier {best.tier}")
        return best, None, degraded, None

    # -- public --------------------------------------------------------------------------------------

    def _apply_hints(self, intent: Intent, hints: Hints | None) -> Intent:
        if hints is None:
            return intent
        values = intent.model_dump()
        if hints.domain is not None:
            if hints.domain not in self.domains:
                raise InvalidInput(
                    f"hints.domain {hints.domain!r} is not a configured domain; use one of {list(self.domains)}",
                    details={"field": "hints.domain"},
                )
            values["domains"] = (hints.domain,)
        if hints.horizon_days is not None:
            values["horizon_days"] = hints.horizon_days
        if hints.format is not None and hints.format != intent.format:
            values["format"], values["chart_subtype"], values["chart_requested"] = hints.format, None, None
        if hints.domain is not None or hints.format is not None:
            values["retrieval_pattern"] = "pipeline" if values["retrieval_pattern"] == "agentic" else values[
                "retrieval_pattern"]
        return Intent.model_validate(_consistent(values))

    def classify(self, query: str, hints: Hints | None = None, *, scope: str = "") -> Classification:
        """Classify ``query``; hints (domain, horizon_days, format) override the corresponding fields. The cache
        is per ``scope`` (the caller's tenant, ``groundsearch.scope``): a hit must not tell one tenant what
        another asked; so is tier 1's memo of typo readings (a memoised word reads faster, and tier 1's time is
        reported)."""
        if not isinstance(query, str) or not query.strip():
            raise InvalidQuery("query is empty; type what you are looking for")
        if len(query) > MAX_QUERY_CHARS:
            raise InvalidQuery(f"query is {len(query)} characters; the limit is {MAX_QUERY_CHARS}")
        key = cache_key(query, hints, self.domains, scope)
        t = time.perf_counter()
        cached = self.cache.get(key)
        if cached is not None:
            return Classification(cached, True, None, {"cache": (time.perf_counter() - t) * 1000}, ())
        intent, model, latency, degraded, decision = self._classify_uncached(query, scope)
        intent = self._apply_hints(intent, hints)
        self.cache.put(key, intent)
        if self.settings.intent.shadow and self.llm_tier is not None and intent.tier != "llm":
            self._shadow_compare(query, intent)
        return Classification(intent, False, model, latency, tuple(degraded), decision.tier, decision.confidence)

    # -- shadow mode ---------------------------------------------------------------------------------

    def _shadow_compare(self, query: str, winner: Intent) -> None:
        """Run tier 3 in the background and log where it disagrees; the user's answer never waits or changes."""
        if self._shadow is None:
            self._shadow = ThreadPoolExecutor(max_workers=1, thread_name_prefix="intent-shadow")
        tier = self.llm_tier
        assert tier is not None

        def run() -> None:
            outcome = tier.classify(query)
            diffs: dict[str, Any] | None = None
            if outcome.intent is None:
                # the notes are the tier's own error messages (timeouts, HTTP status), not the request
                log.info("intent shadow: llm gave no intent (%d note(s))", len(outcome.degraded))
            else:
                diffs = {
                    f: (getattr(winner, f), getattr(outcome.intent, f))
                    for f in COMPARED_FIELDS
                    if getattr(winner, f) != getattr(outcome.intent, f)
                }
                if diffs:
                    # field names only: the values can echo the request (topic keywords, comparison targets)
                    log.warning("intent shadow disagreement (%s vs llm) on fields %s", winner.tier, sorted(diffs))
            if self.on_shadow is not None:
                try:
                    self.on_shadow(query, winner.tier, diffs)
                except Exception as exc:  # telemetry must not break the shadow thread
                    log.warning("intent shadow: could not record the comparison (%s)", type(exc).__name__)

        self._shadow.submit(run)

    def close(self) -> None:
        if self._shadow is not None:
            self._shadow.shutdown(wait=True)
            self._shadow = None
