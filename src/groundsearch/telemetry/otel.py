"""OpenTelemetry export of request records: one span per request (stages as child spans) and metrics.

Only the ``opentelemetry-api`` package is imported, and only if installed (extra ``otel``). Without an SDK
and exporter configured by the operator (e.g. ``opentelemetry-instrument`` or their own provider setup) the
API's providers are no-ops, so this costs nothing. Attributes never include query text — only its hash.
"""

from __future__ import annotations

from typing import Any

from .record import RequestRecord

__all__ = ["OtelExport"]

# The pipeline's stages in the order they run; the record keeps their durations, not their start times,
# so child spans are laid end to end from the request's start.
_STAGES = ("classify", "plan", "retrieve", "normalize", "synthesize", "audit")


class OtelExport:
    def __init__(self, tracer_provider: Any = None, meter_provider: Any = None) -> None:
        try:
            from opentelemetry import metrics, trace
        except ImportError:  # the extra is not installed: nothing to export to
            self._tracer = None
            return
        self._tracer = trace.get_tracer("groundsearch", tracer_provider=tracer_provider)
        meter = metrics.get_meter("groundsearch", meter_provider=meter_provider)
        self._latency = meter.create_histogram("groundsearch.request.duration", unit="ms",
                                               description="end-to-end request latency")
        self._stage = meter.create_histogram("groundsearch.stage.duration", unit="ms",
                                             description="latency per pipeline stage")
        self._tokens = meter.create_counter("groundsearch.llm.tokens", unit="{token}")
        self._cost = meter.create_counter("groundsearch.llm.cost", unit="USD")

    def emit(self, rec: RequestRecord) -> None:
        if self._tracer is None:
            return
        attrs = {"groundsearch.surface": rec.surface, "groundsearch.status": rec.status,
                 "groundsearch.tier": rec.tier or "", "groundsearch.tenant": rec.tenant}
        start = int(rec.created_at.timestamp() * 1e9)
        total = rec.total_ms or sum(rec.latency_ms.get(s, 0.0) for s in _STAGES)
        span = self._tracer.start_span("groundsearch.request", start_time=start, attributes={
            **attrs, "groundsearch.request_id": rec.id, "groundsearch.query_hash": rec.query_hash,
            "groundsearch.confidence": rec.confidence if rec.confidence is not None else -1.0,
            "groundsearch.format": rec.format or "", "groundsearch.cache_hit": rec.cache_hit,
            "groundsearch.model": rec.model or "", "groundsearch.prompt_tokens": rec.prompt_tokens,
            "groundsearch.completion_tokens": rec.completion_tokens, "groundsearch.cost_usd": rec.cost_usd,
            "groundsearch.degraded": list(rec.degraded)})
        from opentelemetry import trace

        context = trace.set_span_in_context(span)
        at = start
        for stage in _STAGES:
            ms = rec.latency_ms.get(stage)
            if ms is None:
                continue
            child = self._tracer.start_span(f"groundsearch.{stage}", context=context, start_time=at)
            at += int(ms * 1e6)
            child.end(end_time=at)
            self._stage.record(ms, {**attrs, "groundsearch.stage": stage})
        span.end(end_time=start + int(total * 1e6))
        self._latency.record(total, attrs)
        if rec.prompt_tokens or rec.completion_tokens:
            self._tokens.add(rec.prompt_tokens, {**attrs, "groundsearch.kind": "prompt"})
            self._tokens.add(rec.completion_tokens, {**attrs, "groundsearch.kind": "completion"})
        if rec.cost_usd:
            self._cost.add(rec.cost_usd, attrs)
