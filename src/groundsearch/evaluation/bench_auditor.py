"""``groundsearch bench --suite auditor``: what the auditor's pure layers cost per paragraph.

L1 must stay under 1 ms per paragraph (issue 13) so it can run on every paragraph of every streamed reply. The
suite audits a fixed reply — paragraphs of ~60–90 words with links (kept, rescued, stripped), a generic label,
an ungrounded study name, numbers and names — against a dossier of 8 sources of ~1,500 characters, and times
L1 (all units of one paragraph) and L2 the same way, in interleaved rounds. The same-run baseline is the
entity extraction ingest already runs on every chunk (``extract_entities`` over the paragraph). Pure; no model,
no network.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from ..answer.auditor import Constraints
from ..answer.auditor.l1_text import l1_fix, source_haystack
from ..answer.auditor.l2_constraints import check
from ..answer.auditor.units import split_units
from ..ingest.entities import extract_entities

__all__ = ["LIMIT_MS", "bench_auditor", "bench_dossier", "bench_paragraphs"]

LIMIT_MS = 1.0
ROUNDS = 200

_FILLER = ("Hybrid retrieval runs a keyword leg and a vector leg and fuses them with reciprocal rank fusion. "
           "The keyword leg reads impact-ordered postings; the vector leg searches an HNSW graph. ")


def bench_dossier() -> Constraints:
    names = ["Acme Search", "Tantivy", "Initech", "Quickwit", "LanceDB", "Atlas", "Beacon", "Globex Labs"]
    sources = {f"s{i}": f"{name} release notes. {name} cut query latency by {10 + 5 * i}% in 2025. " + _FILLER * 7
               + f" https://docs.example/{name.lower().replace(' ', '-')}" for i, name in enumerate(names)}
    return Constraints(supported_entities=tuple(names),
                       source_urls=tuple(f"https://docs.example/{n.lower().replace(' ', '-')}" for n in names),
                       canonical_urls={n: f"https://docs.example/{n.lower().replace(' ', '-')}" for n in names},
                       sources=sources)


def bench_paragraphs() -> list[str]:
    return [
        "Acme Search cut query latency by 10% in 2025 [1]. It reads impact-ordered postings, see "
        "[click here](https://docs.example/acme-search). The Harlow Retention Study reports the same for Tantivy. "
        "Tantivy  powers the keyword leg , and Quickwit builds on it [2].",
        "Initech moved to hybrid retrieval last year. According to Gartner, every team should. More at "
        "https://made-up.example/hybrid for details. LanceDB keeps vectors on disk [3], and Atlas documents "
        "its setup at https://docs.example/atlas/old-page which moved.",
        "## Results\nBeacon cut query latency by 40% with Globex Labs [4]. \"Fusion beats either leg alone,\" "
        "said the Quickwit team. Smith et al. (2021) found the same.Fusion is cheap because both legs run "
        "concurrently and the top ten are hydrated once.",
    ]


def _ms(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {"p50_ms": round(statistics.median(ordered) * 1000, 4),
            "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))] * 1000, 4)}


def bench_auditor(rounds: int = ROUNDS) -> dict[str, Any]:
    constraints = bench_dossier()
    paragraphs = bench_paragraphs()
    started = time.perf_counter()
    haystack = source_haystack(constraints)
    haystack_s = time.perf_counter() - started
    units = [[u for _, _, u in split_units(p)] for p in paragraphs]
    l1: list[float] = []
    l2: list[float] = []
    base: list[float] = []
    for _ in range(rounds):
        for para, pieces in zip(paragraphs, units, strict=True):
            t = time.perf_counter()
            fixed = [l1_fix(u, constraints, haystack).text for u in pieces]
            l1.append(time.perf_counter() - t)
            t = time.perf_counter()
            for u in fixed:
                if u:
                    check(u, constraints, haystack)
            l2.append(time.perf_counter() - t)
            t = time.perf_counter()
            extract_entities(para)
            base.append(time.perf_counter() - t)
    l1_ms, l2_ms, base_ms = _ms(l1), _ms(l2), _ms(base)
    return {
        "paragraphs": len(paragraphs), "rounds": rounds,
        "words_per_paragraph": [len(p.split()) for p in paragraphs],
        "source_chars": sum(len(s) for s in constraints.sources.values()),
        "l1_per_paragraph": l1_ms, "l2_per_paragraph": l2_ms, "extract_entities_baseline": base_ms,
        "l1_vs_baseline_p50": round(l1_ms["p50_ms"] / base_ms["p50_ms"], 2) if base_ms["p50_ms"] else None,
        "haystack_once_per_reply_ms": round(haystack_s * 1000, 3),
        "limit_ms": LIMIT_MS, "ok": l1_ms["p50_ms"] < LIMIT_MS,
    }
