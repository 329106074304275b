"""A real local LLM for tier-3 tests: llama-cpp-python's OpenAI-compatible server over the pinned GGUF.

Both are built by ``scripts/setup_llm.sh``. Missing pieces skip these tests on a developer machine and
*fail* them under CI (``CI=true``), so CI can never go green without having run tier 3 for real.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

CACHE = Path(
    os.environ.get("GROUNDSEARCH_LLM_CACHE")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "groundsearch"
)
SERVER_PYTHON = CACHE / "llm-venv" / "bin" / "python"
GGUF = CACHE / "llm" / "model.gguf"
# 1 thread by default: on an idle 2-core box 2 threads decode ~1.4x faster (MODELS.md), but when the cores are
# shared llama.cpp's spinning thread barriers collapse (measured 1.8 s/token with 2 threads vs 0.15 s/token
# with 1 at load ~15), and the test suite runs beside other work. GROUNDSEARCH_LLM_THREADS=2 on a quiet box.
# Prompt evaluation has its own thread count, which the server defaults to cpu_count (2), not n_threads, so
# both are set. (Decode at load ~20 on 2026-12-01: 4.8 s/token with 2 threads, 0.38 s/token with 1; prompt
# evaluation was ~5 tokens/s either way at load 12-15, so the batch setting alone is no cure for a busy box.)
THREADS = os.environ.get("GROUNDSEARCH_LLM_THREADS", "1")


def missing(what: str) -> None:
    message = f"{what} is missing: run scripts/setup_llm.sh (builds llama-cpp-python's server and the GGUF)"
    if os.environ.get("CI") == "true":
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass(frozen=True)
class LocalServer:
    base_url: str
    gguf: Path


@pytest.fixture(scope="session")
def gguf() -> Path:
    if not GGUF.is_file():
        missing(f"the local GGUF ({GGUF})")
    return GGUF


@pytest.fixture(scope="session")
def llama_server(gguf: Path, tmp_path_factory) -> Iterator[LocalServer]:
    reuse = os.environ.get("GROUNDSEARCH_LLM_SERVER")  # e.g. http://127.0.0.1:8431/v1: one already serving this GGUF
    if reuse:
        # on a shared 2-core box a second model server halves the first one's share of the CPU. Start a shared
        # one with --interrupt_requests False, or each client's request cuts off the others' streamed answers.
        if httpx.get(f"{reuse.rstrip('/')}/models", timeout=300).status_code != 200:  # busy decoding: slow
            pytest.fail(f"GROUNDSEARCH_LLM_SERVER={reuse} does not answer /models")
        yield LocalServer(base_url=reuse.rstrip("/"), gguf=gguf)
        return
    if not SERVER_PYTHON.is_file():
        missing(f"the llama.cpp server venv ({SERVER_PYTHON})")
    port = _free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [str(SERVER_PYTHON), "-m", "llama_cpp.server", "--model", str(gguf), "--host", "127.0.0.1",
             "--port", str(port), "--n_ctx", "2048", "--n_threads", THREADS, "--n_threads_batch", THREADS,
             # the server's default ends a streamed answer when another request arrives (measured 2026-12-01: an
             # eval sharing the server got empty model replies for the 6 minutes these tests ran): queue instead
             "--interrupt_requests", "False"],
            stdout=out, stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 180
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama.cpp server exited with {proc.returncode}: {log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{base}/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"llama.cpp server did not answer /v1/models within 180 s: {log.read_text()[-2000:]}")
            time.sleep(0.5)
        yield LocalServer(base_url=base, gguf=gguf)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="session")
def llama_cpp_module():
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        missing(f"llama-cpp-python in this interpreter ({sys.executable})")
    return llama_cpp
