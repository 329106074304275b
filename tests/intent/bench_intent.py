"""Intent cascade figures for /work/notes and BENCHMARKS.md (not a test: prints JSON figures).

Run: ``OMP_NUM_THREADS=1 .venv/bin/python tests/intent/bench_intent.py [--repeat 20] [--llm-url URL]``

* tier 1 (rules + format directives): every labelled request ``--repeat`` times, p50/p99 per call, as wall
  time and as the thread's own CPU time (a shared 2-core box preempts; CPU time is the rules' own cost);
* the whole cascade per request, p50/p95: with tier 2 (MiniLM prototypes + the e5 format classifier) and
  without it (rules and the format step with no classifier);
* with ``--llm-url`` (a llama.cpp server over the bundled GGUF): tier 3 alone on the format field, on the dev
  rows (``--llm-rows`` of them) and on the rows tier 1 abstains on, against tier 2 on the same rows: the
  numbers ``calibration.llm_wins`` is decided from.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

import numpy as np

from groundsearch.evaluation.intents import load_labelled
from groundsearch.models.llm import OpenAICompatLLM, load_prompt
from groundsearch.models.onnx import MiniLMEmbedder
from groundsearch.query.intent import IntentCascade
from groundsearch.query.intent.cache import MemoryIntentCache
from groundsearch.query.intent.directives import TypoMemo, read_directive
from groundsearch.query.intent.format_step import FormatStep
from groundsearch.query.intent.llm_tier import LLMTier
from groundsearch.query.intent.rules import DomainVocab, classify_rules
from groundsearch.query.intent.schema import DEFAULT_DOMAINS
from groundsearch.settings import load_settings


def pct(values, q):
    return round(float(np.percentile(np.asarray(values), q)), 4)


def timed(fn, rows, repeat=1):
    wall, cpu = [], []
    for _ in range(repeat):
        for row in rows:
            t, c = time.perf_counter(), time.thread_time()
            fn(row["query"])
            cpu.append((time.thread_time() - c) * 1000)
            wall.append((time.perf_counter() - t) * 1000)
    return {"calls": len(wall), "p50": pct(wall, 50), "p95": pct(wall, 95), "p99": pct(wall, 99),
            "cpu_p50": pct(cpu, 50), "cpu_p95": pct(cpu, 95), "cpu_p99": pct(cpu, 99)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--llm-url", default=None)
    parser.add_argument("--llm-rows", type=int, default=60)
    args = parser.parse_args()
    rows = [r for r in load_labelled(None) if "lang" in r]
    out: dict = {"n": len(rows), "load_avg_1m_start": os.getloadavg()[0]}

    vocab = DomainVocab(DEFAULT_DOMAINS)
    classify_rules(rows[0]["query"], vocab)  # build the lexicon index outside the timings
    memo: TypoMemo = {}  # one caller scope's typo memo, as the cascade keeps it per scope
    out["tier1_ms"] = timed(lambda q: classify_rules(q, vocab, memo), rows, args.repeat)

    settings = load_settings(env={}, data_dir=tempfile.mkdtemp())
    embedder = MiniLMEmbedder(threads=1)
    with2 = IntentCascade(settings, embedder, None, cache=MemoryIntentCache(0))
    with2.prototypes()
    with2.format_step.decide("one row per paper", read_directive("one row per paper"))  # load e5 once
    out["cascade_with_tier2_ms"] = timed(with2.classify, rows)
    bare = FormatStep(None, with2.format_step.calibration)
    out["cascade_without_tier2_ms"] = timed(lambda q: bare.decide(q, classify_rules(q, vocab).directive), rows)
    out["tier1_abstains"] = sum(not read_directive(r["query"]).sure for r in rows)

    if args.llm_url:
        llm = OpenAICompatLLM(args.llm_url, "local", timeout_s=120)
        tier = LLMTier([llm], DEFAULT_DOMAINS, load_prompt("intent", "v1"))
        model = with2.format_step.classifier.get()
        for split in ("dev", "heldout"):
            part = [r for r in rows if r["split"] == split]
            abstain = [r for r in part if not read_directive(r["query"]).sure]
            sample = abstain + [r for r in part if r not in abstain][: max(0, args.llm_rows - len(abstain))]
            res = {"n": len(sample), "abstained": len(abstain), "valid": 0, "llm_format": 0, "tier2_format": 0,
                   "llm_format_on_abstained": 0, "tier2_format_on_abstained": 0, "latency_ms": []}
            for r in sample:
                t = time.perf_counter()
                outcome = tier.classify(r["query"])
                res["latency_ms"].append((time.perf_counter() - t) * 1000)
                d = read_directive(r["query"])
                t2 = model.predict(r["query"], d.candidates)[0] if model else d.format
                ok2 = t2 == r["format"]
                ok3 = outcome.intent is not None and outcome.intent.format == r["format"]
                res["valid"] += outcome.intent is not None
                res["llm_format"] += ok3
                res["tier2_format"] += ok2
                if r in abstain:
                    res["llm_format_on_abstained"] += ok3
                    res["tier2_format_on_abstained"] += ok2
            lat = res.pop("latency_ms")
            res["latency_p50_ms"], res["latency_p95_ms"] = pct(lat, 50), pct(lat, 95)
            out[f"tier3_{split}"] = res
    out["load_avg_1m_end"] = os.getloadavg()[0]
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
