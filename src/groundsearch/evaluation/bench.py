"""``groundsearch bench``: speed figures measured side by side in one process, printed as medians and ratios.

The machine this runs on is shared and noisy, so no figure is compared against a constant: each system is
timed against its baseline in the same process, on the same queries, in interleaved rounds (A B, B A, …),
and the medians of the rounds and their ratio are what we report.

Suites:

* ``keyword`` — the store's keyword leg vs bm25s over the same SciFact chunks and terms (queries/s, ratio);
* ``vector`` — the store's vector leg vs exact numpy search (``bench_store.bench_vector_leg``);
* ``scaling`` — hybrid query latency at growing chunk counts on synthetic text and random unit vectors
  (``bench_store.bench_scaling``);
* ``ingest`` — SciFact through the real ingest pipeline, with and without embeddings (chunks/s);
* ``memory`` — resident memory of an engine serving hybrid SciFact queries, and the process peak.
"""

from __future__ import annotations

import datetime as dt
import os
import platform
import resource
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..errors import InvalidInput
from ..settings import Settings
from ..types import SearchRequest
from .datasets import BeirDataset, load_beir
from .metrics import percentile
from .runner import COLLECTION, Bm25sBaseline, Progress, _settings, eval_collection, open_eval_engine, run_profile

__all__ = ["SUITES", "machine_info", "parse_sizes", "parse_suites", "run_bench", "timed_rounds"]

SUITES: tuple[str, ...] = ("keyword", "vector", "scaling", "ingest", "memory", "threads", "auditor")
# Named only, never part of "all": it needs the `compare` extra (lancedb) the product does not depend on.
OPTIONAL_SUITES: tuple[str, ...] = ("lancedb",)
DEFAULT_DATASET = Path("../shared/datasets/beir_scifact")
# Nine interleaved rounds of 300 queries (~0.2 s a round for both systems): on this shared 2-core box the
# speed of the whole machine drifts by 1.5× within seconds, so more rounds steady the medians cheaply.
ROUNDS = 9
DEPTH = 100
VECTOR_N = 100_000
# Embedding dominates ingest (MiniLM on 2 cores); 1,000 abstracts give a stable chunks/s in a few minutes,
# where the whole corpus would take the bench several times longer for the same rate.
INGEST_EMBED_DOCS = 1000
VECTOR_DIM = 384
VECTOR_QUERIES = 200


def parse_suites(spec: str | Sequence[str]) -> tuple[str, ...]:
    names = [n.strip() for n in (spec.split(",") if isinstance(spec, str) else spec) if n.strip()]
    if names == ["all"]:
        return SUITES
    unknown = [n for n in names if n not in SUITES + OPTIONAL_SUITES]
    if unknown or not names:
        raise InvalidInput(f"unknown bench suite(s) {unknown}; choose from {', '.join(SUITES + OPTIONAL_SUITES)} "
                           "or all",
                           details={"field": "suite", "value": unknown})
    return tuple(dict.fromkeys(names))


def parse_sizes(spec: str | Sequence[int]) -> tuple[int, ...]:
    try:
        sizes = [int(s) for s in (spec.split(",") if isinstance(spec, str) else spec) if str(s).strip()]
    except ValueError as exc:
        raise InvalidInput(f"--sizes takes comma-separated integers, got {spec!r}", details={"field": "sizes"}) from exc
    if not sizes or any(s < 1 for s in sizes):
        raise InvalidInput(f"--sizes must be positive integers, got {spec!r}", details={"field": "sizes"})
    return tuple(sizes)


def machine_info() -> dict[str, Any]:
    """What BENCHMARKS.md records next to every figure: cores, CPU model, RAM, Python, date."""
    import psutil

    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "date": dt.datetime.now().isoformat(timespec="seconds"),
        "nproc": os.cpu_count(),
        "cpu": model,
        "ram_gib": round(psutil.virtual_memory().total / 2**30, 1),
        "python": platform.python_version(),
    }


def peak_rss_mib() -> float:
    """Peak resident set of this process so far (Linux reports ``ru_maxrss`` in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def rss_mib() -> float:
    import psutil

    return psutil.Process().memory_info().rss / 2**20


def timed_rounds(
    systems: dict[str, Callable[[str], object]], queries: Sequence[str], rounds: int,
    progress: Callable[[int], None] | None = None,
) -> dict[str, dict[str, float]]:
    """Run every system over all queries, ``rounds`` times, alternating which goes first each round.

    Returns per system the median queries/s over rounds, each round's queries/s (``qps_rounds``, in round
    order, so two systems' rounds pair up) and per-query p50/p95 (ms) over all runs.
    """
    names = list(systems)
    qps: dict[str, list[float]] = {n: [] for n in names}
    per_query: dict[str, list[float]] = {n: [] for n in names}
    for r in range(rounds):
        for name in names if r % 2 == 0 else reversed(names):
            fn = systems[name]
            start = time.perf_counter()
            for q in queries:
                t = time.perf_counter()
                fn(q)
                per_query[name].append((time.perf_counter() - t) * 1000)
            qps[name].append(len(queries) / (time.perf_counter() - start))
        if progress is not None:
            progress(r + 1)
    return {n: {"qps_median": statistics.median(qps[n]), "p50_ms": percentile(per_query[n], 50),
                "p95_ms": percentile(per_query[n], 95), "qps_rounds": qps[n]} for n in names}


# ---- suites -----------------------------------------------------------------------------------------


class _Context:
    """What several suites share within one run: the dataset, a keyword-only index and its timing."""

    def __init__(self, dataset_dir: str | Path | None, base: Settings | None, progress: Progress,
                 cache_root: Path | None) -> None:
        self._dataset_dir = Path(dataset_dir) if dataset_dir else DEFAULT_DATASET
        self.base = base
        self.cache_root = cache_root
        self.progress = progress
        self._dataset: BeirDataset | None = None
        self._tmp = tempfile.TemporaryDirectory(prefix="groundsearch-bench-")
        self.ingests: dict[bool, dict[str, Any]] = {}
        self._keyword_engine: Any = None

    @property
    def dataset(self) -> BeirDataset:
        if self._dataset is None:
            if not self._dataset_dir.is_dir():
                raise InvalidInput(f"{self._dataset_dir}: SciFact not found; pass --dataset DIR (BEIR layout)",
                                   details={"path": str(self._dataset_dir)})
            self._dataset = load_beir(self._dataset_dir)
        return self._dataset

    def ingest(self, embed: bool, docs: int | None = None) -> tuple[Any, dict[str, Any]]:
        """SciFact (or its first ``docs`` documents) into a fresh data dir through ``Engine.ingest``."""
        from ..engine import Engine
        from ..models.factory import build_embedder

        spec = eval_collection(self.dataset)
        root = Path(self._tmp.name) / ("embedded" if embed else "keyword")
        settings = _settings(self.base, root / "data", "minilm", spec)
        source = self.dataset.corpus_file
        if docs is not None:
            source = root / "corpus.jsonl"
            with open(self.dataset.corpus_file, encoding="utf-8") as fh:
                source.parent.mkdir(parents=True, exist_ok=True)
                source.write_text("".join(line for _, line in zip(range(docs), fh)), encoding="utf-8")
        engine = Engine.open(settings, embedder=build_embedder(settings))
        total = docs or len(self.dataset.corpus)
        self.progress(f"ingest{'+embed' if embed else ''}", 0, total)
        started = time.perf_counter()
        report = engine.ingest([source], COLLECTION, embed=embed)
        seconds = time.perf_counter() - started
        self.progress(f"ingest{'+embed' if embed else ''}", total, total)
        if report.errors:
            engine.close()
            raise InvalidInput(f"ingesting {self.dataset.corpus_file} failed: {report.errors[0][1]}")
        figures = {"chunks": report.chunks_written, "seconds": round(seconds, 2),
                   "chunks_per_s": round(report.chunks_written / seconds, 1)}
        self.ingests[embed] = figures
        return engine, figures

    def keyword_engine(self) -> Any:
        """The keyword-only SciFact index ``groundsearch eval --retrievers bm25`` caches (built if absent)."""
        if self._keyword_engine is None:
            self._keyword_engine = open_eval_engine(self.dataset, base_settings=self.base, cache_root=self.cache_root,
                                                    progress=self.progress, embed=False)
        return self._keyword_engine

    def close(self) -> None:
        if self._keyword_engine is not None:
            self._keyword_engine.close()
        self._tmp.cleanup()


def bench_keyword(ctx: _Context, rounds: int = ROUNDS) -> dict[str, Any]:
    engine = ctx.keyword_engine()
    baseline = Bm25sBaseline.from_engine(engine, ctx.dataset)
    f = engine.build_filter(SearchRequest(query="x"))
    queries = list(ctx.dataset.queries.values())
    systems: dict[str, Callable[[str], object]] = {
        "groundsearch_keyword": lambda q: engine.store.keyword_search(q, f, DEPTH),
        "bm25s": lambda q: baseline.search(q, DEPTH),
    }
    for q in queries[:20]:  # warm caches of both before timing
        for fn in systems.values():
            fn(q)
    ctx.progress("keyword", 0, rounds)
    timings = timed_rounds(systems, queries, rounds, lambda r: ctx.progress("keyword", r, rounds))
    ours, theirs = timings["groundsearch_keyword"], timings["bm25s"]
    # Each round times both systems back to back, so a per-round ratio cancels the machine's drift between
    # rounds; its spread says how far to trust the headline ratio of medians.
    paired = [a / b for a, b in zip(ours.pop("qps_rounds"), theirs.pop("qps_rounds"))]
    return {
        "corpus": f"{ctx.dataset.name} ({len(ctx.dataset.corpus)} chunks)", "queries": len(queries),
        "rounds": rounds, "depth": DEPTH, **{k: _round(v) for k, v in timings.items()},
        "ratio_qps_keyword_over_bm25s": round(ours["qps_median"] / theirs["qps_median"], 2),
        "ratio_per_round": {"min": round(min(paired), 2), "median": round(statistics.median(paired), 2),
                            "max": round(max(paired), 2)},
    }


def bench_threads_suite(ctx: _Context) -> dict[str, Any]:
    """Hybrid p50 with the engine's BLAS threading vs pinned vs the library default (``bench_threads.py``)."""
    from .bench_threads import bench_threads

    engine = open_eval_engine(ctx.dataset, base_settings=ctx.base, cache_root=ctx.cache_root,
                              progress=ctx.progress, embed=True)
    try:
        ctx.progress("threads", 0, 1)
        figures = bench_threads(engine, list(ctx.dataset.queries.values()))
        ctx.progress("threads", 1, 1)
    finally:
        engine.close()
    return {"corpus": f"{ctx.dataset.name} ({len(ctx.dataset.corpus)} chunks)", **figures}


def bench_lancedb_suite(ctx: _Context) -> dict[str, Any]:
    """Hybrid top-10 beside LanceDB on the same stored texts and vectors (``bench_lancedb.py``)."""
    from .bench_lancedb import bench_lancedb

    engine = open_eval_engine(ctx.dataset, base_settings=ctx.base, cache_root=ctx.cache_root,
                              progress=ctx.progress, embed=True)
    try:
        figures = bench_lancedb(engine, list(ctx.dataset.queries.values()))
    finally:
        engine.close()
    return {"corpus": f"{ctx.dataset.name} ({len(ctx.dataset.corpus)} chunks)", **figures}


def bench_vector(ctx: _Context) -> dict[str, Any]:
    """At 100k vectors the store scans exactly by default; the forced-HNSW run shows the graph's speed and recall."""
    from .bench_store import bench_vector_leg

    ctx.progress("vector", 0, 2)
    default = dict(bench_vector_leg(VECTOR_N, VECTOR_DIM, VECTOR_QUERIES, 0))
    ctx.progress("vector", 1, 2)
    hnsw = dict(bench_vector_leg(VECTOR_N, VECTOR_DIM, VECTOR_QUERIES, 0, exact_vector_max=0))
    ctx.progress("vector", 2, 2)
    return {"default_mode": default, "forced_hnsw": hnsw}


def bench_scaling_suite(ctx: _Context, sizes: Sequence[int]) -> dict[str, Any]:
    from .bench_store import bench_scaling

    started = time.perf_counter()
    result = dict(bench_scaling(list(sizes)))
    result.setdefault("data", "synthetic text and random unit vectors (not SciFact)")
    result["wall_seconds"] = round(time.perf_counter() - started, 1)
    return result


def bench_ingest(ctx: _Context) -> dict[str, Any]:
    engine, _ = ctx.ingest(embed=False)
    engine.close()
    engine, with_embed = ctx.ingest(embed=True, docs=INGEST_EMBED_DOCS)
    engine.close()
    return {"corpus": ctx.dataset.name, "without_embedding": ctx.ingests[False],
            "with_embedding_minilm": with_embed,
            "note": f"with embedding: the first {INGEST_EMBED_DOCS} SciFact documents (a rate, same kind of text)"}


def bench_memory(ctx: _Context) -> dict[str, Any]:
    """RSS of an engine with MiniLM loaded over the SciFact index, after serving every query hybrid."""
    before = rss_mib()
    engine = open_eval_engine(ctx.dataset, base_settings=ctx.base, cache_root=ctx.cache_root, progress=ctx.progress)
    latencies = []
    try:
        opened = rss_mib()
        queries = list(ctx.dataset.queries.values())
        for i, q in enumerate(queries, start=1):
            t = time.perf_counter()
            run_profile(engine, "hybrid", q, limit=10)
            latencies.append((time.perf_counter() - t) * 1000)
            if i % 50 == 0:
                ctx.progress("memory", i, len(queries))
        served = rss_mib()
    finally:
        engine.close()
    return {
        "rss_before_open_mib": round(before, 1), "rss_engine_open_mib": round(opened, 1),
        "rss_after_queries_mib": round(served, 1), "hybrid_top10_p50_ms": round(percentile(latencies, 50), 2),
        "hybrid_top10_p95_ms": round(percentile(latencies, 95), 2), "process_peak_rss_mib": round(peak_rss_mib(), 1),
    }


def _round(d: dict[str, float]) -> dict[str, float]:
    return {k: round(v, 2) for k, v in d.items()}


def run_bench(
    suites: str | Sequence[str] = "all",
    sizes: str | Sequence[int] = (10_000, 100_000),
    *,
    dataset_dir: str | Path | None = None,
    base_settings: Settings | None = None,
    cache_root: Path | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Run the chosen suites in order; returns ``{"machine": ..., "suites": {name: figures}}``."""
    chosen, size_list = parse_suites(suites), parse_sizes(sizes)
    report = progress or (lambda task, done, total: None)
    ctx = _Context(dataset_dir, base_settings, report, cache_root)
    out: dict[str, Any] = {"machine": machine_info(), "suites": {}}
    try:
        for name in chosen:
            started = time.perf_counter()
            if name == "keyword":
                figures = bench_keyword(ctx)
            elif name == "vector":
                figures = bench_vector(ctx)
            elif name == "scaling":
                figures = bench_scaling_suite(ctx, size_list)
            elif name == "ingest":
                figures = bench_ingest(ctx)
            elif name == "threads":
                figures = bench_threads_suite(ctx)
            elif name == "lancedb":
                figures = bench_lancedb_suite(ctx)
            elif name == "auditor":
                from .bench_auditor import bench_auditor  # pure: no index, no model

                figures = bench_auditor()
            else:
                figures = bench_memory(ctx)
            figures["suite_seconds"] = round(time.perf_counter() - started, 1)
            figures["process_peak_rss_mib"] = round(peak_rss_mib(), 1)
            out["suites"][name] = figures
    finally:
        ctx.close()
    return out
