"""The format classifier's training, calibration and leave-one-split-out (LOSO) estimate, in one command.

Each labelled file in ``TRAINING_FILES`` is one split. For each, the e5 classifier is fitted on every other
split and the prototypes, and the whole format step is run on the split left out; a request that sits in two
files stays out of training whenever either is left out. That figure is what a new split will see from the
learnt part. The rules were written while reading all of these splits, so on them tier 1 is in-sample; its
out-of-sample precision comes from ``tier1-blind.jsonl``: each blind split read by the rules as they stood
before it was opened (commit per row).

From those out-of-sample readings the calibration is set: tier 1's confidence per case, the classifier's per
probability bin, and the ``overrides``: the cases where a classifier that disagrees with a sure tier 1 at
probability ≥ t was right more than twice as often as tier 1, with the lowest such t. Then the classifier is
fitted on every split and written next to its calibration.

    python -m groundsearch.evaluation.format_training            # LOSO table only
    python -m groundsearch.evaluation.format_training --write    # + fit on all, write npz + calibration.json
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ..query.intent.directives import read_directive
from ..query.intent.format_model import (
    FORMATS, Calibration, FormatClassifier, bins, fit, load_calibration, restrict, training_files, training_rows,
    training_sha256,
)
from ..query.intent.format_step import FormatStep

__all__ = ["MemoEmbedder", "choose_overrides", "load_splits", "loso", "score"]

DATA = "groundsearch.evaluation"
THRESHOLDS = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98)


class MemoEmbedder:
    """An :class:`Embedder` that answers from vectors computed once (the folds embed nothing again)."""

    dim = 384

    def __init__(self, model_id: str, vectors: dict[str, np.ndarray]) -> None:
        self.model_id = model_id
        self._vectors = vectors

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self._vectors[t] for t in texts])

    embed_passages = embed_queries


def _jsonl(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def load_splits(names: Sequence[str] | None = None) -> dict[str, list[dict[str, Any]]]:
    base = resources.files(DATA) / "data"
    return {name.removesuffix(".jsonl").removeprefix("intents-"): _jsonl((base / name).read_text("utf-8"))
            for name in names or training_files()}


def _prototypes() -> list[dict[str, Any]]:
    return _jsonl((resources.files("groundsearch.query.intent") / "prototypes.jsonl").read_text("utf-8"))


def blind_tier1() -> list[dict[str, Any]]:
    return _jsonl((resources.files(DATA) / "data" / "tier1-blind.jsonl").read_text("utf-8"))


def score(rows: list[dict[str, Any]], predicted: list[tuple[str, str | None]]) -> dict[str, Any]:
    """Format and chart-kind accuracy, and what a user sees: a format asked and none given (a drop), another
    format given, and structure given where none was asked."""
    pairs = list(zip(rows, predicted, strict=True))
    charts = [(r, p) for r, p in pairs if r["format"] == "chart"]
    return {
        "n": len(rows), "format": round(sum(p[0] == r["format"] for r, p in pairs) / len(rows), 4),
        "chart_kind": round(sum(p == ("chart", r["chart_subtype"]) for r, p in charts) / max(1, len(charts)), 4),
        "charts": len(charts),
        "dropped": sum(r["format"] != "default" and p[0] == "default" for r, p in pairs),
        "other_format": sum(p[0] not in ("default", r["format"]) and r["format"] != "default" for r, p in pairs),
        "unasked": sum(r["format"] == "default" and p[0] != "default" for r, p in pairs),
        "asked_none": sum(r["format"] == "default" for r in rows),
    }


def _folds(splits: dict[str, list[dict[str, Any]]], vectors: dict[str, np.ndarray], model_id: str
           ) -> dict[str, FormatClassifier]:
    protos, memo, out = _prototypes(), MemoEmbedder(model_id, vectors), {}
    for held, test in splits.items():
        held_out = {r["query"].casefold() for r in test}
        train = [r for name, rows in splits.items() if name != held for r in rows
                 if r["query"].casefold() not in held_out]
        train += [p for p in protos if p["query"].casefold() not in held_out]
        fitted = fit(np.stack([vectors[r["query"]] for r in train]), [r["format"] for r in train], model_id)
        out[held] = FormatClassifier(memo, fitted=fitted)
    return out


def loso(splits: dict[str, list[dict[str, Any]]], folds: dict[str, FormatClassifier],
         calibration: Calibration) -> dict[str, Any]:
    """Per split left out: the format step with that fold's classifier, and the classifier alone."""
    report: dict[str, Any] = {"splits": {}, "rows": []}
    for held, test in splits.items():
        clf = folds[held]
        step = FormatStep(lambda clf=clf: clf, calibration)
        cascade, alone, tiers = [], [], Counter()
        for r in test:
            d = read_directive(r["query"])
            decision, _ = step.decide(r["query"], d)
            cascade.append((decision.format, decision.chart_subtype))
            tiers[decision.tier] += 1
            p = clf.probabilities(r["query"])
            alone.append((FORMATS[int(np.argmax(p))], None))
            report["rows"].append({"split": held, "query": r["query"], "format": r["format"],
                                   "evidence": d.evidence, "sure": d.sure, "rules": d.format, "framed": d.framed,
                                   "question": d.question,
                                   "candidates": list(d.candidates), "cascade": decision.format,
                                   "p": [round(float(x), 4) for x in p]})
        report["splits"][held] = {"cascade": score(test, cascade), "classifier_alone": score(test, alone),
                                  "tiers": dict(tiers)}
    return report


def _overrules(rules: str, p: np.ndarray, threshold: float, framed: bool, asks: bool = False) -> bool:
    """The format step's rule (``FormatStep._second_opinion``) on stored probabilities (``asks``: a direct
    question with no format word, which the classifier never overrules)."""
    fmt = FORMATS[int(np.argmax(p))]
    return fmt != rules and float(p.max()) >= threshold and not (framed and fmt == "default") and not asks


def _disagreements(readings: list[tuple[str, str, str, np.ndarray, bool]]) -> dict[str, dict[float, list[int]]]:
    """Per tier-1 case and threshold: [classifier right, tier 1 right] where a sure tier 1 was contradicted."""
    out: dict[str, dict[float, list[int]]] = defaultdict(lambda: {t: [0, 0] for t in THRESHOLDS})
    for evidence, rules, gold, p, framed, asks in readings:
        fmt, counts = FORMATS[int(np.argmax(p))], out[evidence]  # a case is listed even if never contradicted
        for t in THRESHOLDS:
            if _overrules(rules, p, t, framed, asks):
                counts[t][0] += fmt == gold
                counts[t][1] += rules == gold
    return out


def choose_overrides(table: dict[str, dict[float, list[int]]], *, cost: float = 2.0, least: int = 3
                     ) -> dict[str, float]:
    """Per case, the threshold with the most readings fixed minus ``cost`` × those broken, when that is
    positive and at least ``least`` are fixed; other cases keep tier 1. A break costs double: tier 1's
    readings here include today's rules on rows they were written from, and a wrong override is a new error."""
    out = {}
    for evidence, by_t in table.items():
        scored = [(fixes - cost * breaks, -t) for t, (fixes, breaks) in by_t.items() if fixes >= least]
        if scored and max(scored)[0] > 0:
            out[evidence] = -max(scored)[1]  # ties go to the higher threshold
    return out


def calibrate(report: dict[str, Any], model_id: str) -> dict[str, Any]:
    """calibration.json from out-of-sample readings only (see the module docstring)."""
    by_query = {(r["split"], r["query"]): r for r in report["rows"]}
    blind = blind_tier1()
    rules: dict[str, list[bool]] = defaultdict(list)
    readings = []  # (evidence, tier-1 format, gold, LOSO probabilities) of every sure reading
    for b in blind:
        row = by_query[(b["split"], b["query"])]
        rules[b["evidence"]].append(b["format"] == row["format"])
        if b["sure"]:
            # whether the word stood after a use preposition is read by today's tier 1 (old ones did not say)
            readings.append((b["evidence"], b["format"], row["format"], np.array(row["p"]), row["framed"],
                             b["evidence"] == "none" and row["question"]))
    for r in report["rows"]:  # today's tier 1 on every split: in-sample, so it can only argue for tier 1
        if r["sure"]:
            readings.append((r["evidence"], r["rules"], r["format"], np.array(r["p"]), r["framed"],
                             r["evidence"] == "none" and r["question"]))
    table = _disagreements(readings)
    oof = []
    for r in report["rows"]:
        fmt, conf = restrict(np.array(r["p"]), r["candidates"])
        oof.append((conf, fmt == r["format"]))
    old = load_calibration()
    return {
        "model_id": model_id,
        "training_files": list(training_files()),
        "training_sha256": training_sha256(),
        "rules": {e: round((sum(v) + 0.5) / (len(v) + 1), 4) for e, v in sorted(rules.items())},
        "rules_n": {e: len(v) for e, v in sorted(rules.items())},
        "rules_source": "tier1-blind.jsonl (each blind split read by the rules of the commit before it was opened)",
        "classifier": bins(oof),
        "classifier_n": len(oof),
        "classifier_source": "leave-one-split-out predictions over the training files, within tier 1's candidates",
        "overrides": choose_overrides(table),
        "override_table": {e: {str(t): v for t, v in by_t.items()} for e, by_t in sorted(table.items())},
        "llm": [list(b) for b in old.llm],  # tier 3's table is written by the eval, not by this fit
        "llm_wins": sorted(old.llm_wins),
    }


def blind_estimate(splits: dict[str, list[dict[str, Any]]], folds: dict[str, FormatClassifier],
                   overrides: dict[str, float]) -> dict[str, Any]:
    """Each blind split as a new one would be met: tier 1 as it stood before the split was opened, the
    classifier of the fold that left the split out (within that tier 1's candidates when it was unsure)."""
    from ..query.intent.directives import fold, subtype_from_cues

    by_split: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for b in blind_tier1():
        by_split[b["split"]].append(b)
    out = {}
    for split, readings in by_split.items():
        gold = {r["query"]: r for r in splits[split]}
        predicted = []
        for b in readings:
            fmt, subtype = b["format"], b.get("subtype")
            p = folds[split].probabilities(b["query"])
            if not b["sure"]:
                fmt, _ = restrict(p, b["candidates"])
                subtype = b.get("subtype") if fmt == b["format"] == "chart" else None
            elif b["evidence"] in overrides and _overrules(
                    fmt, p, overrides[b["evidence"]], (today := read_directive(b["query"])).framed,
                    b["evidence"] == "none" and today.question):
                fmt, subtype = FORMATS[int(np.argmax(p))], None
            if fmt == "chart" and subtype is None:
                subtype = subtype_from_cues(fold(b["query"]))
            predicted.append((fmt, subtype if fmt == "chart" else None))
        out[split] = score([gold[b["query"]] for b in readings], predicted)
    return out


def _table(report: dict[str, Any]) -> str:
    lines = ["split        n   format  chart kind  drops  other  unasked    | classifier alone: format  drops  unasked"]
    for name, s in report["splits"].items():
        c, a = s["cascade"], s["classifier_alone"]
        lines.append(f"{name:<10} {c['n']:>4}   {c['format']:.3f}   {c['chart_kind']:.3f}     {c['dropped']:>4}  "
                     f"{c['other_format']:>4}  {c['unasked']:>3}/{c['asked_none']:<4}  |   {a['format']:.3f}  "
                     f"{a['dropped']:>4}  {a['unasked']:>4}   tiers {s['tiers']}")
    return "\n".join(lines)


def record_blind_tier1(commit: str, split_file: str, out: Path) -> int:  # pragma: no cover - a maintainer's step
    """Append ``split_file`` read by the rules at ``commit`` (run from a git checkout) to ``out``."""
    rows = load_splits([split_file])
    split = next(iter(rows))
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "archive", commit, "src"], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        code = ("import json,sys\nfrom groundsearch.query.intent.directives import read_directive\n"
                "for q in json.load(sys.stdin):\n d=read_directive(q)\n"
                " print(json.dumps({'format':d.format,'evidence':d.evidence,'sure':d.sure,'candidates':list(d.candidates),'subtype':d.chart_subtype}))")
        done = subprocess.run([sys.executable, "-c", code], input=json.dumps([r["query"] for r in rows[split]]),
                              capture_output=True, text=True, check=True, env={"PYTHONPATH": f"{tmp}/src"})
    with out.open("a", encoding="utf-8") as fh:
        for r, line in zip(rows[split], done.stdout.splitlines(), strict=True):
            fh.write(json.dumps({"split": split, "query": r["query"], **json.loads(line), "commit": commit},
                                ensure_ascii=False) + "\n")
    return len(rows[split])


def _vectors(queries: list[str], embedder: Any, memo: str = "format-training") -> dict[str, np.ndarray]:
    """e5 vectors of ``queries``, memoised on disk per model id: a re-run embeds only the new requests (``memo``
    names the file, so the kind fit, run beside this one, never rewrites the file this one reads)."""
    path = Path.home() / ".cache" / "groundsearch" / f"{memo}-{embedder.model_id.replace('@', '-')}.npz"
    known: dict[str, np.ndarray] = {}
    if path.is_file():
        with np.load(path, allow_pickle=False) as data:
            known = dict(zip(data["queries"].tolist(), data["vectors"], strict=True))
    missing = [q for q in queries if q not in known]
    if missing:
        known.update(zip(missing, np.asarray(embedder.embed_queries(missing), dtype=np.float64), strict=True))
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, queries=np.array(list(known)), vectors=np.stack(list(known.values())))
    return {q: known[q] for q in queries}


def main(argv: Sequence[str] | None = None) -> None:  # pragma: no cover - a maintainer's command
    from ..models.e5 import E5Embedder

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="fit on every split; write format_model.npz + calibration.json")
    ap.add_argument("--json", help="write the full report (every row's readings) to this file")
    args = ap.parse_args(argv)
    splits = load_splits()
    embedder = E5Embedder(threads=1)
    queries = sorted({r["query"] for rows in splits.values() for r in rows} | {p["query"] for p in _prototypes()})
    vectors = _vectors(queries, embedder)
    folds = _folds(splits, vectors, embedder.model_id)
    no_override = replace(load_calibration(), overrides={})
    before = loso(splits, folds, no_override)
    print("LOSO, tier 1 decides whenever it is sure:\n" + _table(before))
    cal = calibrate(before, embedder.model_id)
    after = loso(splits, folds, replace(no_override, overrides=cal["overrides"]))
    print(f"LOSO, with the overrides {cal['overrides']}:\n" + _table(after))
    blind = {"without overrides": blind_estimate(splits, folds, {}),
             "with overrides": blind_estimate(splits, folds, cal["overrides"])}
    for name, figures in blind.items():
        print(f"Blind estimate (tier 1 before each split was opened + its LOSO classifier), {name}:")
        for split, f in figures.items():
            print(f"  {split:<9} n={f['n']:<4} format {f['format']:.3f}  chart kind {f['chart_kind']:.3f}  drops "
                  f"{f['dropped']}  other {f['other_format']}  unasked {f['unasked']}/{f['asked_none']}")
    if args.json:
        Path(args.json).write_text(json.dumps({"before": before, "after": after, "blind": blind, "calibration": cal}, indent=1))
    if args.write:
        rows = training_rows()
        every = _vectors([r["query"] for r in rows], embedder)
        fitted = fit(np.stack([every[r["query"]] for r in rows]), [r["format"] for r in rows], embedder.model_id)
        here = Path(resources.files("groundsearch.query.intent"))  # type: ignore[arg-type]
        np.savez(here / "format_model.npz", w=fitted["w"], b=fitted["b"], mean=fitted["mean"],
                 scale=fitted["scale"], model_id=np.array(fitted["model_id"]))
        (here / "calibration.json").write_text(json.dumps(cal, indent=1) + "\n", "utf-8")
        print(f"wrote {here / 'format_model.npz'} ({len(rows)} rows, sha256 {cal['training_sha256'][:12]}…)")


if __name__ == "__main__":  # pragma: no cover
    main()
