"""A 1M-row vector corpus grown from real MiniLM vectors, real queries, and exact ground truth (issue 15).

There is no 1M-text corpus here and MiniLM embeds a few chunks per second on the shared cores, so the
million rows are *derived*: every stored chunk vector of the finished eval caches (and the chat demo's store)
is real, and each derived row is ``normalise(x_i + t·(x_j − x_i) + σ·g)`` — a point on the segment from a
real vector ``x_i`` towards one of its 10 nearest real neighbours ``x_j`` (``t`` uniform in [0, ½]), plus
Gaussian noise ``g`` per dimension. Interpolating between real neighbours keeps the new rows on the region the
embedder actually fills instead of making isotropic clumps around each original; the noise keeps copies apart.
``nn_profile`` reports the nearest-neighbour cosine distribution of the real set and of the derived rows so
the density can be judged. Each derived row carries the text of ``x_i`` (its origin) for the keyword leg.

Queries are real: SciFact claims and MuSiQue questions embedded by the store's embedder. Truth is exact numpy
top 10 (and the 10th score, for the tie-aware recall of ``bench_recall``).

    OMP_NUM_THREADS=1 nice -n 15 .venv/bin/python -m groundsearch.evaluation.recall_corpus --out /tmp/recall1m

``--subset-of DIR --keep-origins F`` writes a smaller corpus of the same density (``origin_subset``), where a
graph setting costs a tenth of a 1M build to compare::

    .venv/bin/python -m groundsearch.evaluation.recall_corpus --subset-of /tmp/recall1m --out /tmp/recall-sub10
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

import numpy as np

from .bench_recall import CACHE, TIE_EPS

__all__ = ["derived_corpus", "exact_truth", "load_corpus", "nn_profile", "real_rows", "sample_queries",
           "tie_aware_recall", "write_corpus"]

DEMO_STORE = CACHE / "chat-demo" / "data" / "store" / "store.sqlite3"
NEIGHBOURS = 10
QUERIES_PER_SET = 150  # 300 queries in all: exact truth over 1M and each sweep point stay cheap on shared cores
PROFILE_ROWS = 300
SAMPLE = 300  # queries per sweep point: keeps every sweep under ~3 minutes on the persisted indexes
MODEL = "normalise(x_i + t*(x_j - x_i) + sigma*g), x_j one of x_i's 10 nearest real neighbours, t ~ U(0, 0.5)"


def real_rows(cache: Path = CACHE, dim: int = 384) -> tuple[np.ndarray, list[str], list[str]]:
    """Every stored chunk vector (with its text) of the finished MiniLM caches and the chat demo store."""
    stores = [s for s in sorted(cache.glob("*MiniLM*/store/store.sqlite3")) if (s.parents[1] / "complete.json").exists()]
    if DEMO_STORE.exists():
        stores.append(DEMO_STORE)
    blobs: list[bytes] = []
    texts: list[str] = []
    names = []
    for store in stores:
        conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
        try:
            model = conn.execute("SELECT value FROM meta WHERE key = 'user.embedder'").fetchone()
            rows = conn.execute("SELECT vector, text FROM chunks WHERE vector IS NOT NULL ORDER BY key").fetchall()
        finally:
            conn.close()
        if model is not None and "MiniLM" not in model[0]:
            continue  # another embedder's space: not comparable
        blobs.extend(r[0] for r in rows)
        texts.extend(r[1] for r in rows)
        label = store.parents[1].name.split("-")[0] if store != DEMO_STORE else "chat-demo"
        names.append(f"{label} ({len(rows)})")
    matrix = np.frombuffer(b"".join(blobs), dtype="<f4").reshape(len(blobs), dim).astype(np.float32)
    return matrix, texts, names


def derived_corpus(real: np.ndarray, total: int, sigma: float, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``total`` rows: the real ones first, then derived rows; and each row's origin (index into ``real``)."""
    rng = np.random.default_rng(seed)
    sims = real @ real.T
    np.fill_diagonal(sims, -np.inf)
    near = np.argpartition(-sims, NEIGHBOURS, axis=1)[:, :NEIGHBOURS]
    extra = total - len(real)
    origin = np.concatenate([np.arange(len(real)), np.arange(extra) % len(real)]).astype(np.int32)
    out = np.empty((total, real.shape[1]), dtype=np.float32)
    out[: len(real)] = real
    for start in range(0, extra, 100_000):
        idx = origin[len(real) + start : len(real) + min(extra, start + 100_000)]
        partner = near[idx, rng.integers(0, NEIGHBOURS, len(idx))]
        t = rng.uniform(0.0, 0.5, (len(idx), 1)).astype(np.float32)
        block = real[idx] + t * (real[partner] - real[idx])
        block += rng.normal(0.0, sigma, block.shape).astype(np.float32)
        block /= np.linalg.norm(block, axis=1, keepdims=True)
        out[len(real) + start : len(real) + start + len(idx)] = block
    return out, origin


def nn_profile(matrix: np.ndarray, rows: np.ndarray) -> dict[str, float]:
    """Percentiles of each sampled row's nearest-neighbour cosine within ``matrix`` (itself excluded)."""
    best = np.empty(len(rows), dtype=np.float32)
    for start in range(0, len(rows), 64):
        part = rows[start : start + 64]
        sims = matrix[part] @ matrix.T
        sims[np.arange(len(part)), part] = -np.inf
        best[start : start + len(part)] = sims.max(axis=1)
    return {f"p{q}": round(float(np.percentile(best, q)), 4) for q in (10, 25, 50, 75, 90)}


def exact_truth(matrix: np.ndarray, queries: np.ndarray, k: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """Exact top ``k`` row ids per query, best first, and their cosine scores (numpy, batched)."""
    ids = np.empty((len(queries), k), dtype=np.int64)
    scores = np.empty((len(queries), k), dtype=np.float32)
    for start in range(0, len(queries), 32):
        sims = queries[start : start + 32] @ matrix.T
        top = np.argpartition(-sims, k, axis=1)[:, :k]
        part = np.take_along_axis(sims, top, axis=1)
        order = np.argsort(-part, axis=1, kind="stable")
        ids[start : start + 32] = np.take_along_axis(top, order, axis=1)
        scores[start : start + 32] = np.take_along_axis(part, order, axis=1)
    return ids, scores


def real_queries(datasets: Path, per_set: int = QUERIES_PER_SET) -> tuple[list[str], list[str]]:
    """The first ``per_set`` SciFact claims and MuSiQue questions (file order), with where each came from."""
    from .datasets import read_queries

    texts, sources = [], []
    for name in ("beir_scifact", "hipporag_musique"):
        qs = list(read_queries(datasets / name / "queries.jsonl").values())[:per_set]
        texts += qs
        sources += [name] * len(qs)
    return texts, sources


def tie_aware_recall(found_scores: np.ndarray, tenth: float) -> float:
    """Share of the 10 returned rows at least as near as the true 10th neighbour (within float rounding)."""
    return float(np.count_nonzero(np.asarray(found_scores[:10]) >= tenth - TIE_EPS)) / 10


def sample_queries(n: int, size: int = SAMPLE) -> np.ndarray:
    """The same ``size`` query indices every run (all of them when there are fewer)."""
    return np.sort(np.random.default_rng(7).choice(n, min(n, size), replace=False))


def load_corpus(out: Path) -> dict[str, Any]:
    """The persisted corpus (memory-mapped vectors), queries and truth written by :func:`main`."""
    meta = json.loads((out / "meta.json").read_text())
    truth = np.load(out / "truth.npz")
    return {"meta": meta, "vectors": np.load(out / "vectors.npy", mmap_mode="r"),
            "origin": np.load(out / "origin.npy"), "queries": np.load(out / "queries.npy"),
            "truth_ids": truth["ids"], "truth_scores": truth["scores"]}


def origin_subset(src: Path, out: Path, keep: float, seed: int = 2) -> dict[str, Any]:
    """A smaller corpus as dense as ``src``: every row (real or derived) whose origin is one of a random
    ``keep`` share of the real rows, the same queries, exact truth recomputed over the kept rows. A prefix of
    the 1M rows would thin every neighbourhood (9.5 derived rows per real one at 100k instead of 104) and
    with it the difficulty this is meant to reproduce at a cost the shared machine can pay."""
    corpus = load_corpus(src)
    meta = {k: v for k, v in corpus["meta"].items() if k not in ("seconds", "load", "nn_cosine")}
    real = int(meta["real_rows"])
    kept_origins = np.sort(np.random.default_rng(seed).choice(real, max(1, round(keep * real)), replace=False))
    rows = np.flatnonzero(np.isin(corpus["origin"], kept_origins))
    matrix = np.ascontiguousarray(corpus["vectors"][rows])
    origin = np.searchsorted(kept_origins, corpus["origin"][rows]).astype(np.int32)
    texts = json.loads((src / "texts.json").read_text())
    meta.update(rows=len(rows), real_rows=len(kept_origins), derived_rows=len(rows) - len(kept_origins),
                subset_of=str(src), keep_origins=keep, seed=seed, nn_cosine={
                    "derived_within_all": nn_profile(matrix, np.random.default_rng(1).choice(len(rows), PROFILE_ROWS,
                                                                                          replace=False))})
    write_corpus(out, matrix, origin, corpus["queries"], [texts[i] for i in kept_origins], meta)
    return meta


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--total", type=int, default=1_000_000)
    parser.add_argument("--sigma", type=float, default=0.02)
    parser.add_argument("--datasets", type=Path, default=Path("../shared/datasets"))
    parser.add_argument("--profile-only", action="store_true", help="print the NN profile, write nothing")
    parser.add_argument("--subset-of", type=Path, help="write a density-preserving subset of this corpus instead")
    parser.add_argument("--keep-origins", type=float, default=0.1, help="with --subset-of: share of real rows kept")
    args = parser.parse_args(argv)
    if args.subset_of:
        print(json.dumps(origin_subset(args.subset_of, args.out, args.keep_origins), indent=2))
        return
    started = time.perf_counter()
    real, texts, names = real_rows()
    matrix, origin = derived_corpus(real, args.total, args.sigma)
    rng = np.random.default_rng(1)
    profile = {
        "real_within_real": nn_profile(real, rng.choice(len(real), PROFILE_ROWS, replace=False)),
        "derived_within_all": nn_profile(matrix, len(real) + rng.choice(args.total - len(real), PROFILE_ROWS, replace=False)),
        "real_within_all": nn_profile(matrix, rng.choice(len(real), PROFILE_ROWS, replace=False)),
    }
    meta: dict[str, Any] = {"sources": names, "rows": args.total, "real_rows": len(real),
                            "derived_rows": args.total - len(real), "sigma": args.sigma,
                            "model": MODEL, "nn_cosine": profile}
    if args.profile_only:
        print(json.dumps(meta, indent=2))
        return
    from ..models.factory import build_embedder
    from ..settings import load_settings

    qtexts, qsources = real_queries(args.datasets)
    queries = np.asarray(build_embedder(load_settings(env={})).embed_queries(qtexts), dtype=np.float32)
    meta.update(queries=len(queries), query_sources={s: qsources.count(s) for s in set(qsources)})
    write_corpus(args.out, matrix, origin, queries, texts, meta)
    meta.update(seconds=round(time.perf_counter() - started, 1), load=os.getloadavg()[0])
    (args.out / "meta.json").write_text(json.dumps(meta, indent=2))
    print(json.dumps(meta, indent=2))


def write_corpus(out: Path, matrix: np.ndarray, origin: np.ndarray, queries: np.ndarray, texts: list[str],
                 meta: dict[str, Any]) -> None:
    """Persist what :func:`load_corpus` reads, with the exact truth computed here."""
    ids, scores = exact_truth(matrix, queries)
    out.mkdir(parents=True, exist_ok=True)
    np.save(out / "vectors.npy", matrix)
    np.save(out / "origin.npy", origin)
    np.save(out / "queries.npy", queries)
    np.savez(out / "truth.npz", ids=ids, scores=scores)
    (out / "texts.json").write_text(json.dumps(texts))
    (out / "meta.json").write_text(json.dumps(meta, indent=2))


if __name__ == "__main__":
    main()
