"""How often the relevance gate calls a request low-confidence on the demo corpus, per language, on-topic and off.

On-topic: the labelled intent requests (every one is about the demo corpus) and ``ontopic-languages-*.jsonl``.
Off-topic: ``offtopic-dev.jsonl`` (calibration) and ``offtopic-heldout.jsonl`` (committed before the gate was
changed), nine languages each, and ``offtopic-languages-*.jsonl``: 14 languages past the nine, in six scripts
(``dev`` halves for choosing, ``heldout`` halves committed first; ``evaluation/data/README.md``).
A good gate fires rarely on the first and nearly always on the second; "not judged" (the request is in a
language the embedder does not read) is counted apart, since it is neither.

``python -m groundsearch.evaluation.gate_languages [FILE.jsonl …]`` prints one JSON document.
``--judge-scores`` instead prints the multilingual judge's best cosine (``query.judge``) for every non-English
row, per set and language, and the threshold that calls at most 5 % of the on-topic rows low-confidence
(:func:`multilingual_threshold`): how ``query.gate.MULTILINGUAL_THRESHOLD`` was chosen, on dev files only.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from ..types import SearchRequest
from .intent_fidelity import build_demo_engine

__all__ = ["DEFAULT_FILES", "gate_table", "judge_latency", "judge_scores", "multilingual_threshold"]

DATA = Path(__file__).parent / "data"
DEFAULT_FILES = ("intents-heldout3.jsonl", "intents-dev.jsonl", "offtopic-dev.jsonl", "offtopic-heldout.jsonl",
                 "ontopic-languages-dev.jsonl", "offtopic-languages-dev.jsonl", "ontopic-languages-heldout.jsonl",
                 "offtopic-languages-heldout.jsonl")


def _rows(files: list[str]) -> list[dict[str, Any]]:
    rows = []
    for name in files:
        path = Path(name) if Path(name).exists() else DATA / name
        for line in path.read_text("utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                row["set"] = path.stem
                rows.append(row)
    return rows


def gate_table(engine: Any, rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """``set:lang`` → n, low-confidence share, not-judged share (from the plan's own reason), and how many
    the multilingual judge judged with its median time."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    judged: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        response = engine.search(SearchRequest(query=row["query"]))
        key = f"{row['set']}:{row.get('lang', '-')}"
        spent = response.diagnostics.latency_ms.get("retrieve.gate.judge")
        if spent is not None:
            judged[key].append(spent)
        counts[key]["n"] += 1
        counts[key]["low"] += any(r.kind == "low-confidence" for r in response.structured_results)
        reasons = (response.diagnostics.plan or {}).get("reasons", [])
        counts[key]["not_judged"] += any(str(x).startswith("gate not judged") for x in reasons)
    return {k: {"n": c["n"], "low_confidence": round(c["low"] / c["n"], 4),
                "not_judged": round(c["not_judged"] / c["n"], 4),
                **({"judged_by_e5": len(judged[k]), "judge_ms_p50": round(float(np.median(judged[k])), 1)}
                   if judged[k] else {})} for k, c in sorted(counts.items())}


def judge_scores(engine: Any, rows: list[dict[str, Any]]) -> tuple[dict[str, list[float]], list[float]]:
    """``set:lang`` → the judge's best cosine for each non-English row the planner sent to it (not those
    passed by grounding, nor those py3langid was unsure of), and the judge's time per judged request (ms)."""
    pipeline, scores, spent = engine.answer_pipeline(), defaultdict(list), []
    for row in rows:
        if row.get("lang", "en") == "en":
            continue
        _, plan = pipeline.plan(SearchRequest(query=row["query"]))
        if plan.gate_judge != "multilingual":
            continue
        evidence = engine.retriever.retrieve(plan)
        if evidence.gate is not None and evidence.gate.measured:
            scores[f"{row['set']}:{row['lang']}"].append(round(evidence.gate.best_score, 4))
            spent.append(evidence.latency_ms.get("gate.judge", 0.0))
    return dict(sorted(scores.items())), spent


def judge_latency(engine: Any, rows: list[dict[str, Any]], limit: int = 20) -> dict[str, Any]:
    """The judge's added time on the first ``limit`` judged rows, twice each: cold (its first sight of the
    candidates; the e5 load is paid before) and warm (their vectors kept), as wall and this thread's CPU time."""
    judge = engine.retriever.judge
    if judge is None:
        return {}
    judge.model  # noqa: B018  (load e5 outside the timings)
    pipeline, plans = engine.answer_pipeline(), []
    for row in rows:
        if len(plans) < limit and row.get("lang", "en") != "en":
            _, plan = pipeline.plan(SearchRequest(query=row["query"]))
            if plan.gate_judge == "multilingual":
                plans.append(plan)
    best, times = judge.best, defaultdict(list)

    def timed(query: str, passages: Any) -> float | None:
        w, c = time.perf_counter(), time.thread_time()
        try:
            return best(query, passages)
        finally:
            times[f"{pass_}_cpu"].append((time.thread_time() - c) * 1000)
            times[f"{pass_}_wall"].append((time.perf_counter() - w) * 1000)

    judge.best = timed  # type: ignore[method-assign]
    try:
        for pass_ in ("cold", "warm"):
            for plan in plans:
                engine.retriever.retrieve(plan)
    finally:
        del judge.best
    return {"requests": len(plans), **{k: {f"p{q}": round(float(np.percentile(v, q)), 1) for q in (50, 95)}
                                       for k, v in sorted(times.items())},
            "load_avg": [round(x, 2) for x in os.getloadavg()]}


def multilingual_threshold(on_topic: list[float], share: float = 0.05) -> float:
    """The highest threshold (3 decimals) that calls at most ``share`` of the on-topic scores low-confidence."""
    ranked = sorted(on_topic)
    allowed = math.floor(share * len(ranked))  # this many may fall below
    return math.floor(ranked[allowed] * 1000) / 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("files", nargs="*", default=list(DEFAULT_FILES))
    parser.add_argument("--demo", default="demo")
    parser.add_argument("--judge-scores", action="store_true")
    parser.add_argument("--judge-latency", type=int, default=0, metavar="N",
                        help="time the judge alone on the first N judged rows, cold and warm (< 3 min idle)")
    parser.add_argument("--data-dir", help="reuse (or build once) the demo store here instead of a fresh temp one")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="gs-gate-") as tmp:
        data = Path(args.data_dir) if args.data_dir else Path(tmp) / "data"
        # the judge's scores need every judged row scored, so its threshold is set just above 0
        engine = build_demo_engine(Path(args.demo), data, retrieval={"gate_multilingual_threshold": 0.001}
                                   if args.judge_scores else None)
        try:
            if args.judge_latency:
                print(json.dumps(judge_latency(engine, _rows(args.files), args.judge_latency), indent=1))
            elif args.judge_scores:
                scores, spent = judge_scores(engine, _rows(args.files))
                on = [x for k, v in scores.items() if not k.startswith("offtopic") for x in v]
                out: dict[str, Any] = {"scores": scores, "judge_ms": {
                    f"p{q}": round(float(np.percentile(spent, q)), 1) for q in (50, 95)} if spent else {}}
                if on:
                    t = multilingual_threshold(on)
                    out["threshold_5pct"] = t
                    out["low_confidence_at_it"] = {k: round(sum(x < t for x in v) / len(v), 4)
                                                   for k, v in scores.items()}
                print(json.dumps(out, indent=1))
            else:
                print(json.dumps(gate_table(engine, _rows(args.files)), indent=1))
        finally:
            engine.close()
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
