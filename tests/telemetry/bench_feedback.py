"""How much the feedback boost can move results, on the demo corpus with the load test's queries.

    .venv/bin/python -m tests.telemetry.bench_feedback --config /tmp/groundsearch-load/load-default.toml

(the load test, tests/api/load.py, ingests the demo corpus there). For each query, the weighted profile's top 10
is compared: without marks, with one "useful" mark on every result (each from its own request), and with two
"useful" marks on the item ranked k (k = 2…10): how many places it rises and the largest score gap it crossed.
Marks go to a throw-away telemetry file, never the store's.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from groundsearch.engine import Engine
from groundsearch.settings import load_settings
from groundsearch.store.sqlite_telemetry import SQLiteTelemetry
from groundsearch.types import SearchRequest
from tests.api.load import QUERIES


def top(engine: Engine, query: str) -> tuple[str, list[tuple[str, float]]]:
    r = engine.search(SearchRequest(query=query, profile="weighted", limit=10))
    seen: dict[str, float] = {}
    for hit in r.results:
        seen.setdefault(hit.item_id, hit.score)
    return r.diagnostics.request_id or "", list(seen.items())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", type=Path, required=True)
    args = parser.parse_args()
    settings = load_settings(args.config)
    out = {"queries": 0, "reordered_no_marks": 0, "reordered_one_mark_each": 0, "two_marks": []}
    with Engine.open(settings) as opened, tempfile.TemporaryDirectory() as tmp:
        for q in QUERIES:
            telemetry = SQLiteTelemetry.open(Path(tmp) / f"{abs(hash(q))}.sqlite")
            engine = Engine(settings, opened.store, opened.embedder, telemetry=telemetry)
            _, base = top(engine, q)
            order = [i for i, _ in base]
            out["queries"] += 1
            out["reordered_no_marks"] += [i for i, _ in top(engine, q)[1]] != order
            for item in order:
                rid, _ = top(engine, q)
                engine.add_feedback(rid, item, True)
            out["reordered_one_mark_each"] += [i for i, _ in top(engine, q)[1]] != order
            scores = dict(base)
            for k in range(1, min(10, len(order))):
                telemetry.close()
                telemetry = SQLiteTelemetry.open(Path(tmp) / f"{abs(hash(q))}-{k}.sqlite")
                engine = Engine(settings, opened.store, opened.embedder, telemetry=telemetry)
                for _ in range(2):
                    rid, _ = top(engine, q)
                    engine.add_feedback(rid, order[k], True)
                now = [i for i, _ in top(engine, q)[1]]
                new_rank = now.index(order[k]) if order[k] in now else None
                passed = order[new_rank:k] if new_rank is not None else []
                gap = max((scores[p] / scores[order[k]] - 1 for p in passed), default=0.0)
                out["two_marks"].append({"rank": k + 1, "new_rank": None if new_rank is None else new_rank + 1,
                                         "largest_gap_crossed": round(gap, 5)})
            telemetry.close()
    moved = [m for m in out["two_marks"] if m["new_rank"] and m["new_rank"] < m["rank"]]
    out["summary"] = {"boosted_items": len(out["two_marks"]), "rose": len(moved),
                      "mean_places_risen": round(sum(m["rank"] - m["new_rank"] for m in moved) / len(out["two_marks"]), 3),
                      "max_places_risen": max((m["rank"] - m["new_rank"] for m in moved), default=0),
                      "largest_gap_crossed": max((m["largest_gap_crossed"] for m in out["two_marks"]), default=0)}
    print(json.dumps({k: v for k, v in out.items() if k != "two_marks"}, indent=1))


if __name__ == "__main__":
    main()
