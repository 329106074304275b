"""``groundsearch eval --chat``: scripted multi-turn conversations through the real turn loop on the demo corpus.

Per turn it records what a user would see and scores it against the budget of issue 13:

* citation validity — every ``[n]`` in a reply names a source of that turn's dossier;
* silent drops — audited units that vanished without a trace line saying why (must be 0);
* share of sentences marked — units the auditor replaced by its "could not verify" marker;
* rerolls per turn — corrective rewrites the auditor asked the model for;
* handoff precision (handoffs to the specialist the conversation is labelled for / all handoffs) and recall;
* model prose — turns whose reply is the model's own text (not the extractive answer standing in for a tool
  call), and of those the ones the auditor marked nothing in;
* first-token and total latency p50/p95 against 3 s / 8 s. "First token" is the turn's first ``token`` event
  when the model streams, else its ``reply`` event (offline, the first moment answer text exists).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["format_chat_report", "load_conversations", "load_records", "report_of", "run_chat_eval",
           "score_conversations"]

FIRST_TOKEN_BUDGET_MS = 3000.0
TOTAL_BUDGET_MS = 8000.0
_CITE = re.compile(r"\[(\d{1,3})\]")


def load_conversations(paths: Iterable[str | Path]) -> list[dict[str, Any]]:
    rows = []
    for path in paths:
        split = Path(path).stem.removeprefix("chat-")
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                if len(row["turns"]) < 1:
                    raise ValueError(f"{path}: conversation {row['id']} has no turns")
                rows.append({**row, "split": row.get("split", split)})
    return rows


def _silent_drops(audit: dict[str, Any]) -> int:
    trace = " ".join(audit.get("trace") or ())
    return sum(1 for u in audit.get("units") or () if not u.get("text") and u.get("original")
               and u["original"][:40] not in trace and not u.get("reasons"))


def _pct(values: Sequence[float], q: float) -> float | None:
    return round(float(np.percentile(values, q)), 1) if values else None


def run_conversation(turn: Callable[..., Iterable[Any]], row: dict[str, Any],
                     on_turn: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """Each turn of one conversation as a record (the fold of its events plus the timings); ``on_turn`` sees
    each record as soon as its turn ends."""
    records, cid = [], f"eval-{row['id']}-{time.time_ns()}"
    for index, message in enumerate(row["turns"]):
        started = time.perf_counter()
        first_ms = None
        seen: dict[str, Any] = {}
        for event in turn(message, conversation_id=cid):
            if event.name in ("token", "reply") and first_ms is None:
                first_ms = (time.perf_counter() - started) * 1000
            if event.name in ("dossier", "discovery", "handoff", "audit", "reply", "complete"):
                seen[event.name] = dict(event.data)
            if event.name == "reply" and "audit" in event.data:
                seen["audit"] = dict(event.data["audit"])  # the whole turn's, not the last paragraph's
        total_ms = (time.perf_counter() - started) * 1000
        records.append({"conversation": row["id"], "split": row["split"], "turn": index + 1, "of": len(row["turns"]),
                        "expect_handoff": row.get("expect_handoff"), "first_ms": first_ms, "total_ms": total_ms,
                        **seen})
        if on_turn is not None:
            on_turn(records[-1])
    return records


def score_conversations(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    cites = valid = marked = units = rerolls = drops = questions = fallbacks = llm_turns = 0
    handoffs = right = 0
    prose = prose_passed = 0
    expected = {r["conversation"]: r["expect_handoff"] for r in records}
    got: dict[str, set[str]] = {}
    for r in records:
        numbers = {s["n"] for s in r["dossier"]["sources"]}
        found = [int(n) for n in _CITE.findall(r["reply"]["text"])]
        cites += len(found)
        valid += sum(n in numbers for n in found)
        audit = r.get("audit") or {}
        marked += int(audit.get("marked") or 0)
        units += len(audit.get("units") or ())
        rerolls += int(audit.get("rerolls") or 0)
        drops += _silent_drops(audit)
        questions += "discovery" in r
        fallbacks += r["reply"]["mode"] == "fallback"
        llm_turns += r["reply"]["mode"] == "llm"
        if ((r.get("complete") or {}).get("diagnostics") or {}).get("reply_by") == "model":
            prose += 1
            prose_passed += not audit.get("marked")  # rerolled units count as passed: they were repaired
        if "handoff" in r:
            handoffs += 1
            right += r["handoff"]["target"] == r["expect_handoff"]
            got.setdefault(r["conversation"], set()).add(r["handoff"]["target"])
    due = [c for c, e in expected.items() if e]
    first = [r["first_ms"] for r in records if r["first_ms"] is not None]
    total = [r["total_ms"] for r in records]
    return {
        "conversations": len(expected), "turns": len(records), "llm_turns": llm_turns,
        "conversation_ids": sorted(expected),
        "model_prose_turns": prose, "model_prose_passed": prose_passed,
        "citations": cites, "citation_validity": round(valid / cites, 4) if cites else None,
        "silent_drops": drops, "units": units, "marked_share": round(marked / units, 4) if units else None,
        "rerolls_per_turn": round(rerolls / len(records), 3) if records else None,
        "discovery_turns": questions, "fallback_turns": fallbacks,
        "handoffs": handoffs, "handoff_precision": round(right / handoffs, 4) if handoffs else None,
        "handoff_recall": round(sum(expected[c] in got.get(c, ()) for c in due) / len(due), 4) if due else None,
        "first_token_ms": {"p50": _pct(first, 50), "p95": _pct(first, 95), "budget": FIRST_TOKEN_BUDGET_MS,
                           "within": round(sum(v <= FIRST_TOKEN_BUDGET_MS for v in first) / len(first), 4) if first else None},
        "total_ms": {"p50": _pct(total, 50), "p95": _pct(total, 95), "budget": TOTAL_BUDGET_MS,
                     "within": round(sum(v <= TOTAL_BUDGET_MS for v in total) / len(total), 4) if total else None},
    }


def run_chat_eval(rows: Sequence[dict[str, Any]], demo_dir: Path, data_dir: Path, *,
                  llm: dict[str, Any] | None = None, progress: Callable[[str], None] | None = None,
                  records_out: Path | None = None) -> dict[str, Any]:
    """Run every conversation on the demo corpus ingested into ``data_dir`` (kept between runs: ingest skips
    unchanged files) — offline unless ``llm`` gives ``llm.*`` settings (e.g. a llama.cpp server's base_url).
    ``records_out``: each turn's record is appended there (JSON lines) the moment the turn ends, so a run that
    is stopped — a CPU model's turn can take minutes — still leaves every finished turn to score
    (:func:`load_records`, ``eval --chat-score``)."""
    from ..assistant.turn import run_turn
    from .intent_fidelity import build_demo_engine

    engine = build_demo_engine(demo_dir, data_dir, llm=llm)
    sink = open(records_out, "a", encoding="utf-8") if records_out is not None else None  # noqa: SIM115
    try:
        def keep(record: dict[str, Any]) -> None:
            if sink is not None:
                sink.write(json.dumps(record, default=str) + "\n")
                sink.flush()

        records: list[dict[str, Any]] = []
        for row in rows:
            records += run_conversation(lambda m, **kw: run_turn(engine, m, **kw), row, keep)
            if progress is not None:
                progress(row["id"])
    finally:
        if sink is not None:
            sink.close()
        engine.close()
    return report_of(records, "llm" if llm else "offline")


def report_of(records: Sequence[dict[str, Any]], mode: str) -> dict[str, Any]:
    """The eval's report over ``records``: per split, and all together."""
    splits = sorted({r["split"] for r in records})
    return {"mode": mode, "splits": {s: score_conversations([r for r in records if r["split"] == s]) for s in splits},
            "all": score_conversations(records)}


def load_records(path: Path) -> tuple[list[dict[str, Any]], str]:
    """``(records, mode)`` of a ``records_out`` file. Only whole conversations are kept (a conversation
    cut off mid-way would skew handoff recall); the mode is ``llm`` when any turn was answered by the model."""
    rows = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
    done: dict[str, set[int]] = {}
    for r in rows:
        done.setdefault(r["conversation"], set()).add(r["turn"])
    latest = {(r["conversation"], r["turn"]): r for r in rows}  # a file appended by two runs: the later one
    kept = [r for key, r in latest.items() if len(done[key[0]]) == r["of"]]
    return kept, "llm" if any(r["reply"]["mode"] == "llm" for r in kept) else "offline"


def format_chat_report(report: dict[str, Any]) -> str:
    lines = [f"chat eval ({report['mode']})"]
    for name, s in [*report["splits"].items(), ("all", report["all"])]:
        ft, tt = s["first_token_ms"], s["total_ms"]
        lines.append(
            f"  {name:<8} {s['conversations']} conversations / {s['turns']} turns  citation validity "
            f"{s['citation_validity']}  silent drops {s['silent_drops']}  marked {s['marked_share']}  "
            f"rerolls/turn {s['rerolls_per_turn']}  handoff precision {s['handoff_precision']} recall "
            f"{s['handoff_recall']} ({s['handoffs']} handoffs)  questions {s['discovery_turns']}  fallbacks "
            f"{s['fallback_turns']}  model prose {s['model_prose_turns']}/{s['llm_turns']} llm turns "
            f"({s['model_prose_passed']} unmarked)  first token p50/p95 {ft['p50']}/{ft['p95']} ms (≤3 s: {ft['within']})  "
            f"total p50/p95 {tt['p50']}/{tt['p95']} ms (≤8 s: {tt['within']})")
    return "\n".join(lines)
