"""Tier 2 for the chart kind: a softmax over multilingual-e5 vectors, asked only where the lexicon named no kind.

Why: the lexicon knows kind *names* and a list of *looks*, and when a request asks for a chart without naming
one ("chart how the releases moved", "visualise which venues dominate") it falls back to a house convention
(per month → line, a ranking → ranked bar, else bar). That convention is what new wording defeats most often,
in any language. The classifier reads the whole request instead, near its paraphrases in the nine languages.

Where it decides (:meth:`KindStep.refine`), after the format is settled as a chart:

* the lexicon named a kind, or read one from its look — that kind stands (tier 1 decides what it is sure of);
* the lexicon named a plain bar chart ("bar chart", "barres", "棒グラフ") — the classifier may only say which
  *bar-shaped* kind it is (ranked, stacked, tornado, waterfall, Gantt, histogram): bars asked for are never
  turned into a pie;
* no kind named — the classifier chooses among every kind it knows; ``other`` is never its answer, since a
  kind outside the schema is only known by the user's own words for it.

The weights (``kind_model.npz``, ~40 KB) are fitted on the chart rows of :func:`training_files` and the
prototypes by ``python -m groundsearch.evaluation.kind_training --write``, which records the files' sha256 in
the npz; they are tied to the e5 weights' ``model_id`` like the format classifier.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import ConfigError, EmbeddingFailed
from ...models.base import Embedder
from ...types import ChartSubtype
from . import kinds
from .directives import Directive, fold, read_directive
from .format_model import TRAINING_FILES, _softmax, blind_requests, fit_softmax, standardiser
from .format_step import FormatDecision, LazyModel

__all__ = ["BAR_SHAPED", "REFINE_BARS_AT", "KindClassifier", "KindStep", "OneVectorMemo", "fit", "settled",
           "refused_kinds", "standing", "training_files", "training_rows", "training_sha256"]

_PKG = "groundsearch.query.intent"
# Kinds drawn as bars: what a request that names plain bars may still turn out to want.
BAR_SHAPED: tuple[ChartSubtype, ...] = ("bar", "ranked-bar", "stacked-bar", "tornado", "waterfall", "gantt",
                                        "histogram")
# Plain bars the user named stay plain unless the classifier is this sure of another bar-shaped kind (its
# probability renormalised over BAR_SHAPED). Chosen leave-one-split-out on the blind lexicon readings of
# heldout2-13 (kind-blind.jsonl): every fold picks 0.7; pooled 0.933 -> 0.936. "oszlopdiagram", "gráfico de
# barras", "vertical bar chart" were being turned into stacked or ranked bars on a 0.4-0.6 guess. The unnamed
# case keeps no such floor: there the same search found the classifier better than the house convention at
# every confidence.
REFINE_BARS_AT = 0.7


def training_files() -> tuple[str, ...]:
    """The format classifier's learning splits (heldout24 and heldout25 among them from session 17; the next blind
    splits, heldout26 and heldout27, kept for a final blind measurement, never)."""
    return TRAINING_FILES


# Chart requests written for the kind step alone (session 12), in the classes the learning splits showed it
# missing: orderings without "top", plain counts per category, ranks over time, parts of a whole, stacked areas.
EXAMPLES = "kind_examples.jsonl"


def _files() -> list[Any]:
    base = resources.files("groundsearch.evaluation") / "data"
    return [base / n for n in training_files()] + [resources.files(_PKG) / n for n in ("prototypes.jsonl", EXAMPLES)]


def training_rows() -> list[dict[str, Any]]:
    """The chart rows of the training files, the prototypes and the kind examples with a kind the schema names,
    each request once,
    less any request a blind split also holds (as the format classifier's rows)."""
    rows, seen = [], set(blind_requests())
    for res in _files():
        for line in res.read_text("utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            key = row["query"].casefold()
            if row["format"] == "chart" and row.get("chart_subtype") not in (None, "other") and key not in seen:
                seen.add(key)
                rows.append({"query": row["query"], "chart_subtype": row["chart_subtype"]})
    return rows


def training_sha256() -> str:
    h = hashlib.sha256()
    for res in _files():
        h.update(res.read_bytes())
    return h.hexdigest()


def fit(raw: np.ndarray, labels: Sequence[str], model_id: str) -> dict[str, Any]:
    """The classifier's arrays, fitted on raw e5 vectors and their kinds (what :class:`KindClassifier` loads)."""
    kinds = sorted(set(labels))
    mean, scale = standardiser(raw)
    w, b = fit_softmax((raw - mean) / scale, np.array([kinds.index(k) for k in labels]), len(kinds))
    return {"w": w, "b": b, "mean": mean.astype(np.float32), "scale": scale.astype(np.float32),
            "kinds": np.array(kinds), "model_id": model_id}


class OneVectorMemo:
    """An embedder that runs one request at a time and remembers the last query's vector, so the format and the
    kind classifier, asked about the same request one after the other, pay for one e5 pass.

    The memo is the calling thread's and is forgotten when the request's classification ends (``forget``): one
    memo for the process served the next request of the same text — another tenant's — without an e5 pass, and
    ``latency_ms["classify.format"]`` shows the pass (~10-20 ms, ~0 from the memo), so a tenant learnt whether its
    guess was exactly the request classified before its own (tests/security/test_shared_caches.py).
    """

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dim = inner.dim
        self._lock = threading.Lock()
        self._local = threading.local()

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        last: tuple[str, np.ndarray] | None = getattr(self._local, "last", None)
        if len(texts) == 1 and last is not None and last[0] == texts[0]:
            return last[1][None, :]
        with self._lock:
            out = np.asarray(self.inner.embed_queries(texts), dtype=np.float32)
        if len(texts) == 1:
            self._local.last = (texts[0], out[0])
        return out

    def forget(self) -> None:
        """End this thread's memo: the request it was kept for is classified."""
        self._local.last = None

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        with self._lock:
            return self.inner.embed_passages(texts)


class KindClassifier:
    """``probabilities(query)`` over ``kinds``; ``predict(query, among)`` the best of ``among`` (all when empty)."""

    def __init__(self, embedder: Embedder, *, path: Path | None = None, fitted: dict[str, Any] | None = None) -> None:
        if fitted is None:
            src = Path(path) if path else resources.files(_PKG) / "kind_model.npz"
            with src.open("rb") as fh:  # type: ignore[union-attr]
                fitted = dict(np.load(fh, allow_pickle=False))
        self.w, self.b = fitted["w"], fitted["b"]
        self.mean, self.scale = fitted["mean"], fitted["scale"]
        self.kinds: tuple[str, ...] = tuple(str(k) for k in fitted["kinds"])
        self.model_id = str(fitted["model_id"])
        if embedder.model_id != self.model_id:
            raise ConfigError(f"chart-kind classifier was trained on {self.model_id}, not {embedder.model_id}; "
                              "retrain it with python -m groundsearch.evaluation.kind_training --write")
        self._embedder = embedder

    def probabilities(self, query: str) -> np.ndarray:
        v = np.asarray(self._embedder.embed_queries([query]), dtype=np.float32)[0]
        return _softmax(((v - self.mean) / self.scale) @ self.w + self.b)

    def predict(self, query: str, among: Sequence[str] = ()) -> tuple[ChartSubtype, float]:
        return choose(self.kinds, self.probabilities(query), among)


def choose(kinds: Sequence[str], p: np.ndarray, among: Sequence[str] = ()) -> tuple[ChartSubtype, float]:
    """The most probable of ``among`` (every kind when empty), renormalised over them."""
    mask = np.array([not among or k in among for k in kinds])
    q = np.where(mask, p, 0.0) if mask.any() else p
    q = q / q.sum()
    best = int(np.argmax(q))
    return kinds[best], float(q[best])  # type: ignore[return-value]


def settled(lexicon_kind: str, allowed: Sequence[str], kind: str, p: float, query: str = "",
            refused: frozenset[str] = frozenset()) -> str:
    """The kind the step keeps: the classifier's ``kind`` (probability ``p`` among ``allowed``), except that named
    plain bars stay plain below :data:`REFINE_BARS_AT`, and that plain bars chosen where no kind is named, for a
    count along a time axis (:func:`kinds.over_time`: per month, over the years, since 2023), are the line the
    convention draws it as, unless the request refused a line. The classifier, reading the whole request, put
    "how many packages were released each month since July", "papers counted per year as a chart" and "een
    grafiek van het aantal releases per maand" in bars where the lexicon had read the line (``query``: the
    request; ``refused``: :func:`refused_kinds`)."""
    if tuple(allowed) == BAR_SHAPED and lexicon_kind == "bar" and p < REFINE_BARS_AT:
        return lexicon_kind
    if not allowed and kind == "bar" and "line" not in refused and kinds.over_time(fold(query)):
        return "line"
    return kind


def standing(query: str, decision: FormatDecision) -> ChartSubtype | None:
    """The kind the rules settle before the classifier is asked, or None.

    Bars (named, or the house convention's) or the house's ranked bar, in a request that orders its categories by
    a count ("rank them visually", "biggest first", "a horizontal bar chart ranking X by Y"): the ranked bar. The
    classifier read these as plain bars, and as lines where the ranking was of a year's releases (heldout16/17
    misses); it is no better than its neighbours at telling an ordering from a count. Where no kind is named: a
    kind's name in a script tier 1 does not read is that kind (:func:`kinds.unread_named`), a chart asked for "as
    a line" is a line, and the house's bars (or pie) of what part of a whole each category is a pie. A kind outside
    the schema whose name misspells one of the schema's ("donught chart") is that kind (:func:`kinds.misspelt`)."""
    if decision.format != "chart" or decision.tier == "llm":
        return None
    if decision.chart_subtype == "other" and decision.chart_requested is not None:
        # "donught chart", "bocks plot": a kind's name misspelt past what tier 1 forgives is that kind
        return kinds.misspelt(decision.chart_requested)
    folded = fold(query)
    unnamed = decision.chart_requested is None
    if unnamed and (named := kinds.unread_named(folded, fold)) is not None:
        return named  # "គំនូសតាងរង្វង់" (Khmer, a pie): a kind's name in a script tier 1 does not read
    if unnamed and kinds.as_line(folded):
        return "line"  # "show it as a line over time instead": the line is named without a chart word
    if decision.chart_subtype not in ("bar", "ranked-bar", "pie"):
        return None
    if decision.chart_subtype != "bar" and not unnamed:
        return None  # a ranked bar or pie named or described stands by :func:`among` already
    if decision.chart_subtype != "pie" and kinds.ranks(folded):
        return "ranked-bar"
    if unnamed and kinds.shares(folded):
        # "what fraction of releases each registry accounts for", "which venues took the biggest share of the
        # whole": the part of a whole each is, where the house convention said bars or already a pie
        return "pie"
    return None


def refused_kinds(query: str, directive: Directive | None = None) -> frozenset[str]:
    """The chart kinds the request turns down ("forget the bar chart from before; … over time instead", "no pie,
    a chart of …"): the classifier never answers one, though the refused name is the nearest thing in the request
    to a kind (heldout17 read its line over time as the bar it refused). ``directive``: tier 1's reading of
    ``query`` where the caller holds it (the cascade does), so the request is not read twice."""
    terms = (directive if directive is not None else read_directive(query)).terms
    return frozenset(t.kind.split(":", 1)[1] for t in terms if t.frame == "refused" and t.kind.startswith("chart:"))


def choices(allowed: Sequence[str], kinds: Sequence[str], refused: frozenset[str]) -> tuple[str, ...]:
    """What the classifier chooses among: ``allowed`` (every kind when empty) less the refused kinds."""
    pool = tuple(allowed) or tuple(kinds)
    kept = tuple(k for k in pool if k not in refused)
    return kept if kept and refused else tuple(allowed)


def among(decision: FormatDecision) -> tuple[str, ...] | None:
    """Which kinds the classifier may choose among for a chart decision, or None when the lexicon's kind stands."""
    if decision.format != "chart" or decision.tier == "llm":
        return None  # tier 3 answers the kind itself where it measured better
    if decision.chart_requested is None:
        return ()  # no kind named: the house convention is only a guess
    if decision.chart_subtype == "bar":
        return BAR_SHAPED
    return None


class KindStep:
    """Thread-safe; the classifier loads on the first chart whose kind the lexicon did not name."""

    def __init__(self, classifier: Callable[[], KindClassifier] | None) -> None:
        self._lazy: LazyModel[KindClassifier] = LazyModel(classifier, "chart-kind classifier")

    def asked(self, decision: FormatDecision, query: str = "") -> bool:
        """Whether :meth:`refine` consults the classifier for this decision."""
        return self._lazy.factory is not None and among(decision) is not None and standing(query, decision) is None

    def refine(self, query: str, decision: FormatDecision, directive: Directive | None = None
               ) -> tuple[FormatDecision, list[str]]:
        """The decision with the classifier's kind where the lexicon named none (or only plain bars) and no rule
        of :func:`standing` settled it (``directive``: tier 1's reading of ``query``, if the caller has it)."""
        ruled = standing(query, decision)
        if ruled is not None:
            return (decision if ruled == decision.chart_subtype else
                    FormatDecision(decision.format, ruled, decision.chart_requested, decision.tier,
                                   decision.confidence)), []
        allowed = among(decision)
        if allowed is None or self._lazy.factory is None:
            return decision, []  # no factory: built without a classifier, the lexicon's kind stands
        model = self._lazy.get()
        if model is None:
            return decision, [f"chart-kind classifier unavailable ({self._lazy.failed or 'not configured'}); "
                              "the lexicon's house convention used"]
        refused = refused_kinds(query, directive)
        try:
            kind, p = model.predict(query, choices(allowed, model.kinds, refused))
        except EmbeddingFailed as exc:
            return decision, [f"chart-kind classifier failed ({exc.message}); the lexicon's house convention used"]
        kind = settled(str(decision.chart_subtype), allowed, kind, p, query, refused)  # type: ignore[assignment]
        if kind == decision.chart_subtype:
            return decision, []
        return FormatDecision(decision.format, kind, decision.chart_requested, decision.tier,
                              decision.confidence), []
