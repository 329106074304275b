"""Time to first streamed piece vs whole reply, through the product's client (``OpenAICompatLLM.stream``),
against a running llama.cpp server — what streaming buys a reader of a chat turn on the local CPU model.

    python -m tests.llm.bench_stream --base-url http://127.0.0.1:8090/v1 [--runs 3] [--max-tokens 48]

Each run asks a different short question (so the prefix cache does not answer the prompt), prints per-run
first-piece and total milliseconds, then medians and their ratio. A few runs fit in under 3 minutes on an
idle 2-core box (MODELS.md: ~0.2 s to the first token for a short prompt, ~42 tok/s decoding).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from groundsearch.models.base import ChatMessage, Completion
from groundsearch.models.llm import OpenAICompatLLM

QUESTIONS = ("Explain in three sentences what a search index is.",
             "Explain in three sentences what a vector database does.",
             "Explain in three sentences why rerankers help search.",
             "Explain in three sentences what BM25 scores.",
             "Explain in three sentences what a knowledge graph is.")


def run(base_url: str, runs: int, max_tokens: int) -> list[tuple[float, float, int]]:
    llm = OpenAICompatLLM(base_url, "default", timeout_s=600)
    out = []
    for i in range(runs):
        started = time.perf_counter()
        first = None
        pieces = 0
        for piece in llm.stream([ChatMessage("user", QUESTIONS[i % len(QUESTIONS)])], max_tokens=max_tokens):
            if isinstance(piece, Completion):
                break
            pieces += 1
            first = first or time.perf_counter()
        total = time.perf_counter() - started
        out.append((((first or time.perf_counter()) - started) * 1000, total * 1000, pieces))
        print(f"run {i + 1}: first piece {out[-1][0]:.0f} ms, whole reply {out[-1][1]:.0f} ms, {pieces} pieces")
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=48)
    args = parser.parse_args(argv)
    rows = run(args.base_url, args.runs, args.max_tokens)
    first, total = statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows)
    print(f"median first piece {first:.0f} ms, median whole reply {total:.0f} ms, ratio {first / total:.2f}; "
          f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
