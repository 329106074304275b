"""OpenTelemetry: a request becomes one span with stage children and metrics, through the SDK's in-memory
exporter and reader (what an operator's exporter would receive); no attribute carries query text."""

from __future__ import annotations

import datetime as dt

import pytest

from groundsearch.telemetry.otel import OtelExport
from groundsearch.telemetry.record import RequestRecord

sdk_trace = pytest.importorskip("opentelemetry.sdk.trace", reason="opentelemetry-sdk is not installed")


def test_request_span_stages_and_metrics() -> None:
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    spans, reader = InMemorySpanExporter(), InMemoryMetricReader()
    tracer = sdk_trace.TracerProvider()
    tracer.add_span_processor(SimpleSpanProcessor(spans))
    export = OtelExport(tracer_provider=tracer, meter_provider=MeterProvider(metric_readers=[reader]))
    rec = RequestRecord(id="r1", tenant="acme", created_at=dt.datetime(2026, 12, 1, tzinfo=dt.UTC), surface="search",
                        status="ok", query_hash="ab" * 32, tier="rules",
                        latency_ms={"classify": 2.0, "retrieve": 5.0, "synthesize": 3.0, "retrieve.keyword": 1.0},
                        total_ms=12.0, prompt_tokens=100, completion_tokens=20, cost_usd=0.001)
    export.emit(rec)
    finished = {s.name: s for s in spans.get_finished_spans()}
    assert set(finished) == {"groundsearch.request", "groundsearch.classify", "groundsearch.retrieve",
                             "groundsearch.synthesize"}
    root = finished["groundsearch.request"]
    assert root.attributes["groundsearch.query_hash"] == "ab" * 32 and root.attributes["groundsearch.tier"] == "rules"
    assert (root.end_time - root.start_time) == 12_000_000
    retrieve = finished["groundsearch.retrieve"]
    assert retrieve.parent.span_id == root.context.span_id
    assert retrieve.start_time == root.start_time + 2_000_000 and retrieve.end_time - retrieve.start_time == 5_000_000
    metrics = {m.name: m for rm in reader.get_metrics_data().resource_metrics for sm in rm.scope_metrics
               for m in sm.metrics}
    assert {"groundsearch.request.duration", "groundsearch.stage.duration", "groundsearch.llm.tokens",
            "groundsearch.llm.cost"} <= set(metrics)
    assert sum(p.value for p in metrics["groundsearch.llm.tokens"].data.data_points) == 120
