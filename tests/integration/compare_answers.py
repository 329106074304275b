"""Did a speed change change an answer? Dump and compare full answers to the demo-answers questions (not a test).

Dump (run once per code version, each on its own copy of the demo store; ``PYTHONPATH=<that code>/src``):
    ``python tests/integration/compare_answers.py dump --data-dir COPY --out before.json``
Compare:
    ``python tests/integration/compare_answers.py diff before.json after.json``

Every question of ``demo-answers-tune.jsonl`` and ``demo-answers-heldout.jsonl`` goes through ``Engine.search``
(the path ``eval --answers-demo`` scores, the same page size) and its whole answer is kept: every prose sentence
with its citations and audit marks, the prose mode, the structured results and the cited result ids. ``diff``
prints the number of questions whose answer differs, and the ids of the differing tuning questions; a held-out
question is only counted (its answer is never printed, so the half stays blind).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from groundsearch.evaluation.answers import OPEN_LIMIT
from groundsearch.evaluation.demo_answers import default_paths, load_questions
from groundsearch.evaluation.intent_fidelity import build_demo_engine
from groundsearch.types import SearchRequest, SearchResponse

ROOT = Path(__file__).resolve().parents[2]


def answer_of(response: SearchResponse) -> dict[str, Any]:
    """What a reader of the answer sees: the prose (sentences, citations, marks, mode), the structured results
    and the result ids in order. Latency and other diagnostics are left out: they differ on every run."""
    return {"prose": response.prose.model_dump(mode="json"),
            "structured": [r.model_dump(mode="json") for r in response.structured_results],
            "results": [r.id for r in response.results]}


def dump(data_dir: Path, out: Path) -> None:
    rows = load_questions(default_paths())
    engine = build_demo_engine(ROOT / "demo", data_dir)
    try:
        answers = {r["id"]: {"split": r.get("split", "all"),
                             "answer": answer_of(engine.search(SearchRequest(query=r["question"], limit=OPEN_LIMIT)))}
                   for r in rows}
    finally:
        engine.close()
    out.write_text(json.dumps(answers, ensure_ascii=False, sort_keys=True, indent=1), encoding="utf-8")
    print(f"{len(answers)} answers written to {out}")


def diff(before: Path, after: Path) -> int:
    a = json.loads(before.read_text(encoding="utf-8"))
    b = json.loads(after.read_text(encoding="utf-8"))
    if a.keys() != b.keys():
        print(f"different question sets: {len(a)} vs {len(b)}")
        return 2
    differing = [q for q in a if a[q]["answer"] != b[q]["answer"]]
    held = [q for q in differing if "heldout" in a[q]["split"]]
    shown = [q for q in differing if q not in held]
    print(f"{len(a)} questions, {len(differing)} answers differ ({len(held)} held-out, counted only)")
    for q in shown:
        print(f"  differs: {q}")
    return 1 if differing else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dump")
    d.add_argument("--data-dir", type=Path, required=True, help="a private copy of demo/data")
    d.add_argument("--out", type=Path, required=True)
    c = sub.add_parser("diff")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    args = parser.parse_args()
    if args.command == "dump":
        dump(args.data_dir, args.out)
    else:
        sys.exit(diff(args.before, args.after))


if __name__ == "__main__":
    main()
