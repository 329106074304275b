"""Embedder throughput and latency, side by side in one process (not a test: prints figures).

Run: ``.venv/bin/python tests/models/bench_embedders.py [--n 1000] [--batch 32] [--threads 2]``

Passages are the first N SciFact abstracts (title + text) from ``../shared/datasets/beir_scifact``; queries
are the first 200 SciFact claims. Each model embeds the passages ``--runs`` times; the median wall time is
reported, and also CPU time (``time.process_time``, all threads), which stays meaningful when other jobs share
the machine: with 2 intra-op threads an idle machine gives wall ≈ CPU / 2.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from groundsearch.models.e5 import E5Embedder
from groundsearch.models.onnx import MiniLMEmbedder

DATASET = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "beir_scifact"


def load(n: int) -> tuple[list[str], list[str]]:
    passages, queries = [], []
    with open(DATASET / "corpus.jsonl", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            passages.append(f"{row.get('title', '')}. {row['text']}".strip())
            if len(passages) == n:
                break
    with open(DATASET / "queries.jsonl", encoding="utf-8") as fh:
        for line in fh:
            queries.append(json.loads(line)["text"])
            if len(queries) == 200:
                break
    return passages, queries


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    if not DATASET.is_dir():
        raise SystemExit(f"SciFact not found at {DATASET}")
    passages, queries = load(args.n)
    models = {
        "minilm": MiniLMEmbedder(threads=args.threads, batch_size=args.batch),
        "e5": E5Embedder(threads=args.threads, batch_size=args.batch),
    }
    print(f"{len(passages)} SciFact passages, batch {args.batch}, {args.threads} threads, {len(queries)} queries")
    for name, model in models.items():
        model.embed_passages(passages[:64])  # warm-up
        runs, cpu = [], []
        for _ in range(args.runs):
            t0, c0 = time.perf_counter(), time.process_time()
            model.embed_passages(passages)
            runs.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        lat, lat_cpu = [], []
        for q in queries[: args.queries]:
            t0, c0 = time.perf_counter(), time.process_time()
            model.embed_queries([q])
            lat.append((time.perf_counter() - t0) * 1000)
            lat_cpu.append((time.process_time() - c0) * 1000)
        lat.sort()
        secs, cpu_secs = statistics.median(runs), statistics.median(cpu)
        print(
            f"{name:7s} {len(passages) / secs:8.1f} passages/s wall ({secs:.2f} s, runs {[round(r, 2) for r in runs]}), "
            f"{len(passages) / cpu_secs:8.1f} passages per CPU-s; query p50 {statistics.median(lat):.2f} ms wall "
            f"(p95 {lat[int(0.95 * len(lat)) - 1]:.2f}), {statistics.median(lat_cpu):.2f} ms CPU",
            flush=True,
        )


if __name__ == "__main__":
    main()
