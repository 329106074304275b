#!/usr/bin/env python3
"""Trending topics on the demo releases and papers, as Markdown (the figures in BENCHMARKS.md and docs/curation.md).

    .venv/bin/python scripts/trending_demo.py [--horizon-days 90] [--limit 8]

Ingests demo/releases.jsonl and demo/papers.jsonl into a temporary store with the hash embedder — trending counts
entity mentions of dated items, which ingest extracts the same way whatever the embedder — and prints each
topic's counts, window and tier through the same ``curation.trending_topics`` the API serves.
"""

from __future__ import annotations

import argparse
import datetime as dt
import tempfile
from pathlib import Path

from groundsearch.curation import trending_topics
from groundsearch.engine import Engine
from groundsearch.settings import load_settings
from groundsearch.types import SearchFilter

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--horizon-days", type=int, default=90)
    ap.add_argument("--limit", type=int, default=8)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(ROOT / "demo" / "groundsearch.toml", env={}, data_dir=tmp, embedder="hash")
        with Engine.open(settings) as engine:
            for name in ("releases", "papers"):
                report = engine.ingest([ROOT / "demo" / f"{name}.jsonl"], name)
                assert not report.errors, report.errors
            print(f"today {dt.date.today()}, horizon {args.horizon_days} days\n")
            for collection in ("releases", "papers"):
                for mode in ("default", "temporal", "thematic"):
                    f = SearchFilter(collections=(collection,), tenant="")
                    r = trending_topics(engine.store, settings.collections, f, mode=mode,
                                        horizon_days=args.horizon_days, limit=args.limit)
                    print(f"### {collection}, mode={mode}: window {r.window.start} – {r.window.end}; baseline "
                          f"{r.baseline_windows[0].start} – {r.baseline_windows[-1].end}; "
                          f"{r.items_considered} dated items in the span\n")
                    print("| topic | tier | items | sources | per earlier window | burst z |"
                          + (" related |" if mode == "thematic" else ""))
                    print("|---|---|---|---|---|---|" + ("---|" if mode == "thematic" else ""))
                    for t in r.topics:
                        related = ", ".join(f"{o} ({n})" for o, n in t.related)
                        print(f"| {t.topic} | {t.tier} | {t.items} | {t.sources} | {'/'.join(map(str, t.baseline))} "
                              f"| {t.score} |" + (f" {related} |" if mode == "thematic" else ""))
                    print()


if __name__ == "__main__":
    main()
