"""Leave-one-language-out study of the cross-lingual word reader (``query.intent.crosslingual``), in one command.

The rows studied are every learning-split row whose language is outside English and the nine. The reader's
anchors are the lexicon's shape words in English and the nine only, and its background the ordinary words of the
learning rows in those languages, so no test language's word is in either: the figure is leave-one-language-out
for every row. The cascade is met as a new language meets it: tier 1 as it read the split before the split was
opened (``tier1-blind.jsonl``), the format classifier refitted without the row's split and without every row of
its language (so also leave-one-language-out), and the overrides of the shipped rule chosen without the split.
The reader runs only where tier 1 read no shape word in a language it cannot read (the format step's "unread"
reading with no candidate, after ``kinds.unread_candidates``), and hands the classifier the formats it found,
to choose among beside none, as tier 1's own unsure words do.

Reported: the reader alone (recall of the asked shape on rows that ask one; shapes found on rows that ask none,
by category; shapes found on the English and nine rows and on the plain tune sets, had it run there); the cascade
with and without it, per threshold and with the threshold chosen leaving each split out; and its latency.

    python -m groundsearch.evaluation.crosslingual_study [--json out.json] [--bench N] [--plain]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import numpy as np

from ..query.intent import kinds
from ..query.intent.crosslingual import CrossLingualReader, anchor_words, background_words, spans
from ..query.intent.directives import fold, read_directive, unread_language
from ..query.intent.format_model import FormatClassifier, blind_requests, fit, load_calibration
from ..query.intent.format_step import FormatStep
from . import format_training as ft

__all__ = ["KNOWN", "THRESHOLDS", "cascade_counts", "choose_threshold", "in_scope", "lolo_probabilities",
           "reader_alone", "with_reader"]

KNOWN = frozenset("en es fr de pt it nl zh ja".split())  # English and the nine: tier 1's languages
THRESHOLDS = (0.0, 0.03, 0.06, 0.09, 0.12, 0.15)


def lang(row: dict[str, Any]) -> str:
    return row.get("lang", "en")


def lolo_probabilities(splits: dict[str, list[dict[str, Any]]], vectors: dict[str, np.ndarray], model_id: str
                       ) -> dict[tuple[str, str], np.ndarray]:
    """Each test row's classifier probabilities from a fit without its split and without any row of its
    language (the prototypes and examples in a language tier 1 cannot read left out too: they carry no language)."""
    protos = [p for p in ft._prototypes() if not unread_language(" ".join(p["query"].split()))]
    blind = blind_requests()
    out = {}
    for held, language in sorted({(n, lang(r)) for n, rows in splits.items() for r in rows if lang(r) not in KNOWN}):
        left = {r["query"].casefold() for r in splits[held]} | blind
        train = [r for n, rows in splits.items() if n != held for r in rows
                 if lang(r) != language and r["query"].casefold() not in left]
        train += [p for p in protos if p["query"].casefold() not in left]
        clf = FormatClassifier(ft.MemoEmbedder(model_id, vectors),
                               fitted=fit(np.stack([vectors[r["query"]] for r in train]),
                                          [r["format"] for r in train], model_id))
        for r in splits[held]:
            if lang(r) == language:
                out[(held, r["query"])] = clf.probabilities(r["query"])
    return out


def in_scope(b: dict[str, Any]) -> bool:
    """Where the reader runs on a blind reading: tier 1 unsure with no candidate, or sure of "none" in a language it
    cannot read (which the format step now reads "unread"); the kind step's unread names first."""
    unread = (not b["sure"] and not b["candidates"] or
              b["sure"] and b["evidence"] == "none" and unread_language(" ".join(b["query"].split())))
    return unread and not kinds.unread_candidates((), "unread", b["query"], fold)


def _outcome(fmt: str, gold: str) -> str:
    if fmt == gold:
        return "ok"
    return "drop" if fmt == "default" else ("unasked" if gold == "default" else "other")


def cascade_counts(blind: Sequence[dict[str, Any]], overrides: dict[str, dict[str, float]],
                   found: dict[str, dict[str, tuple[float, str]]] | None, threshold: float) -> dict[str, Any]:
    """Outcomes of the blind readings ``blind`` decided as ``format_training.decide_blind`` does, the reader's
    formats found above ``threshold`` (``found``: None, no reader) given as candidates where it runs."""
    c: Counter[str] = Counter()
    changed = []
    for b in blind:
        base = ft.decide_blind(b, overrides[b["split"]], True)[0]
        fmt = base
        if found is not None and in_scope(b):
            got = sorted({"chart" if k.startswith("chart") else k for k, (s, _) in found[b["query"]].items()
                          if s > threshold})
            if got:
                fmt = ft.decide_blind({**b, "sure": False, "candidates": got}, overrides[b["split"]], True)[0]
        c[_outcome(fmt, b["gold"])] += 1
        if fmt != base:
            changed.append({"split": b["split"], "query": b["query"], "gold": b["gold"], "before": base,
                            "after": fmt})
    n = sum(c.values())
    return {"n": n, "format": round(c["ok"] / max(1, n), 4), **{k: c[k] for k in ("drop", "other", "unasked")},
            "changed": changed}


def choose_threshold(blind: Sequence[dict[str, Any]], overrides: dict[str, dict[str, float]],
                     found: dict[str, dict[str, tuple[float, str]]], leave: str) -> float:
    """The threshold with the most right formats on every split but ``leave`` (ties: the higher, fewer reads)."""
    rest = [b for b in blind if b["split"] != leave]
    return max(THRESHOLDS, key=lambda t: (cascade_counts(rest, overrides, found, t)["format"], t))


def reader_alone(rows: Sequence[dict[str, Any]], found: dict[str, dict[str, tuple[float, str]]],
                 threshold: float) -> dict[str, Any]:
    """The reader on every row, as if it ran everywhere: the asked shape found, only other shapes found, and any
    shape found on rows that ask none, by category (a negation or false friend holds the word by design)."""
    asks = [r for r in rows if r["format"] != "default"]
    none = [r for r in rows if r["format"] == "default"]

    def formats(q: str) -> set[str]:
        return {"chart" if k.startswith("chart") else k for k, (s, _) in found[q].items() if s > threshold}

    return {"asks": len(asks), "recall": sum(r["format"] in formats(r["query"]) for r in asks),
            "other_only": sum(bool(formats(r["query"])) and r["format"] not in formats(r["query"]) for r in asks),
            "asks_none": dict(Counter(r.get("category", "?") for r in none)),
            "found_on_none": dict(Counter(r.get("category", "?") for r in none if formats(r["query"])))}


@contextmanager
def with_reader(reader: CrossLingualReader | None) -> Iterator[None]:
    """The format step with the reader hooked where the classifier is given its candidates: a request tier 1
    read "unread" with no candidate gets the reader's (what a format_step hook would do; nothing is wired)."""
    original = kinds.unread_candidates
    if reader is None:
        yield
        return

    def hooked(candidates, evidence, query, fold):
        among = original(candidates, evidence, query, fold)
        if evidence == "unread" and not among:
            return reader.candidates(query)
        return among

    kinds.unread_candidates = hooked
    try:
        yield
    finally:
        kinds.unread_candidates = original


def _background(splits: dict[str, list[dict[str, Any]]], anchors: dict[str, tuple[str, ...]]) -> list[str]:
    """The reader's ordinary words: those of the learning rows in English and the nine (no test language's)."""
    return background_words([r["query"] for rows in splits.values() for r in rows if lang(r) in KNOWN], anchors)


class _Memo:
    """An embedder that answers from a dict and embeds (and keeps) what it lacks."""

    def __init__(self, e5: Any, known: dict[str, np.ndarray]) -> None:
        self.model_id, self.dim, self._e5, self.known = e5.model_id, e5.dim, e5, known

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self.known]
        if missing:
            self.known.update(zip(missing, np.asarray(self._e5.embed_queries(missing)), strict=True))
        return np.stack([self.known[t] for t in texts])


def _plain_sets() -> dict[str, list[str]]:  # pragma: no cover - needs the shared datasets
    from .answers import only_split
    from .datasets import load_beir

    d = "/work/shared/datasets/"
    sets = {"musique": only_split(load_beir(d + "hipporag_musique"), "tune"),
            "rgb_en_fact": only_split(load_beir(d + "rgb_en_fact"), "tune"),
            "scifact_train": load_beir(d + "beir_scifact", d + "beir_scifact/qrels_train.tsv")}
    return {name: list(ds.queries.values()) for name, ds in sets.items()}


def bench(step_factory: Any, reader: CrossLingualReader, queries: Sequence[str], rounds: int
          ) -> dict[str, Any]:  # pragma: no cover - timing
    """Per request, median and p95 of ``FormatStep.decide`` (read_directive included) without and with the
    reader, interleaved request by request, on a real e5 (nothing memoised)."""
    times: dict[str, list[float]] = defaultdict(list)
    step = step_factory()
    for q in queries[:3]:  # warm the classifier
        step.decide(q, read_directive(q))
    for _ in range(rounds):
        for q in queries:
            for name, r in (("without", None), ("with", reader)):
                with with_reader(r):
                    t = time.perf_counter()
                    step.decide(q, read_directive(q))
                    times[name].append((time.perf_counter() - t) * 1000)
    return {k: {"n": len(v), "p50_ms": round(statistics.median(v), 1),
                "p95_ms": round(float(np.percentile(v, 95)), 1)} for k, v in times.items()}


def main(argv: Sequence[str] | None = None) -> None:  # pragma: no cover - a maintainer's command
    from ..models.e5 import E5Embedder

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="write the report here")
    ap.add_argument("--plain", action="store_true", help="also read the plain tune sets (MuSiQue, RGB, SciFact)")
    ap.add_argument("--bench", type=int, default=0, help="latency rounds over the in-scope requests (0: none)")
    args = ap.parse_args(argv)
    e5 = E5Embedder(threads=1)
    splits = ft.load_splits()
    queries = sorted({r["query"] for rows in splits.values() for r in rows} | {p["query"] for p in ft._prototypes()})
    vectors = ft._vectors(queries, e5)
    report = ft.loso(splits, ft._folds(splits, vectors, e5.model_id), replace(load_calibration(), overrides={}))
    readings = ft._blind_readings(report)
    overrides = {s: ft.deferring_overrides(readings, s) for s in sorted({b["split"] for b in readings})}
    by_key = {(n, r["query"]): r for n, rows in splits.items() for r in rows}
    test_rows = [r for rows in splits.values() for r in rows if lang(r) not in KNOWN]
    lolo = lolo_probabilities(splits, vectors, e5.model_id)
    blind = [{**b, "p": lolo[(b["split"], b["query"])]} for b in readings
             if lang(by_key[(b["split"], b["query"])]) not in KNOWN]

    known_rows = [r for rows in splits.values() for r in rows if lang(r) in KNOWN]
    plain = _plain_sets() if args.plain else {}
    texts = ([r["query"] for r in test_rows] + [r["query"] for r in known_rows if r["format"] == "default"]
             + [q for qs in plain.values() for q in qs])
    memo_path = "crosslingual-spans"
    all_spans = sorted({s for t in texts for s in spans(t)})
    anchors = anchor_words()
    background = _background(splits, anchors)
    memo = _Memo(e5, ft._vectors(sorted(set(all_spans) | {s for v in anchors.values() for s in v} | set(background)),
                                 e5, memo=memo_path))
    reader = CrossLingualReader(memo, anchors, background, threshold=0.0)
    found = {t: reader.scores(t) for t in dict.fromkeys(texts)}

    out: dict[str, Any] = {"rows": len(test_rows), "blind_readings": len(blind),
                           "in_scope": sum(in_scope(b) for b in blind), "languages": len({lang(r) for r in test_rows})}
    out["cascade"] = {"without": cascade_counts(blind, overrides, None, 0.0)}
    for t in THRESHOLDS:
        out["cascade"][f"reader>{t}"] = cascade_counts(blind, overrides, found, t)
    chosen = {s: choose_threshold(blind, overrides, found, s) for s in sorted({b["split"] for b in blind})}
    loso_rows = [cascade_counts([b for b in blind if b["split"] == s], overrides, found, t) for s, t in chosen.items()]
    out["cascade"]["reader, threshold chosen without the split"] = {
        "thresholds": chosen, "n": sum(x["n"] for x in loso_rows),
        "format": round(sum(x["format"] * x["n"] for x in loso_rows) / sum(x["n"] for x in loso_rows), 4),
        **{k: sum(x[k] for x in loso_rows) for k in ("drop", "other", "unasked")},
        "changed": [c for x in loso_rows for c in x["changed"]]}
    new = {"heldout22", "heldout23"}
    out["heldout22_23"] = {k: cascade_counts([b for b in blind if b["split"] in new], overrides, f, t)
                           for k, f, t in (("without", None, 0.0), ("reader>0.09", found, 0.09))}
    out["alone"] = {str(t): reader_alone(test_rows, found, t) for t in (0.03, 0.09)}
    out["known_languages_alone"] = {
        str(t): reader_alone([r for r in known_rows if r["format"] == "default"], found, t) for t in (0.03, 0.09)}
    out["plain_alone"] = {name: {str(t): sum(any(s > t for s, _ in found[q].values()) for q in qs)
                                 for t in (0.03, 0.09)} | {"n": len(qs)} for name, qs in plain.items()}
    # the hook's own scope on the known languages and the plain sets: requests tier 1 reads "unread" with no candidate
    scope_known = [r["query"] for r in known_rows
                   if not kinds.unread_candidates(tuple((d := read_directive(r["query"])).candidates), d.evidence,
                                                  r["query"], fold) and d.evidence == "unread"]
    out["hook_scope_known_languages"] = {"n": len(known_rows), "in_scope": len(scope_known)}
    out["hook_scope_plain"] = {name: sum(read_directive(q).evidence == "unread" for q in qs) for name, qs in plain.items()}
    if args.bench:
        live = CrossLingualReader(memo, anchors, background, threshold=0.09)  # anchors from the memo
        live._embedder = e5  # requests embedded live, as the cascade would
        step_factory = lambda: FormatStep(lambda: FormatClassifier(e5))  # noqa: E731
        scope = [r["query"] for r in test_rows if read_directive(r["query"]).evidence == "unread"
                 and not kinds.unread_candidates(tuple(read_directive(r["query"]).candidates), "unread",
                                                 r["query"], fold)]
        out["bench_in_scope"] = {"requests": len(scope), **bench(step_factory, live, scope, args.bench)}
    for name, res in out["cascade"].items():
        print(f"{name:<48} n {res['n']}  format {res['format']:.4f}  drops {res['drop']}  other {res['other']}  "
              f"unasked {res['unasked']}  changed {len(res['changed'])}")
    print(json.dumps({k: v for k, v in out.items() if k != "cascade"}, indent=1, ensure_ascii=False, default=str))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(out, fh, indent=1, ensure_ascii=False, default=str)


if __name__ == "__main__":  # pragma: no cover
    main()
