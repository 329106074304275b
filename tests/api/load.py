"""Load test for ``POST /api/search`` on the demo corpus, on loopback, bounded in time.

Run it (about 2 minutes the first time, which ingests the demo corpus into ``--data-dir``)::

    .venv/bin/python -m tests.api.load --clients 16 --seconds 30

Phases, all in one run so the figures are comparable:

1. ``engine``  — ``Engine.search`` called directly, one caller: the work itself, no HTTP (the baseline);
2. ``http-1``  — one HTTP client against ``groundsearch serve``: the same work plus the API;
3. ``http-N``  — ``--clients`` concurrent HTTP clients for ``--seconds``: throughput and tail latency;
4. ``limited`` — the same clients against a server with the default limit (30 searches/min): the only
   non-200 answers allowed anywhere are these deliberate 429s.

The server runs as a separate process (``groundsearch serve``), so the load generator does not share its GIL.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import AsyncExitStack, contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
DEMO_CONFIG = ROOT / "demo" / "groundsearch.toml"
QUERIES = (
    "What's the latest AI trends for research and product releases. share this in a table",
    "create a tornado diagram of recent news trends",
    "what's trending in AI research and product launches?",
    "retrieval augmented generation evaluation",
    "hybrid search with BM25 and vectors",
    "how do I configure the embedder",
    "langchain releases in the last 90 days",
    "papers about dense passage retrieval",
)


@dataclass(frozen=True)
class PhaseReport:
    name: str
    clients: int
    seconds: float
    requests: int
    throughput_rps: float
    p50_ms: float
    p95_ms: float
    p99_ms: float
    status: dict[str, int]


def percentile(sorted_ms: list[float], q: float) -> float:
    """Nearest-rank percentile: a value that was actually observed, no interpolation."""
    if not sorted_ms:
        return float("nan")
    rank = max(1, min(len(sorted_ms), round(q / 100 * len(sorted_ms) + 0.5)))
    return sorted_ms[rank - 1]


def summarise(name: str, clients: int, elapsed: float, samples: list[tuple[int, float]]) -> PhaseReport:
    ok = sorted(ms for status, ms in samples if status == 200)
    return PhaseReport(name=name, clients=clients, seconds=round(elapsed, 2), requests=len(samples),
                       throughput_rps=round(len(ok) / elapsed, 2), p50_ms=round(percentile(ok, 50), 1),
                       p95_ms=round(percentile(ok, 95), 1), p99_ms=round(percentile(ok, 99), 1),
                       status=dict(Counter(str(s) for s, _ in samples)))


def run_direct(search: Callable[[str], object], seconds: float) -> PhaseReport:
    samples: list[tuple[int, float]] = []
    queries = itertools.cycle(QUERIES)
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        t = time.perf_counter()
        search(next(queries))
        samples.append((200, (time.perf_counter() - t) * 1000))
    return summarise("engine", 1, time.perf_counter() - start, samples)


def run_http(url: str | Sequence[str], *, clients: int, seconds: float, name: str) -> PhaseReport:
    """``clients`` concurrent keep-alive clients posting searches for ``seconds``; every answer is recorded.
    Several URLs (API workers): client ``i`` talks to worker ``i mod len(urls)``."""
    urls = [url] if isinstance(url, str) else list(url)

    async def main() -> tuple[float, list[tuple[int, float]]]:
        samples: list[tuple[int, float]] = []
        limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
        async with AsyncExitStack() as stack:
            pool = [await stack.enter_async_context(httpx.AsyncClient(base_url=u, timeout=60, limits=limits))
                    for u in urls]
            start = time.perf_counter()

            async def worker(offset: int) -> None:
                client = pool[offset % len(pool)]
                queries = itertools.islice(itertools.cycle(QUERIES), offset, None)
                while time.perf_counter() - start < seconds:
                    t = time.perf_counter()
                    try:
                        r = await client.post("/api/search", json={"query": next(queries)})
                        status = r.status_code
                    except httpx.HTTPError:
                        status = 0  # transport failure: counted, never hidden
                    samples.append((status, (time.perf_counter() - t) * 1000))

            await asyncio.gather(*(worker(i) for i in range(clients)))
            return time.perf_counter() - start, samples

    elapsed, samples = asyncio.run(main())
    return summarise(name, clients, elapsed, samples)


@contextmanager
def server(config: Path, data_dir: Path, search_per_minute: int | None) -> Iterator[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GROUNDSEARCH_", "GROQ_"))}
    demo = "\n".join(line for line in config.read_text().splitlines() if not line.startswith("data_dir"))
    limit = f"[api]\nsearch_per_minute = {search_per_minute}\n\n" if search_per_minute else ""
    cfg = data_dir.parent / f"load-{search_per_minute or 'default'}.toml"
    cfg.write_text(f'data_dir = "{data_dir}"\n\n{limit}{demo}\n', encoding="utf-8")
    exe = Path(sys.executable).parent / "groundsearch"
    proc = subprocess.Popen([str(exe), "--config", str(cfg), "serve", "--port", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        if not line.startswith("groundsearch serving on"):
            raise RuntimeError(f"server did not start: {line!r} {proc.stderr.read() if proc.stderr else ''}")
        url = line.split()[3].rstrip("/")
        httpx.post(f"{url}/api/search", json={"query": "warm up"}, timeout=120)  # load models before timing
        yield url
    finally:
        proc.terminate()
        proc.wait(20)


def prepare(data_dir: Path) -> Callable[[], object]:
    """Ingest the demo corpus into ``data_dir`` (idempotent: a second run re-embeds nothing)."""
    from groundsearch.engine import Engine
    from groundsearch.settings import load_settings

    settings = load_settings(DEMO_CONFIG, env={}, data_dir=data_dir)
    engine = Engine.open(settings)
    docs = [ROOT / "README.md"] + ([ROOT / "docs"] if (ROOT / "docs").is_dir() else [])
    for paths, collection in ((docs, "docs"), ([ROOT / "demo" / "releases.jsonl"], "releases"),
                              ([ROOT / "demo" / "papers.jsonl"], "papers")):
        engine.ingest(paths, collection)
    return lambda: engine


def run_all(data_dir: Path, *, clients: int = 16, seconds: float = 30.0, baseline_seconds: float = 10.0,
            limited_seconds: float = 5.0) -> list[PhaseReport]:
    """Every phase in order; returns one report per phase (see the module docstring)."""
    from groundsearch.types import SearchRequest

    engine = prepare(data_dir)()
    try:
        for q in QUERIES:  # warm caches the same way the server gets warmed
            engine.search(SearchRequest(query=q))  # type: ignore[attr-defined]
        reports = [run_direct(lambda q: engine.search(SearchRequest(query=q)), baseline_seconds)]  # type: ignore[attr-defined]
    finally:
        engine.close()  # type: ignore[attr-defined]
    with server(DEMO_CONFIG, data_dir, 10_000_000) as url:
        for q in QUERIES:
            httpx.post(f"{url}/api/search", json={"query": q}, timeout=120)
        reports.append(run_http(url, clients=1, seconds=baseline_seconds, name="http-1"))
        reports.append(run_http(url, clients=clients, seconds=seconds, name=f"http-{clients}"))
    with server(DEMO_CONFIG, data_dir, None) as url:
        reports.append(run_http(url, clients=clients, seconds=limited_seconds, name="limited"))
    return reports


def print_table(reports: Sequence[PhaseReport]) -> None:
    print(f"{'phase':<9} {'clients':>7} {'secs':>6} {'requests':>8} {'ok/s':>7} {'p50 ms':>7} {'p95 ms':>7} "
          f"{'p99 ms':>7}  status")
    for r in reports:
        print(f"{r.name:<9} {r.clients:>7} {r.seconds:>6} {r.requests:>8} {r.throughput_rps:>7} {r.p50_ms:>7} "
              f"{r.p95_ms:>7} {r.p99_ms:>7}  {r.status}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--data-dir", type=Path, default=Path("/tmp/groundsearch-load/data"))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    args.data_dir.parent.mkdir(parents=True, exist_ok=True)
    reports = run_all(args.data_dir, clients=args.clients, seconds=args.seconds)
    if args.json:
        print(json.dumps([asdict(r) for r in reports], indent=2))
        return
    print_table(reports)
    engine, http1 = reports[0], reports[1]
    print(f"API overhead at one client: p50 {http1.p50_ms / engine.p50_ms:.2f}x the direct engine call")
    bad = {s: n for r in reports for s, n in r.status.items() if s != "200" and not (s == "429" and r.name == "limited")}
    print("errors other than deliberate 429s:", bad or "none")


if __name__ == "__main__":
    main()
