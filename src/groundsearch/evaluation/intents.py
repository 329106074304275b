"""Intent accuracy on the hand-labelled request set: per field, per split, per answering tier.

The set (``evaluation/data/intents.jsonl``) was labelled by hand before the rules were tuned; rows with
``split == "heldout"`` were never looked at while tuning, so their accuracy is the honest estimate.
Domains compare as sets (order carries no meaning). Latency is per request, grouped by the tier that
answered, plus each tier's own stage time wherever it ran.
"""

from __future__ import annotations

import json
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InvalidInput
from ..query.intent.cache import MemoryIntentCache
from ..query.intent.cascade import Classification, IntentCascade
from ..settings import Settings

__all__ = ["DEFAULT_INTENTS_FILE", "FIELDS", "evaluate_intents", "format_intent_report", "load_labelled", "run_intent_eval"]

FIELDS = ("format", "chart_subtype", "domains", "complexity")
DEFAULT_INTENTS_FILE = "intents.jsonl"


def load_labelled(path: str | Path | None = None) -> list[dict[str, Any]]:
    """Rows of the labelled set; ``None`` reads the packaged one. Errors name the file and line."""
    if path is None:
        text = (resources.files("groundsearch.evaluation") / "data" / DEFAULT_INTENTS_FILE).read_text("utf-8")
        where = "the packaged intents.jsonl"
    else:
        try:
            text = Path(path).read_text("utf-8")
        except OSError as exc:
            raise InvalidInput(f"cannot read intents file {path}: {exc.strerror}") from None
        where = str(path)
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"{where} line {n} is not JSON: {exc.msg}") from None
        missing = [k for k in ("query", *FIELDS) if k not in row]
        if missing:
            raise InvalidInput(f"{where} line {n} lacks {missing}")
        rows.append(row)
    if not rows:
        raise InvalidInput(f"{where} has no labelled requests")
    return rows


def _predicted(c: Classification) -> dict[str, Any]:
    it = c.intent
    return {"format": it.format, "chart_subtype": it.chart_subtype, "domains": sorted(it.domains),
            "complexity": it.complexity}


def _expected(row: dict[str, Any]) -> dict[str, Any]:
    return {**{f: row[f] for f in FIELDS}, "domains": sorted(row["domains"])}


def _percentiles(values: Iterable[float]) -> dict[str, float]:
    arr = np.asarray(list(values), dtype=float)
    if arr.size == 0:
        return {"n": 0}
    return {"n": int(arr.size), "p50": round(float(np.percentile(arr, 50)), 3),
            "p99": round(float(np.percentile(arr, 99)), 3)}


def evaluate_intents(path: str | Path | None, cascade: IntentCascade) -> dict[str, Any]:
    """Classify every labelled request once (cache bypassed by construction: queries are unique).

    Returns ``{"n", "accuracy": {field: share}, "splits": {split: {"n", "accuracy"}}, "tiers": {tier:
    share}, "latency_ms": {"total_by_tier": {tier: {p50,p99}}, "stage": {stage: {p50,p99}}},
    "llm": {"called", "valid", "validity"}, "errors": [...]}`` — errors list the misclassified rows.
    """
    rows = load_labelled(path)
    correct: dict[str, Counter[str]] = defaultdict(Counter)  # split -> field -> hits
    counts: Counter[str] = Counter()
    tiers: Counter[str] = Counter()
    by_tier: dict[str, list[float]] = defaultdict(list)
    stages: dict[str, list[float]] = defaultdict(list)
    llm_called = llm_valid = 0
    errors = []
    for row in rows:
        split = row.get("split", "all")
        started = time.perf_counter()
        result = cascade.classify(row["query"])
        total = (time.perf_counter() - started) * 1000
        tier = "cache" if result.cache_hit else result.intent.tier
        tiers[tier] += 1
        by_tier[tier].append(total)
        for stage, ms in result.latency_ms.items():
            stages[stage].append(ms)
        if "llm" in result.latency_ms:
            llm_called += 1
            llm_valid += result.intent.tier == "llm"
        got, want = _predicted(result), _expected(row)
        counts[split] += 1
        wrong = [f for f in FIELDS if got[f] != want[f]]
        for f in FIELDS:
            correct[split][f] += f not in wrong
        if wrong:
            errors.append({"query": row["query"], "split": split, "tier": tier,
                           "fields": {f: {"want": want[f], "got": got[f]} for f in wrong}})
    n = sum(counts.values())
    return {
        "n": n,
        "accuracy": {f: round(sum(c[f] for c in correct.values()) / n, 4) for f in FIELDS},
        "splits": {
            s: {"n": counts[s], "accuracy": {f: round(correct[s][f] / counts[s], 4) for f in FIELDS}}
            for s in sorted(counts)
        },
        "tiers": {t: round(k / n, 4) for t, k in tiers.most_common()},
        "latency_ms": {
            "total_by_tier": {t: _percentiles(v) for t, v in sorted(by_tier.items())},
            "stage": {s: _percentiles(v) for s, v in sorted(stages.items())},
        },
        "llm": {"called": llm_called, "valid": llm_valid,
                "validity": round(llm_valid / llm_called, 4) if llm_called else None},
        "errors": errors,
    }


def run_intent_eval(path: str | Path | None, settings: Settings, *, data_dir: Path | None = None) -> dict[str, Any]:
    """Build the configured cascade (tier 3 on exactly when ``settings.llm`` is enabled) and evaluate it."""
    from ..models.factory import build_embedder

    llm = None
    if settings.llm.enabled:
        from ..models.llm import build_llm

        llm = build_llm(settings.llm)
    cascade = IntentCascade(settings, build_embedder(settings), llm, cache=MemoryIntentCache(0), data_dir=data_dir)
    try:
        report = evaluate_intents(path, cascade)
    finally:
        cascade.close()
    report["tier3"] = getattr(llm, "name", None)
    return report


def format_intent_report(report: dict[str, Any]) -> str:
    """Plain-text summary for the terminal (``--json`` prints the full report instead)."""
    lines = [f"intent accuracy on {report['n']} labelled requests (tier 3: {report.get('tier3') or 'off'})"]
    lines.append("  all      " + "  ".join(f"{f} {v:.1%}" for f, v in report["accuracy"].items()))
    for split, figures in report["splits"].items():
        lines.append(f"  {split:<8} " + "  ".join(f"{f} {v:.1%}" for f, v in figures["accuracy"].items())
                     + f"  (n={figures['n']})")
    lines.append("  tiers    " + "  ".join(f"{t} {v:.1%}" for t, v in report["tiers"].items()))
    for stage, p in report["latency_ms"]["stage"].items():
        if p.get("n"):
            lines.append(f"  latency  {stage:<10} p50 {p['p50']:.2f} ms  p99 {p['p99']:.2f} ms  (n={p['n']})")
    if report["llm"]["called"]:
        lines.append(f"  tier-3 validity {report['llm']['valid']}/{report['llm']['called']}")
    return "\n".join(lines)
