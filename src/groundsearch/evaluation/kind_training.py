"""The chart-kind classifier's fit and its leave-one-split-out (LOSO) estimate, in one command.

Each file of ``kind_model.training_files()`` is one split; only its chart rows count. For each split the
classifier is fitted on the chart rows of every other split and the prototypes (a request in two files stays out
whenever either is left out), and asked about the split left out.

The lexicon was written while reading these splits, so today's lexicon on them is in-sample. Its out-of-sample
reading is ``kind-blind.jsonl``: each blind split's chart rows read by the lexicon of the commit before the split
was opened (the kind, and whether a kind was named). The honest estimate of what the kind step will do on a new
split is that reading combined with the LOSO classifier by the step's own rules: a kind the rules settle stands
(``kind_model.standing``: a ranking makes bars a ranked bar, …), a named kind stands, a named plain bar is refined
among the bar-shaped kinds, an unnamed one is the classifier's, never a kind the request refused
(``kind_model.among``, ``choices``). The rules of ``standing`` were written reading heldout16/17, so their figures
there are in-sample; the earlier splits' are a check that they cost nothing elsewhere.

    python -m groundsearch.evaluation.kind_training            # LOSO table only
    python -m groundsearch.evaluation.kind_training --write    # + fit on every split, write kind_model.npz
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ..query.intent.directives import kind_from_text, read_directive
from ..query.intent.format_step import FormatDecision
from .format_training import _vectors
from ..query.intent.kind_model import (
    EXAMPLES, among, choices, choose, fit, refused_kinds, settled, standing, training_files, training_rows, training_sha256,
)

__all__ = ["blind_reads", "chart_splits", "loso", "record_blind_kind", "today"]

DATA = "groundsearch.evaluation"


def _jsonl(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def chart_splits() -> dict[str, list[dict[str, Any]]]:
    base = resources.files(DATA) / "data"
    return {name.removesuffix(".jsonl").removeprefix("intents-"):
            [r for r in _jsonl((base / name).read_text("utf-8")) if r["format"] == "chart"]
            for name in training_files()}


def blind_reads() -> dict[tuple[str, str], dict[str, Any]]:
    rows = _jsonl((resources.files(DATA) / "data" / "kind-blind.jsonl").read_text("utf-8"))
    return {(r["split"], r["query"]): r for r in rows}


def _prototypes() -> list[dict[str, Any]]:
    """The prototypes' chart rows and the kind examples: in every fold's training, as in the shipped fit."""
    here = resources.files("groundsearch.query.intent")
    rows = [r for n in ("prototypes.jsonl", EXAMPLES) for r in _jsonl((here / n).read_text("utf-8"))]
    return [r for r in rows if r["format"] == "chart"]


def _with_classifier(read: dict[str, Any], query: str, kinds: Sequence[str], p: np.ndarray) -> str:
    """The kind step's rule applied to a stored lexicon reading of ``query`` and the fold's probabilities."""
    decision = FormatDecision("chart", read["subtype"], read["requested"], "rules", 1.0)
    ruled = standing(query, decision)
    if ruled is not None:
        return ruled
    allowed = among(decision)
    if allowed is None:
        return read["subtype"]
    refused = refused_kinds(query)
    return settled(read["subtype"], allowed, *choose(kinds, p, choices(allowed, kinds, refused)), query, refused)


def today(query: str) -> dict[str, Any]:
    """Today's lexicon reading of a chart row, as :func:`record_blind_kind` stores one (in-sample on every split
    its rules were written from, which is all of them)."""
    d = read_directive(query)
    subtype, requested = (d.chart_subtype, d.requested) if d.format == "chart" else kind_from_text(query)
    return {"subtype": subtype, "requested": requested}


def loso(splits: dict[str, list[dict[str, Any]]], vectors: dict[str, np.ndarray], model_id: str
         ) -> dict[str, dict[str, Any]]:
    """Per split: the classifier alone, and on blind splits the blind lexicon before and after the kind step."""
    protos, blind, out = _prototypes(), blind_reads(), {}
    for held, test in splits.items():
        held_out = {r["query"].casefold() for r in test}
        train = [r for name, rows in splits.items() if name != held for r in rows
                 if r["query"].casefold() not in held_out and r["chart_subtype"] != "other"]
        train += [p for p in protos if p["query"].casefold() not in held_out]
        fitted = fit(np.stack([vectors[r["query"]] for r in train]), [r["chart_subtype"] for r in train], model_id)
        kinds = [str(k) for k in fitted["kinds"]]
        x = (np.stack([vectors[r["query"]] for r in test]) - fitted["mean"]) / fitted["scale"]
        z = x @ fitted["w"] + fitted["b"]
        p = np.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        alone = [kinds[int(np.argmax(row))] for row in p]
        report: dict[str, Any] = {"n": len(test), "classifier_alone": _acc(test, alone)}
        report["lexicon_now"] = _acc(test, [_with_classifier(today(r["query"]), r["query"], kinds, row)
                                            for r, row in zip(test, p)])
        reads = [blind.get((held, r["query"])) for r in test]
        if all(reads):
            report["commit"] = reads[0]["commit"]  # type: ignore[index]
            report["lexicon_blind"] = _acc(test, [b["subtype"] for b in reads])  # type: ignore[index]
            report["with_classifier"] = _acc(test, [
                _with_classifier(b, r["query"], kinds, row) for b, r, row in zip(reads, test, p)])  # type: ignore[arg-type]
        out[held] = report
    return out


def _acc(rows: list[dict[str, Any]], kinds: list[str]) -> float:
    return round(sum(k == r["chart_subtype"] for r, k in zip(rows, kinds, strict=True)) / max(1, len(rows)), 4)


def _table(report: dict[str, dict[str, Any]]) -> str:
    lines = ["split        n   classifier alone   blind lexicon  -> with classifier   (lexicon commit)   "
             "today's lexicon with classifier (in-sample)"]
    for name, r in report.items():
        blind = (f"{r['lexicon_blind']:.3f}  ->  {r['with_classifier']:.3f}        ({r['commit']})"
                 if "commit" in r else "(in-sample lexicon: no blind reading)   ")
        lines.append(f"{name:<10} {r['n']:>4}   {r['classifier_alone']:.3f}              {blind}"
                     f"    {r['lexicon_now']:.3f}")
    pooled = [r for r in report.values() if "commit" in r]
    if pooled:
        n = sum(r["n"] for r in pooled)
        before = sum(r["lexicon_blind"] * r["n"] for r in pooled) / n
        after = sum(r["with_classifier"] * r["n"] for r in pooled) / n
        now = sum(r["lexicon_now"] * r["n"] for r in pooled) / n
        lines.append(f"blind splits pooled (n={n}): {before:.3f} -> {after:.3f}; today's lexicon (in-sample) with "
                     f"the classifier {now:.3f}")
    return "\n".join(lines)


def record_blind_kind(commit: str, split_file: str, out: Path) -> int:  # pragma: no cover - a maintainer's step
    """Append ``split_file``'s chart rows read by the lexicon at ``commit`` (run from a git checkout) to ``out``.

    Where the lexicon read no chart, the kind is the one that commit's format step gives a chart a later tier
    decided (``kind_from_text``: a described look with the user's words, else the house convention), which is
    what the rows of heldout2-9 hold (their commits predate ``kind_from_text``; the house convention then)."""
    split = split_file.removesuffix(".jsonl").removeprefix("intents-")
    rows = [r for r in _jsonl((resources.files(DATA) / "data" / split_file).read_text("utf-8"))
            if r["format"] == "chart"]
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "archive", commit, "src"], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        code = ("import json,sys\nfrom groundsearch.query.intent.directives import kind_from_text, read_directive\n"
                "for q in json.load(sys.stdin):\n d=read_directive(q)\n"
                " k,w=(d.chart_subtype,d.requested) if d.format=='chart' else kind_from_text(q)\n"
                " print(json.dumps({'format':d.format,'subtype':k,'requested':w,'sure':d.sure}))")
        done = subprocess.run([sys.executable, "-c", code], input=json.dumps([r["query"] for r in rows]),
                              capture_output=True, text=True, check=True, env={"PYTHONPATH": f"{tmp}/src"})
    with out.open("a", encoding="utf-8") as fh:
        for r, line in zip(rows, done.stdout.splitlines(), strict=True):
            fh.write(json.dumps({"split": split, "query": r["query"], "commit": commit, **json.loads(line)},
                                ensure_ascii=False) + "\n")
    return len(rows)


def main(argv: Sequence[str] | None = None) -> None:  # pragma: no cover - a maintainer's command
    from ..models.e5 import E5Embedder

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="fit on every split; write kind_model.npz")
    ap.add_argument("--json", help="write the per-split report to this file")
    args = ap.parse_args(argv)
    splits = chart_splits()
    embedder = E5Embedder(threads=1)
    rows = training_rows()
    queries = sorted({r["query"] for rs in splits.values() for r in rs} | {r["query"] for r in rows})
    vectors = _vectors(queries, embedder, memo="kind-training")
    report = loso(splits, vectors, embedder.model_id)
    print("Chart kind, leave one split out (chart rows only):\n" + _table(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
    if args.write:
        fitted = fit(np.stack([vectors[r["query"]] for r in rows]), [r["chart_subtype"] for r in rows],
                     embedder.model_id)
        here = Path(resources.files("groundsearch.query.intent"))  # type: ignore[arg-type]
        sha = training_sha256()
        np.savez(here / "kind_model.npz", **fitted, training_sha256=np.array(sha))
        print(f"wrote {here / 'kind_model.npz'} ({len(rows)} rows, sha256 {sha[:12]}…)")


if __name__ == "__main__":  # pragma: no cover
    main()
