"""A cross-lingual word reader: the shape words of a request in a language tier 1 cannot read, found by e5.

Why: a request in a language nobody tuned tier 1 to is read "unread" (no format word found) and the format
classifier chooses over the whole sentence's e5 vector, which the topic dominates, so "ცხრილი" (Georgian: a table)
beside "langchain releases of 2025" reads as a timeline. multilingual-e5 places a word near its translations, so
each word and word pair of the request is embedded (one batch) and compared with the shape words tier 1 knows in
English and the nine languages (``lexicon.KINDS``); a span nearer to several of a shape's words than to any
ordinary word of those languages is a candidate for that shape, which the classifier may choose beside none
(never a wish claimed: the span may be refused, or a topic).

Scoring (``score``): vectors are centred on the mean of the anchors and the background (e5's vectors share a large
common direction: unrelated words sit near cosine 0.8), then a span's score for a shape is the mean of its
``TOP_ANCHORS`` best cosines to that shape's anchors, less its best cosine to an ordinary word (the background).
The mean over several anchors is what keeps a hub out: "vi" (Esperanto "you") is near "viz" alone, a real table
word ("töflu", "табела", "tabloyek") is near "tabla", "tabel" and "tabella" together. Anchors that are
abbreviations, brands or symbols ("tbl", "viz", "excel", "📊", "図") sit near everything and are left out
(``_HUBS``, and one-character surfaces).

Measured (``python -m groundsearch.evaluation.crosslingual_study``, leave-one-language-out over the 401 learning rows
of heldout2-23 in 102 languages outside the nine): alone it finds the asked shape in 123 of 315 requests (0.09), but
the classifier already reads those cognates ("tabel", "grafik", "töflu"): in the cascade it gains 2 rows at any
threshold 0.0-0.12 and none with the threshold chosen leaving each split out; the words it misses have no
cognate among the nine ("ცხრილი", "jedwali", "तक्ता") and most drops come from a sure "none" it never sees. It
costs a request it reads ~170 ms at p50 (two cores, busy). So it is not wired into the cascade.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ...models.base import Embedder
from ...types import Format
from . import lexicon
from .directives import fold

__all__ = ["CONCEPTS", "Found", "CrossLingualReader", "anchor_words", "background_words", "spans"]

# The shapes read, as the lexicon names them: a format, or a chart of a kind (which carries the format chart).
CONCEPTS: tuple[str, ...] = ("table", "timeline", "graph", "chart", "chart:bar", "chart:line", "chart:pie")
# Anchors near every word: abbreviations, file formats and brands, verbs of drawing, a bare "bar", and the
# multi-word phrases whose second word is not the shape ("grafo de", "rete di").
_HUBS = frozenset("""tbl tbls chrt chrts viz dataviz csv excel xlsx エクセル draw visual visuals figure bar bars""".split()
                  ) | {"excel style", "excel file", "excel sheet", "grafo de", "rete di"}
TOP_ANCHORS = 3  # a span's score for a shape is the mean of its best cosines to this many of the shape's anchors
# The score above which a span is a candidate: the study's pooled figure is flat over 0.0-0.12; left out split by
# split it chooses 0.12 (one split 0.0, one 0.15).
THRESHOLD = 0.09
MAX_SPANS = 64  # a request longer than this many words and word pairs is read on its first ones only
_KEEP = frozenset("'’")


def anchor_words(kinds: Mapping[str, Sequence[str]] | None = None) -> dict[str, tuple[str, ...]]:
    """Each concept's anchors: the lexicon's surfaces of it (English and the nine languages only: every other
    language is what the reader is for, and the study's leave-one-language-out figure needs none of them here),
    of one or two words, less the hubs and one-character or symbol surfaces."""
    kinds = lexicon.KINDS if kinds is None else kinds
    out = {}
    for concept in CONCEPTS:
        keep = [s for s in dict.fromkeys(kinds.get(concept, ())) if len(s) >= 2 and len(s.split()) <= 2
                and s not in _HUBS and not any(unicodedata.category(c) == "So" for c in s)]
        out[concept] = tuple(keep)
    return out


def words(text: str) -> list[str]:
    """The request's words, lower-cased, split at spaces and punctuation; combining marks stay (an Indic vowel sign
    is part of its word), digits and one-letter words go."""
    out = []
    for token in text.lower().split():
        token = "".join(c if unicodedata.category(c)[0] not in "PSZ" or c in _KEEP else " " for c in token)
        out += [w for w in (t.strip("'’") for t in token.split()) if len(w) >= 2 and not w.isdigit()]
    return out


def spans(text: str, limit: int = MAX_SPANS) -> list[str]:
    """Each word and each pair of neighbouring words once ("vijë kohore", "zaman çizelgesi" name a timeline in two
    words), words first."""
    w = words(text)
    return list(dict.fromkeys(w + [f"{a} {b}" for a, b in zip(w, w[1:], strict=False)]))[:limit]


def background_words(requests: Iterable[str], anchors: Mapping[str, Sequence[str]], limit: int = 3000) -> list[str]:
    """The ``limit`` most frequent words and word pairs of ``requests`` (requests in English and the nine
    languages), less any that hold an anchor's word or a word a typo away from one (``_near``): the
    ordinary words a shape word must be nearer to its shape than to."""
    anchor_words_ = {w for surfaces in anchors.values() for s in surfaces for w in fold(s).split()}
    long_ones = [a for a in anchor_words_ if len(a) >= 4]
    counts: Counter[str] = Counter()
    for text in requests:
        for span in spans(text, limit=10_000):
            counts[span] += 1

    def shape_like(word: str) -> bool:
        return word in anchor_words_ or len(word) >= 4 and any(_near(word, a) for a in long_ones)

    return [s for s, _ in counts.most_common() if not any(shape_like(w) for w in fold(s).split())][:limit]


def _near(a: str, b: str) -> bool:
    """One edit apart, or two for words of seven letters or more: a typo of a shape word ("timelime") is no ordinary
    word. Crude on short words ("like" is one edit from "line", and goes too): a background a few ordinary words
    short costs less than one holding a shape word's typo."""
    most = 2 if min(len(a), len(b)) >= 7 else 1
    if abs(len(a) - len(b)) > most:
        return False
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1] <= most


@dataclass(frozen=True, slots=True)
class Found:
    concept: str  # one of CONCEPTS
    span: str  # the request's words read as it
    score: float

    @property
    def format(self) -> Format:
        return "chart" if self.concept.startswith("chart") else self.concept  # type: ignore[return-value]

    @property
    def subtype(self) -> str | None:
        return self.concept.split(":", 1)[1] if ":" in self.concept else None


class CrossLingualReader:
    """``read(query)`` → the shapes whose words the request holds, best first; one e5 batch per request.

    ``anchors`` and ``background`` are embedded once, here (about 3,300 texts for the lexicon's anchors and a
    3,000-word background: tens of seconds on one core, so a caller that builds readers often passes an embedder
    that remembers, as the study does)."""

    def __init__(self, embedder: Embedder, anchors: Mapping[str, Sequence[str]], background: Sequence[str], *,
                 threshold: float = THRESHOLD, top: int = TOP_ANCHORS) -> None:
        self.threshold, self.top = threshold, top
        self._embedder = embedder
        texts = [s for c in CONCEPTS for s in anchors.get(c, ())]
        self._concept = np.array([c for c in CONCEPTS for _ in anchors.get(c, ())])
        if not texts or not background:
            raise ValueError("a cross-lingual reader needs anchors and background words")
        a = np.asarray(embedder.embed_queries(texts), dtype=np.float32)
        b = np.asarray(embedder.embed_queries(list(background)), dtype=np.float32)
        self._mean = np.concatenate([a, b]).mean(axis=0)
        self._anchors, self._background = self._centred(a), self._centred(b)

    def _centred(self, x: np.ndarray) -> np.ndarray:
        x = x - self._mean
        return x / np.linalg.norm(x, axis=1, keepdims=True)

    def scores(self, query: str) -> dict[str, tuple[float, str]]:
        """Per concept, the best span's score and the span."""
        found = spans(query)
        if not found:
            return {}
        x = self._centred(np.asarray(self._embedder.embed_queries(found), dtype=np.float32))
        to_anchor = x @ self._anchors.T
        ordinary = (x @ self._background.T).max(axis=1)
        out = {}
        for concept in CONCEPTS:
            cols = to_anchor[:, self._concept == concept]
            if cols.shape[1] == 0:
                continue
            k = min(self.top, cols.shape[1])
            s = np.sort(cols, axis=1)[:, -k:].mean(axis=1) - ordinary
            j = int(np.argmax(s))
            out[concept] = (float(s[j]), found[j])
        return out

    def read(self, query: str) -> list[Found]:
        """The concepts scored above the threshold, best first; a chart kind only where it scored above the bare
        chart (the kinds' anchors hold chart words, "grafico a linee", so "një grafik" is near a line, a pie and a
        bar alike, and less near each than near "grafico")."""
        scored = self.scores(query)
        chart = scored.get("chart", (float("-inf"), ""))[0]
        got = [Found(c, span, score) for c, (score, span) in scored.items()
               if score > self.threshold and (":" not in c or score > chart)]
        return sorted(got, key=lambda f: -f.score)

    def candidates(self, query: str) -> tuple[Format, ...]:
        """The formats found, for the classifier to choose among beside none (tier 1's ``candidates``)."""
        return tuple(dict.fromkeys(f.format for f in self.read(query)))
