"""Answer quality on the demo corpus: ``groundsearch eval --answers-demo demo``.

The BEIR-layout ``eval --answers`` ingests a dataset's own corpus; the questions here are about the product's
own knowledge base instead (README, ``docs/``, the demo releases and papers: the store ``./run demo`` builds), so
they run on that store. Each labelled row names its gold strings and the file that states them, or no gold
string when the corpus does not answer it. Everything else is ``answers.py``'s: the same ``Engine.search`` path,
the same judging of one answer (``score_case``) and the same figures (``aggregate``), per split and per kind:

* **answerable** — answer-line recall, gold in the prose, the share with an answer line, support, citation
  precision (a cited chunk comes from the file the row names) and **false abstention** (the prose says it found
  nothing although the corpus states the answer);
* **unanswerable** — **abstention**, and how often an answer line was stated anyway.

Misses are listed (question, answer line) for every split except a held-out one, whose rows are only ever
counted, so the half stays blind while the tuning half is read and fixed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import InvalidInput
from ..types import SearchRequest, SearchResponse
from .answers import OPEN_LIMIT, AnswerCase, CaseResult, aggregate, answer_line, run_condition

__all__ = ["DEFAULT_FILES", "default_paths", "format_demo_report", "load_questions", "run_demo_answers"]

DEFAULT_FILES = ("demo-answers-tune.jsonl", "demo-answers-heldout.jsonl")
ANSWERABLE_KEYS = ("queries", "answer_line_recall", "prose_recall", "answer_line_rate", "support_rate",
                   "citation_precision", "abstention", "p50_ms", "p95_ms", "p95_ratio_to_retrieval")
UNANSWERABLE_KEYS = ("queries", "abstention", "answer_line_rate")
_NAMES = {("answerable", "abstention"): "false_abstention", ("unanswerable", "answer_line_rate"): "line_stated"}


def default_paths() -> list[Path]:
    data = resources.files("groundsearch.evaluation") / "data"
    return [Path(str(data / name)) for name in DEFAULT_FILES]


def load_questions(paths: Sequence[Path]) -> list[dict[str, Any]]:
    """Rows ``{id, split, lang, question, answers, source}``; ``answers`` empty (and ``source`` null) for a
    question the corpus does not answer."""
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            for n, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                row = json.loads(line)
                answers = row.get("answers")
                if (not isinstance(row.get("id"), str) or not isinstance(row.get("question"), str)
                        or not isinstance(answers, list) or not all(isinstance(a, str) for a in answers)
                        or bool(answers) != isinstance(row.get("source"), str) or row["id"] in seen):
                    raise InvalidInput(f"{path}, line {n}: a row needs a unique 'id', a 'question', 'answers' (a "
                                       f"list of strings, empty when the corpus does not answer) and a 'source' "
                                       f"file exactly when it has answers", details={"path": str(path), "line": n})
                seen.add(row["id"])
                rows.append(row)
    return rows


def relevant_ids(store: Any, root: Path, rows: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, int]]:
    """qrels in ``answers.score_case``'s terms: each answerable row's relevant documents are the items stored
    from the file it names (the demo ingest keys every item by its absolute source path)."""
    sources = sorted({str(root / r["source"]) for r in rows if r["source"]})
    by_source: dict[str, set[str]] = {}
    for collection in ("docs", "releases", "papers"):
        for source, items in store.source_hashes(sources, collection, "").items():
            by_source.setdefault(source, set()).update(i.split(":", 1)[-1] for i in items)
    return {r["id"]: {d: 1 for d in by_source.get(str(root / r["source"]), ())} for r in rows if r["source"]}


def _miss(row: Mapping[str, Any], result: CaseResult, response: SearchResponse) -> dict[str, Any] | None:
    if row["answers"] and result.line_hit and result.prose_hit:
        return None
    if not row["answers"] and result.abstained:
        return None
    line = answer_line(response)
    return {"id": row["id"], "question": row["question"], "want": row["answers"] or "abstain",
            "line": line, "abstained": result.abstained, "prose_hit": result.prose_hit,
            "prose": [s.text[:160] for s in response.prose.sentences[:3]]}


def run_demo_answers(rows: Sequence[Mapping[str, Any]], demo_dir: Path, data_dir: Path,
                     progress: Callable[[str, int, int], None] | None = None) -> dict[str, Any]:
    """Scores per split and kind (answerable / unanswerable), plus the misses of every non-held-out split.
    ``data_dir`` keeps the demo store between runs (ingest skips unchanged files)."""
    from .intent_fidelity import build_demo_engine

    report = progress or (lambda task, done, total: None)
    cases = {r["id"]: AnswerCase(r["id"], r["question"], tuple(r["answers"])) for r in rows}
    requests = {r["id"]: SearchRequest(query=r["question"], limit=OPEN_LIMIT) for r in rows}
    responses: dict[str, SearchResponse] = {}
    engine = build_demo_engine(demo_dir, data_dir)
    try:
        qrels = relevant_ids(engine.store, demo_dir.resolve().parent, rows)
        report("demo answers", 0, len(requests))
        results = run_condition(engine, cases, requests, qrels, lambda n: report("demo answers", n, len(requests)),
                                seen=lambda qid, response: responses.__setitem__(qid, response))
    finally:
        engine.close()
    by_id = {r["id"]: r for r in rows}
    out: dict[str, Any] = {"questions": len(rows), "splits": {}, "misses": []}
    for split in dict.fromkeys(r.get("split", "all") for r in rows):
        mine = [res for res in results if by_id[res.qid].get("split", "all") == split]
        kinds = {"answerable": ([res for res in mine if by_id[res.qid]["answers"]], ANSWERABLE_KEYS),
                 "unanswerable": ([res for res in mine if not by_id[res.qid]["answers"]], UNANSWERABLE_KEYS)}
        out["splits"][split] = {kind: {_NAMES.get((kind, k), k): v for k, v in aggregate(rs).as_json().items()
                                       if k in keys}
                                for kind, (rs, keys) in kinds.items() if rs}
        if "heldout" not in split:
            out["misses"] += [m for res in mine if (m := _miss(by_id[res.qid], res, responses[res.qid]))]
    return out


def format_demo_report(report: Mapping[str, Any]) -> str:
    lines = [f"demo corpus: {report['questions']} questions"]
    for split, kinds in report["splits"].items():
        for kind, scores in kinds.items():
            lines.append(f"{split + '/' + kind:28} " + "  ".join(f"{k}={v}" for k, v in scores.items()))
    for miss in report["misses"]:
        lines.append(f"  miss {miss['id']}: {miss['question']!r} want {miss['want']} line {miss['line']!r}"
                     f"{' (abstained)' if miss['abstained'] else ''}")
    return "\n".join(lines)
