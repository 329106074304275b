"""The recall bench's bookkeeping: perturbed copies are counted apart from real vectors, and recall is measured
against exact search (on a set small enough that the widest ef must find every true neighbour). Random vectors:
this checks the arithmetic, not HNSW quality (the figures come from real vectors, see BENCHMARKS.md)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

from groundsearch.evaluation.bench_recall import EF_SWEEP, bench_recall


def test_copies_are_counted_apart_and_recall_is_against_exact() -> None:
    rng = np.random.default_rng(1)
    m = rng.standard_normal((300, 16)).astype(np.float32)
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    # one build thread: a parallel build inserts in a different order each run, and now and then such a graph
    # missed 3 of 100 neighbours even at the widest ef (seen in CI); one thread builds the same graph every run
    out = bench_recall(m, m[:10], copies=3, sigma=0.01, threads=1)
    assert (out["vectors"], out["real_vectors"], out["perturbed_copies"]) == (900, 300, 600)
    assert set(out["hnsw"]) == {str(ef) for ef in EF_SWEEP}
    assert out["hnsw"][str(EF_SWEEP[-1])]["recall_at_10"] == 1.0
    assert out["smallest_ef_for_0.95"] in EF_SWEEP


# A fresh interpreter: the crash this guards against kills the process, so it cannot be caught in this one.
# The bench, then onnxruntime, as the full suite ran it (this file, then test_bench's MiniLM engine).
BENCH_THEN_ONNXRUNTIME = """
import numpy as np
from groundsearch.evaluation.bench_recall import bench_recall
m = np.random.default_rng(1).standard_normal((50, 8)).astype(np.float32)
m /= np.linalg.norm(m, axis=1, keepdims=True)
bench_recall(m, m[:2], threads=1)
import onnxruntime
print("survived")
"""


def test_onnxruntime_loads_after_the_bench_in_the_same_process() -> None:
    """bench_recall imported ``usearch.index`` itself, so onnxruntime loaded after it: SIGSEGV (-11) on import with
    onnxruntime 1.31.1 + usearch 2.26.6. It now imports usearch through the store, which loads onnxruntime first."""
    out = subprocess.run([sys.executable, "-c", BENCH_THEN_ONNXRUNTIME], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "survived", (out.returncode, out.stderr[-2000:])
