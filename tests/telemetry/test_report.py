"""``groundsearch report``: figures recomputed by hand from the records, and the CLI over a real store."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from pathlib import Path

from click.testing import CliRunner

from groundsearch.interfaces.cli import main
from groundsearch.settings import TelemetrySettings
from groundsearch.store.sqlite_telemetry import SQLiteTelemetry
from groundsearch.telemetry.record import RequestRecord, ShadowRecord
from groundsearch.telemetry.report import build_report, nearest_rank, render_report

NOW = dt.datetime.now(dt.UTC).replace(microsecond=0)


def rec(i: int, tier: str, ms: float, *, degraded: tuple[str, ...] = (), tokens: int = 0, cost: float = 0.0,
        status: str = "ok") -> RequestRecord:
    return RequestRecord(id=f"r{i}", tenant="", created_at=NOW - dt.timedelta(minutes=i), surface="search",
                         status=status, query_hash="h", tier=tier, latency_ms={"retrieve": ms, "total": 2 * ms},
                         degraded=degraded, prompt_tokens=tokens, completion_tokens=tokens, cost_usd=cost,
                         usage={"unpriced_models": ["local"]} if i == 0 else {})


RECORDS = [rec(0, "rules", 10.0, degraded=("gate: '…'", "gate: '…'"), tokens=50, cost=0.25),
           rec(1, "rules", 20.0, degraded=("gate: '…'",)), rec(2, "prototypes", 30.0, tokens=25, cost=0.5),
           rec(3, "llm", 40.0, degraded=("intent: no LLM",), status="aborted")]
SHADOWS = [ShadowRecord(NOW, "h", "rules", True), ShadowRecord(NOW, "h", "rules", False, ("format",)),
           ShadowRecord(NOW, "h", "prototypes", False, ("domains", "format")), ShadowRecord(NOW, "h", "rules", None)]


def test_nearest_rank_returns_observed_values() -> None:
    assert nearest_rank([4, 1, 3, 2], 50) == 2 and nearest_rank([4, 1, 3, 2], 95) == 4
    assert nearest_rank([7.0], 95) == 7.0


def test_report_figures() -> None:
    config = TelemetrySettings(cost_ceiling_usd_per_day=0.5, token_ceiling_per_day=1000)
    r = build_report(RECORDS, SHADOWS, since=NOW - dt.timedelta(days=1), until=NOW, config=config)
    assert r.requests == 4 and r.by_tier == {"rules": 2, "prototypes": 1, "llm": 1}
    assert r.by_status == {"ok": 3, "aborted": 1}
    assert r.stages["retrieve"] == {"n": 4, "p50": 20.0, "p95": 40.0}
    assert r.stages["total"] == {"n": 4, "p50": 40.0, "p95": 80.0}
    assert r.reasons == [("gate: '…'", 2), ("intent: no LLM", 1)]  # a reason counts once per request
    assert r.shadow == {"compared": 3, "disagreed": 2, "no_llm_intent": 1, "by_tier": {"rules": 1, "prototypes": 1},
                        "by_field": {"format": 2, "domains": 1}}
    assert (r.prompt_tokens, r.completion_tokens, r.cost_usd) == (75, 75, 0.75)
    assert r.token_ceiling == 1000 and r.cost_ceiling_usd == 0.5 and r.unpriced_models == ["local"]
    text = render_report(r)
    assert "tier disagreement (shadow mode): 2 of 3 compared (66.7%)" in text
    assert "LLM tokens 150 (prompt 75, completion 75) of a 1000 ceiling (15.0%)" in text
    assert "OVER CEILING: cost" in text


def test_cli_report_reads_the_store_beside_the_data(tmp_path: Path) -> None:
    now = dt.datetime.now(dt.UTC)
    store = SQLiteTelemetry.open(tmp_path / "data" / "store" / "telemetry.sqlite")
    for r, age in zip(RECORDS, (dt.timedelta(minutes=1), dt.timedelta(minutes=2), dt.timedelta(hours=5),
                                dt.timedelta(days=3))):
        store.record(dataclasses.replace(r, created_at=now - age))
    for s in SHADOWS:
        store.record_shadow(dataclasses.replace(s, created_at=now - dt.timedelta(minutes=1)))
    store.close()
    runner = CliRunner()
    result = runner.invoke(main, ["--data-dir", str(tmp_path / "data"), "report", "--since", "7d", "--json"],
                           env={"GROUNDSEARCH_EMBEDDER": "hash"})
    assert result.exit_code == 0, result.output
    body = json.loads(result.output)
    assert body["requests"] == 4 and body["shadow"]["disagreed"] == 2
    recent = runner.invoke(main, ["--data-dir", str(tmp_path / "data"), "report", "--since", "3h"])
    assert recent.exit_code == 0 and "UTC: 2 (ok 2)" in recent.output  # an hour of margin either side
    bad = runner.invoke(main, ["--data-dir", str(tmp_path / "data"), "report", "--since", "yesterday"])
    assert bad.exit_code == 2 and "neither a duration" in bad.output
