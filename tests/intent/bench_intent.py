"""Intent cascade figures for BENCHMARKS.md (not a test: prints figures).

Run: ``.venv/bin/python tests/intent/bench_intent.py [--llm-url http://127.0.0.1:PORT/v1] [--repeat 20]``

* tier-1 latency: every labelled request through the rules ``--repeat`` times, p50/p99 per call;
* cascade accuracy with tiers 1-2 (real MiniLM), per field, overall and on the held-out split;
* with ``--llm-url`` (a llama.cpp server, e.g. started over ``.cache/llm/model.gguf``): the same with tier 3
  on, tier-3 validity rate and latency, and the model *alone* (its raw fields, no rules merge) per field.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from groundsearch.evaluation.intents import FIELDS, evaluate_intents, load_labelled
from groundsearch.models.llm import OpenAICompatLLM, load_prompt
from groundsearch.models.onnx import MiniLMEmbedder
from groundsearch.query.intent import IntentCascade
from groundsearch.query.intent.cache import MemoryIntentCache
from groundsearch.query.intent.llm_tier import LLMTier
from groundsearch.query.intent.rules import DomainVocab, classify_rules
from groundsearch.query.intent.schema import DEFAULT_DOMAINS
from groundsearch.settings import load_settings


def pct(values, q):
    return round(float(np.percentile(np.asarray(values), q)), 4)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--llm-url", default=None)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--split", default=None, help="only this split (e.g. heldout) for the tier-3 runs")
    parser.add_argument("--llm-alone", type=int, default=58, help="requests for the model-alone figures")
    args = parser.parse_args()
    rows = load_labelled(None)
    out: dict = {"n": len(rows)}

    vocab = DomainVocab(DEFAULT_DOMAINS)
    times, cpu = [], []
    for _ in range(args.repeat):
        for row in rows:
            t, c = time.perf_counter(), time.thread_time()
            classify_rules(row["query"], vocab)
            cpu.append((time.thread_time() - c) * 1000)
            times.append((time.perf_counter() - t) * 1000)
    # Wall time includes preemption on a shared 2-core box; thread CPU time is the rules' own cost.
    out["tier1_ms"] = {"calls": len(times), "p50": pct(times, 50), "p99": pct(times, 99),
                       "cpu_p50": pct(cpu, 50), "cpu_p99": pct(cpu, 99), "load_avg_1m": os.getloadavg()[0]}

    embedder = MiniLMEmbedder(threads=2)
    data_dir = tempfile.mkdtemp()
    settings = load_settings(env={}, data_dir=data_dir)
    cascade = IntentCascade(settings, embedder, None, cache=MemoryIntentCache(0))
    cascade.prototypes()  # warm: embed prototypes once, outside the timings
    report = evaluate_intents(None, cascade)
    out["tiers_1_2"] = {k: report[k] for k in ("accuracy", "splits", "tiers", "latency_ms")}

    if args.llm_url:
        llm = OpenAICompatLLM(args.llm_url, "local", timeout_s=120)
        s3 = load_settings(env={}, data_dir=data_dir, llm={"base_url": args.llm_url, "timeout_s": 120})
        with3 = IntentCascade(s3, embedder, llm, cache=MemoryIntentCache(0))
        subset = None
        if args.split:
            subset = Path(data_dir) / f"intents-{args.split}.jsonl"
            subset.write_text("".join(json.dumps(r) + "\n" for r in rows if r["split"] == args.split))
        report3 = evaluate_intents(subset, with3)
        out["with_tier3_split"] = args.split or "all"
        out["with_tier3"] = {k: report3[k] for k in ("accuracy", "splits", "tiers", "latency_ms", "llm")}
        tier = LLMTier([llm], DEFAULT_DOMAINS, load_prompt("intent", "v1"))
        hits = dict.fromkeys(FIELDS, 0)
        valid, lat = 0, []
        heldout = [r for r in rows if r["split"] == "heldout"][: args.llm_alone]
        for row in heldout:
            t = time.perf_counter()
            outcome = tier.classify(row["query"])
            lat.append((time.perf_counter() - t) * 1000)
            if outcome.intent is None:
                continue
            valid += 1
            it = outcome.intent
            got = {"format": it.format, "chart_subtype": it.chart_subtype if it.format == "chart" else None,
                   "domains": sorted(it.domains), "complexity": it.complexity}
            for f in FIELDS:
                hits[f] += got[f] == (sorted(row[f]) if f == "domains" else row[f])
        if heldout:
            out["llm_alone_heldout"] = {
                "n": len(heldout), "valid": valid,
                "accuracy": {f: round(h / len(heldout), 4) for f, h in hits.items()},
                "latency_ms": {"p50": pct(lat, 50), "p99": pct(lat, 99)},
            }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
