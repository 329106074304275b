"""The LLM-backed retrieval options on a few queries: HyDE and the LLM reranker, against the same plan without.

``python -m groundsearch.evaluation.bench_llm DATASET_DIR --llm-url URL [--limit 8] [--option hyde|rerank]
[--rerank-depth 3]`` prints one JSON document. Each query runs ``Orchestrator.plan`` + ``Retriever.retrieve``
under the ``zscore`` profile, then under ``zscore+hyde`` (the LLM held by the retriever) or ``zscore`` with the
LLM reranker over the fused top ``--rerank-depth``. Only retrieval holds the LLM: the intent cascade stays
rules + prototypes, so both rows classify alike and the added latency is the option's own.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from ..models.llm import build_llm
from ..models.rerank import LLMReranker
from ..query.planner import PLAN_PROFILES
from ..settings import LLMSettings
from ..types import SearchRequest
from .datasets import load_beir
from .metrics import dedupe, percentile
from .runner import doc_id_of, open_eval_engine, score_rankings

__all__ = ["run_option"]


def run_option(engine: Any, queries: dict[str, str], qrels: Any, profile: str, stage: str) -> dict[str, Any]:
    rankings, latency, added = {}, [], []
    for qid, text in queries.items():
        t = time.perf_counter()
        _, plan = engine.answer_pipeline().plan(SearchRequest(query=text, limit=100), profile=PLAN_PROFILES[profile])
        evidence = engine.retrieve(plan)
        latency.append((time.perf_counter() - t) * 1000)
        added.append(evidence.latency_ms.get(stage, 0.0))
        rankings[qid] = tuple(dedupe(doc_id_of(h.item) for h in evidence.hits))
    s = score_rankings(rankings, qrels, latency)
    return {"ndcg@10": round(s.ndcg10, 4), "recall@5": round(s.recall5, 4), "p50_ms": round(s.p50_ms),
            "p95_ms": round(s.p95_ms), "added_p50_ms": round(percentile(added, 50)),
            "added_p95_ms": round(percentile(added, 95))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("dataset")
    parser.add_argument("--llm-url", required=True, help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8472/v1")
    parser.add_argument("--limit", type=int, default=8)
    parser.add_argument("--option", choices=("hyde", "rerank"), default="hyde")
    parser.add_argument("--rerank-depth", type=int, default=3)
    args = parser.parse_args(argv)
    data = load_beir(Path(args.dataset)).limited(args.limit)
    engine = open_eval_engine(data)
    llm = build_llm(LLMSettings(base_url=args.llm_url, models=("local",), timeout_s=150, dialect="llamacpp"))
    try:
        report = _compare(engine, llm, data, args.option, args.rerank_depth)
    finally:
        engine.close()
    print(json.dumps(report, indent=2))
    return 0


def _compare(engine: Any, llm: Any, data: Any, option: str, depth: int) -> dict[str, Any]:
    queries = dict(data.queries)
    report: dict[str, Any] = {"dataset": data.name, "queries": len(queries), "option": option,
                              "zscore": run_option(engine, queries, data.qrels, "zscore", "")}
    if option == "hyde":
        engine.retriever.llm = llm
        report["zscore+hyde"] = run_option(engine, queries, data.qrels, "zscore+hyde", "hyde.generate")
        return report
    pipe = engine.answer_pipeline()
    pipe.settings = pipe.settings.model_copy(update={"retrieval": pipe.settings.retrieval.model_copy(
        update={"reranker": "llm", "rerank_depth": depth})})
    engine.retriever.reranker = LLMReranker(llm)
    report["zscore+rerank"] = run_option(engine, queries, data.qrels, "zscore+rerank", "rerank")
    return report


if __name__ == "__main__":
    raise SystemExit(main())
