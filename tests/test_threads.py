"""Engine start holds numpy's BLAS pool to ``retrieval.blas_threads`` (the legs already run concurrently)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def blas_threads_after_open(blas_threads: int) -> int:
    """In a fresh interpreter (the BLAS pool is process-wide): open an engine, report BLAS threads."""
    code = textwrap.dedent(f"""
        import tempfile
        from threadpoolctl import threadpool_info
        from groundsearch.engine import Engine
        from tests.api.live import make_settings
        from pathlib import Path
        tmp = Path(tempfile.mkdtemp())
        s = make_settings(tmp)
        s = s.model_copy(update={{"retrieval": s.retrieval.model_copy(update={{"blas_threads": {blas_threads}}})}})
        from groundsearch.models.fake import HashEmbedder
        Engine.open(s, embedder=HashEmbedder()).close()
        print(max(p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "OPENBLAS_NUM_THREADS": "2"}, cwd=ROOT)
    return int(out.stdout.strip().splitlines()[-1])


def test_engine_pins_blas_to_one_thread_by_default() -> None:
    assert blas_threads_after_open(1) == 1


def test_zero_leaves_the_library_default() -> None:
    assert blas_threads_after_open(0) == 2
