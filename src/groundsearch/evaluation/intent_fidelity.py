"""End-to-end format fidelity: does the whole pipeline honour the asked format, or say out loud it can't?

Each labelled request runs through ``Engine.search`` on the demo corpus (the same ingest as ``./run demo``
and the integration tests). A request that asks for a format is

* **honoured** — a result of the asked kind (a chart of the asked subtype);
* **downgraded** — an ``unsupported-format`` result naming the asked kind (its subtype or the user's words);
* **dropped** — neither: the original bug, including a chart of another kind with no notice, and a table,
  chart, timeline or graph of the asked kind with nothing in it.

A request that asks for none (plain questions, false friends, refusals) is **clean** when the response has
no table, chart, timeline, graph or unsupported-format result, else **unasked**. The relevance gate's share
of ``low-confidence`` results is counted per language, since its cosine comes from the English-only MiniLM.
"""

from __future__ import annotations

import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..query.intent.directives import fold
from ..types import SearchRequest, SearchResponse

__all__ = ["build_demo_engine", "format_fidelity", "judge", "run_fidelity"]

_STRUCTURED = frozenset({"table", "chart", "timeline", "graph", "unsupported-format"})


_GENERIC = frozenset({"chart", "graph", "plot", "diagram", "", "other", "bar"})


def _names_kind(requested: str, row: dict[str, Any]) -> bool:
    """The downgrade names the asked kind: its subtype, the user's words, or the kind's own name inside them
    ("parallel coordinates" for "parallel coordinates plot", "トルネード" for "トルネードチャート")."""
    said = fold(requested)
    if said not in _GENERIC and row.get("chart_requested") and said in fold(row["chart_requested"]):
        return True
    want = [row["format"]] if row["format"] != "chart" else []
    if row.get("chart_subtype"):
        want += [row["chart_subtype"].replace("-", " "), row["chart_subtype"]]
    if row.get("chart_requested"):
        want.append(fold(row["chart_requested"]))
    return any(w and w in said for w in want if w != "other")


def _filled(r: Any) -> bool:
    """A shape with something in it: a timeline of no events honours nothing, whatever its kind says."""
    content = {"table": "rows", "chart": "points", "timeline": "events", "graph": "nodes"}.get(r.kind)
    return content is None or bool(getattr(r, content, ()))


def judge(row: dict[str, Any], response: SearchResponse) -> str:
    """honoured / downgraded / dropped for a request that asks a format; clean / unasked for one that doesn't.
    An empty table, chart, timeline or graph honours nothing (a drop under the asked kind's name)."""
    results = response.structured_results
    if row["format"] == "default":
        return "unasked" if any(r.kind in _STRUCTURED for r in results) else "clean"
    for r in results:
        if r.kind == "unsupported-format" and _names_kind(r.requested, row):
            return "downgraded"
    for r in (r for r in results if _filled(r)):
        if row["format"] == "chart":
            if r.kind == "chart" and r.subtype == row["chart_subtype"] and row["chart_subtype"] != "other":
                return "honoured"
        elif r.kind == row["format"] or (row["format"] == "timeline" and r.kind == "chart"
                                         and getattr(r, "subtype", None) == "timeline"):
            return "honoured"
    return "dropped"


def build_demo_engine(demo_dir: Path, data_dir: Path, *, llm: dict[str, Any] | None = None,
                      retrieval: dict[str, Any] | None = None) -> Any:
    """The demo knowledge base: the repository's README and docs/, the demo releases and papers
    (``llm``: ``llm.*`` settings, for the evals that measure the LLM path; ``retrieval``: ``retrieval.*``)."""
    from ..engine import Engine
    from ..settings import load_settings

    root = demo_dir.resolve().parent
    overrides = {**({"llm": llm} if llm else {}), **({"retrieval": retrieval} if retrieval else {})}
    settings = load_settings(demo_dir / "groundsearch.toml", env={}, data_dir=data_dir, **overrides)
    engine = Engine.open(settings)
    docs = [root / "README.md"] + ([root / "docs"] if (root / "docs").is_dir() else [])
    for paths, collection in ((docs, "docs"), ([demo_dir / "releases.jsonl"], "releases"),
                              ([demo_dir / "papers.jsonl"], "papers")):
        engine.ingest(paths, collection)
    return engine


def run_fidelity(rows: list[dict[str, Any]], search: Callable[[SearchRequest], SearchResponse]) -> dict[str, Any]:
    outcomes: dict[str, Counter[str]] = defaultdict(Counter)
    by_category: dict[str, Counter[str]] = defaultdict(Counter)
    gate: dict[str, Counter[str]] = defaultdict(Counter)
    failures = []
    for row in rows:
        split = row.get("split", "all")
        response = search(SearchRequest(query=row["query"]))
        verdict = judge(row, response)
        outcomes[split][verdict] += 1
        by_category[f"{split}:{row.get('category', '-')}"][verdict] += 1
        lang = row.get("lang", "-")
        gate[f"{split}:{lang}"]["n"] += 1
        gate[f"{split}:{lang}"]["low_confidence"] += any(r.kind == "low-confidence" for r in response.structured_results)
        if verdict in ("dropped", "unasked"):
            failures.append({"query": row["query"], "split": split, "verdict": verdict, "want": row["format"],
                             "want_kind": row.get("chart_subtype"),
                             "intent": [response.intent.format, response.intent.chart_subtype] if response.intent else None,
                             "got": [r.kind + (f":{r.subtype}" if r.kind == "chart" else "")
                                     + (f"({r.requested})" if r.kind == "unsupported-format" else "")
                                     for r in response.structured_results]})
    summary = {}
    for split, c in sorted(outcomes.items()):
        asked = c["honoured"] + c["downgraded"] + c["dropped"]
        unasked_n = c["clean"] + c["unasked"]
        summary[split] = {
            "asked": asked, "honoured": c["honoured"], "downgraded": c["downgraded"], "silent_drops": c["dropped"],
            "fidelity": round((c["honoured"] + c["downgraded"]) / asked, 4) if asked else None,
            "not_asked": unasked_n, "unasked_structure": c["unasked"],
        }
    return {
        "splits": summary,
        "by_category": {k: dict(v) for k, v in sorted(by_category.items())},
        "gate_low_confidence": {k: round(v["low_confidence"] / v["n"], 4) for k, v in sorted(gate.items())},
        "failures": failures,
    }


def run_demo_fidelity(rows: list[dict[str, Any]], demo_dir: Path) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="gs-fidelity-") as tmp:
        engine = build_demo_engine(demo_dir, Path(tmp) / "data")
        try:
            return run_fidelity(rows, engine.search)
        finally:
            engine.close()


def format_fidelity(fid: dict[str, Any]) -> str:
    lines = ["  end-to-end format fidelity (Engine.search on the demo corpus)"]
    for split, s in fid["splits"].items():
        fidelity = f"{s['fidelity']:.1%}" if s["fidelity"] is not None else "-"
        lines.append(f"    {split:<8} fidelity {fidelity}  honoured {s['honoured']}  downgraded {s['downgraded']}  "
                     f"silent drops {s['silent_drops']}  (asked {s['asked']});  structure nobody asked for "
                     f"{s['unasked_structure']}/{s['not_asked']}")
    lines.append("    gate low-confidence share: " + "  ".join(f"{k} {v:.0%}" for k, v in fid["gate_low_confidence"].items()))
    return "\n".join(lines)
