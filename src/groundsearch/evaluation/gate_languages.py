"""How often the relevance gate calls a request low-confidence on the demo corpus, per language, on-topic and off.

On-topic: the labelled intent requests (every one is about the demo corpus). Off-topic: ``offtopic-dev.jsonl``
(calibration) and ``offtopic-heldout.jsonl`` (committed before the gate was changed), nine languages each.
A good gate fires rarely on the first and nearly always on the second; "not judged" (the request is in a
language the embedder does not read) is counted apart, since it is neither.

``python -m groundsearch.evaluation.gate_languages [FILE.jsonl …]`` prints one JSON document.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from ..types import SearchRequest
from .intent_fidelity import build_demo_engine

__all__ = ["DEFAULT_FILES", "gate_table"]

DATA = Path(__file__).parent / "data"
DEFAULT_FILES = ("intents-heldout3.jsonl", "intents-dev.jsonl", "offtopic-dev.jsonl", "offtopic-heldout.jsonl")


def _rows(files: list[str]) -> list[dict[str, Any]]:
    rows = []
    for name in files:
        path = Path(name) if Path(name).exists() else DATA / name
        for line in path.read_text("utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                row["set"] = path.stem
                rows.append(row)
    return rows


def gate_table(engine: Any, rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """``set:lang`` → n, low-confidence share, not-judged share (from the plan's own reason)."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for row in rows:
        response = engine.search(SearchRequest(query=row["query"]))
        key = f"{row['set']}:{row.get('lang', '-')}"
        counts[key]["n"] += 1
        counts[key]["low"] += any(r.kind == "low-confidence" for r in response.structured_results)
        reasons = (response.diagnostics.plan or {}).get("reasons", [])
        counts[key]["not_judged"] += any(str(x).startswith("gate not judged") for x in reasons)
    return {k: {"n": c["n"], "low_confidence": round(c["low"] / c["n"], 4),
                "not_judged": round(c["not_judged"] / c["n"], 4)} for k, c in sorted(counts.items())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("files", nargs="*", default=list(DEFAULT_FILES))
    parser.add_argument("--demo", default="demo")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="gs-gate-") as tmp:
        engine = build_demo_engine(Path(args.demo), Path(tmp) / "data")
        try:
            print(json.dumps(gate_table(engine, _rows(args.files)), indent=1))
        finally:
            engine.close()
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
