"""``groundsearch report``: what a period of traffic looked like, computed from the stored records only."""

from __future__ import annotations

import datetime as dt
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..settings import TelemetrySettings
from .record import RequestRecord, ShadowRecord

__all__ = ["Report", "build_report", "nearest_rank", "render_report"]

TOP_REASONS = 10


def nearest_rank(values: Sequence[float], q: float) -> float:
    """The nearest-rank percentile (``q`` in 0..100): an observed value, never an interpolated one."""
    ordered = sorted(values)
    if not ordered:
        return math.nan
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


@dataclass(frozen=True)
class Report:
    since: dt.datetime
    until: dt.datetime
    requests: int
    by_status: dict[str, int]
    by_surface: dict[str, int]
    by_tier: dict[str, int]
    cache_hits: int
    stages: dict[str, dict[str, float]]  # stage -> {n, p50, p95}
    reasons: list[tuple[str, int]]
    shadow: dict[str, Any]
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    unpriced_models: list[str]
    token_ceiling: int | None
    cost_ceiling_usd: float | None

    def as_dict(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        out["since"], out["until"] = self.since.isoformat(), self.until.isoformat()
        return out


def build_report(records: Sequence[RequestRecord], shadows: Sequence[ShadowRecord], *, since: dt.datetime,
                 until: dt.datetime, config: TelemetrySettings) -> Report:
    stage_values: dict[str, list[float]] = {}
    for r in records:
        for stage, ms in r.latency_ms.items():
            stage_values.setdefault(stage, []).append(float(ms))
    stages = {s: {"n": len(v), "p50": nearest_rank(v, 50), "p95": nearest_rank(v, 95)}
              for s, v in sorted(stage_values.items())}
    reasons = Counter(reason for r in records for reason in dict.fromkeys(r.degraded))
    compared = [s for s in shadows if s.agreed is not None]
    disagreed = [s for s in compared if not s.agreed]
    shadow = {"compared": len(compared), "disagreed": len(disagreed), "no_llm_intent": len(shadows) - len(compared),
              "by_tier": dict(Counter(s.winner_tier for s in disagreed)),
              "by_field": dict(Counter(f for s in disagreed for f in s.fields))}
    days = max((until - since).total_seconds() / 86_400, 1 / 24)
    return Report(
        since=since, until=until, requests=len(records), by_status=dict(Counter(r.status for r in records)),
        by_surface=dict(Counter(r.surface for r in records)),
        by_tier=dict(Counter(r.tier or "none" for r in records)), cache_hits=sum(r.cache_hit for r in records),
        stages=stages, reasons=reasons.most_common(TOP_REASONS), shadow=shadow,
        prompt_tokens=sum(r.prompt_tokens for r in records),
        completion_tokens=sum(r.completion_tokens for r in records),
        cost_usd=round(sum(r.cost_usd for r in records), 8),
        unpriced_models=sorted({m for r in records for m in (r.usage.get("unpriced_models") or ())}),
        token_ceiling=None if config.token_ceiling_per_day is None else round(config.token_ceiling_per_day * days),
        cost_ceiling_usd=None if config.cost_ceiling_usd_per_day is None else config.cost_ceiling_usd_per_day * days,
    )


def _share(n: int, total: int) -> str:
    return f"{n:>6}  {100 * n / total:5.1f}%" if total else f"{n:>6}"


def render_report(rep: Report) -> str:
    lines = [f"requests {rep.since:%Y-%m-%d %H:%M} – {rep.until:%Y-%m-%d %H:%M} UTC: {rep.requests}"
             f" ({', '.join(f'{k} {v}' for k, v in sorted(rep.by_status.items())) or 'none'});"
             f" surfaces: {', '.join(f'{k} {v}' for k, v in sorted(rep.by_surface.items())) or 'none'}"]
    lines.append("")
    lines.append("traffic per tier")
    for tier, n in sorted(rep.by_tier.items(), key=lambda kv: -kv[1]):
        lines.append(f"  {tier:<12}{_share(n, rep.requests)}")
    lines.append(f"  intent cache hits {_share(rep.cache_hits, rep.requests)}")
    lines.append("")
    sh = rep.shadow
    if sh["compared"] or sh["no_llm_intent"]:
        lines.append(f"tier disagreement (shadow mode): {sh['disagreed']} of {sh['compared']} compared"
                     f" ({100 * sh['disagreed'] / sh['compared']:.1f}%)" if sh["compared"] else
                     "tier disagreement (shadow mode): nothing compared")
        if sh["by_field"]:
            lines.append("  by field: " + ", ".join(f"{k} {v}" for k, v in sorted(sh["by_field"].items())))
        if sh["by_tier"]:
            lines.append("  by answering tier: " + ", ".join(f"{k} {v}" for k, v in sorted(sh["by_tier"].items())))
        if sh["no_llm_intent"]:
            lines.append(f"  the LLM tier gave no intent {sh['no_llm_intent']} time(s)")
    else:
        lines.append("tier disagreement (shadow mode): no comparisons recorded (intent.shadow is off)")
    lines.append("")
    lines.append(f"latency per stage (ms)      {'n':>6} {'p50':>9} {'p95':>9}")
    for stage, v in rep.stages.items():
        lines.append(f"  {stage:<26}{int(v['n']):>6} {v['p50']:>9.1f} {v['p95']:>9.1f}")
    lines.append("")
    lines.append("top degraded reasons")
    for reason, n in rep.reasons:
        lines.append(f"  {n:>6}  {reason}")
    if not rep.reasons:
        lines.append("  none")
    lines.append("")
    tokens = rep.prompt_tokens + rep.completion_tokens
    ceiling = "" if rep.token_ceiling is None else (f" of a {rep.token_ceiling} ceiling"
                                                      f" ({100 * tokens / rep.token_ceiling:.1f}%)"
                                                      if rep.token_ceiling else f" of a 0 ceiling")
    lines.append(f"LLM tokens {tokens} (prompt {rep.prompt_tokens}, completion {rep.completion_tokens}){ceiling}")
    cost = "" if rep.cost_ceiling_usd is None else (f" of a ${rep.cost_ceiling_usd:.4f} ceiling"
                                                     f" ({100 * rep.cost_usd / rep.cost_ceiling_usd:.1f}%)"
                                                     if rep.cost_ceiling_usd else " of a $0 ceiling")
    lines.append(f"cost ${rep.cost_usd:.6f}{cost}")
    if rep.unpriced_models:
        lines.append(f"  unpriced models (counted as $0; set llm.prices): {', '.join(rep.unpriced_models)}")
    over = [what for what, spent, cap in (("tokens", tokens, rep.token_ceiling), ("cost", rep.cost_usd,
                                                                               rep.cost_ceiling_usd))
            if cap is not None and spent > cap]
    if over:
        lines.append(f"  OVER CEILING: {', '.join(over)}")
    return "\n".join(lines)
