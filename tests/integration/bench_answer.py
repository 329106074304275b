"""Full-request latency of the answer pipeline on the demo corpus (not a test: prints figures).

Run: ``.venv/bin/python tests/integration/bench_answer.py [--data-dir DIR] [--rounds 5] [--llm-url URL]``

Opens (ingesting if empty) the demo corpus with the real MiniLM embedder in a SQLite store, then times, in
one process and interleaved request by request so machine noise hits both alike:

* ``retrieve only`` — the "hybrid" plan profile through the product planner, executed (query embedded afresh),
  no answer: the baseline;
* ``answer, stored sentences, intent cached`` — as the next, but with the intent cache on like the baseline's
  planner (after the warm-up both reuse the classification): the answer's own cost against retrieval's;
* ``answer, stored sentences`` — ``Engine.search`` with no intent cache, the query vector and the in-process
  sentence-vector cache forgotten each time: a first sight of every sentence, read from the store's
  sentence vectors (embedded at ingest, ``store/sentence_rows.py``);
* ``answer, embed on first sight`` — the same, with the store's sentence vectors not consulted: every
  candidate sentence embedded on the request, as before they were stored;
* ``answer, warm caches`` — ``Engine.search`` on repeated requests (intent, query and sentence vectors cached);
* ``answer + LLM`` — with ``--llm-url`` (an OpenAI-compatible server such as llama.cpp's), narration on.

Reports wall-clock p50 / p95 per configuration, the ratios of medians and of p95s to the baseline's, and
process CPU time (all threads) p50 / p95, which a busy shared machine distorts far less than wall time.
A store ingested before sentence vectors existed gets them first (``embed_sentences``, timed).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from groundsearch.answer.sentence_vectors import sentence_vectors_for
from groundsearch.engine import Engine
from groundsearch.ingest.embed_worker import embed_sentences
from groundsearch.query.planner import PLAN_PROFILES
from groundsearch.settings import load_settings
from groundsearch.types import SearchRequest

ROOT = Path(__file__).resolve().parents[2]
QUERIES = (
    "How does HippoRAG use Personalized PageRank?",
    "How does groundsearch fuse keyword and vector results?",
    "What's the latest AI trends for research and product releases. share this in a table",
    "create a tornado diagram of recent news trends",
    "what's trending in AI research and product launches?",
    "retrieval augmented generation papers",
    "how do I install groundsearch",
    "vector database releases in the last 3 months",
    "compare LangChain vs LlamaIndex releases",
    "timeline of agent framework releases",
    "bar chart of papers on dense retrieval per month",
    "how do Reciprocal Rank Fusion and BM25 relate",
)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def open_demo(data_dir: Path, **overrides: object) -> Engine:
    settings = load_settings(ROOT / "demo" / "groundsearch.toml", env={}, data_dir=data_dir, **overrides)
    engine = Engine.open(settings)
    if engine.store.count() == 0:
        t, cpu = time.perf_counter(), time.process_time()
        engine.ingest([ROOT / "README.md", *([ROOT / "docs"] if (ROOT / "docs").is_dir() else [])], "docs")
        engine.ingest([ROOT / "demo" / "releases.jsonl"], "releases")
        engine.ingest([ROOT / "demo" / "papers.jsonl"], "papers")
        print(f"ingested the demo corpus in {time.perf_counter() - t:.1f} s wall, {time.process_time() - cpu:.1f} s CPU")
    t, cpu = time.perf_counter(), time.process_time()
    done, _ = embed_sentences(engine.store, engine.embedder)  # a store from before sentence vectors: backfill
    if done:
        print(f"embedded the sentences of {done} chunks in {time.perf_counter() - t:.1f} s wall, "
              f"{time.process_time() - cpu:.1f} s CPU")
    return engine


HYBRID = PLAN_PROFILES["hybrid"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, default=ROOT / ".cache" / "bench-demo")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--llm-url", default=None, help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8088/v1")
    parser.add_argument("--llm-model", default="local")
    args = parser.parse_args()

    engine = open_demo(args.data_dir)
    # the same store and embedder with the intent cache off and query vectors forgotten before each
    # request: every request classifies and embeds from scratch, like a first-time query
    base = Engine(engine.settings, engine.store, engine.embedder)
    no_intent_cache = engine.settings.model_copy(update={"intent": engine.settings.intent.model_copy(
        update={"cache_size": 0})})
    cold = Engine(no_intent_cache, engine.store, engine.embedder)
    like_base = Engine(engine.settings, engine.store, engine.embedder)  # intent cached, as the baseline's is
    unstored = Engine(no_intent_cache, engine.store, engine.embedder)
    sentence_vectors_for(unstored.retriever).store = None  # the answer path as it was before stored sentences

    def first_sight(e: Engine) -> Callable[[SearchRequest], object]:
        return lambda r: (e.retriever.clear_cache(), sentence_vectors_for(e.retriever).clear(), e.search(r))

    runs: dict[str, Callable[[SearchRequest], object]] = {
        "retrieve only (baseline)": lambda r: (base.retriever.clear_cache(),
                                               base.retrieve(base.answer_pipeline().plan(r, profile=HYBRID)[1])),
        "answer, stored sentences, intent cached": first_sight(like_base),
        "answer, stored sentences": first_sight(cold),
        "answer, embed on first sight": first_sight(unstored),
        "answer, warm caches": engine.search,
    }
    llm_engine = None
    if args.llm_url:
        from groundsearch.models.llm import build_llm

        llm_settings = engine.settings.llm.model_copy(
            update={"base_url": args.llm_url, "models": (args.llm_model,), "timeout_s": 60.0})
        llm_engine = Engine(engine.settings.model_copy(update={"llm": llm_settings}), engine.store, engine.embedder,
                            build_llm(llm_settings))
        runs["answer + LLM narration (warm intent)"] = llm_engine.search
    for q in QUERIES:  # warm-up: model sessions, prototype embeddings, first-touch of the indexes
        for fn in runs.values():
            fn(SearchRequest(query=q))

    timings: dict[str, list[float]] = {name: [] for name in runs}
    cpu: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(args.rounds):
        for q in QUERIES:
            request = SearchRequest(query=q)
            for name, fn in runs.items():
                t, c = time.perf_counter(), time.process_time()
                fn(request)
                timings[name].append((time.perf_counter() - t) * 1000)
                cpu[name].append((time.process_time() - c) * 1000)  # all threads of this process

    baseline = statistics.median(timings["retrieve only (baseline)"])
    base95 = percentile(timings["retrieve only (baseline)"], 0.95)
    print(f"{len(QUERIES)} requests x {args.rounds} rounds, demo corpus ({engine.store.count()} items)")
    print(f"{'configuration':44} {'p50 ms':>8} {'p95 ms':>8} {'p50 x base':>10} {'p95 x base':>10} "
          f"{'CPU p50':>8} {'CPU p95':>8}")
    for name, values in timings.items():
        p50, p95 = statistics.median(values), percentile(values, 0.95)
        print(f"{name:44} {p50:8.1f} {p95:8.1f} {p50 / baseline:10.2f} {p95 / base95:10.2f} "
              f"{statistics.median(cpu[name]):8.1f} {percentile(cpu[name], 0.95):8.1f}")
    vectors = sentence_vectors_for(cold.retriever)
    print(f"stored-sentences run: {vectors.stored} sentence vectors read from the store, {vectors.misses} embedded")
    cold.retriever.close()  # these share the store, closed below
    like_base.retriever.close()
    unstored.retriever.close()
    base.retriever.close()
    if llm_engine is not None:
        llm_engine.retriever.close()  # shares the store, closed below
    engine.close()


if __name__ == "__main__":
    main()
