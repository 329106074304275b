"""Sentence vectors for extractive answers: read from the store, else computed once and kept in an LRU.

Scoring candidate sentences by their similarity to the question needs one vector per sentence.
Embedding a page's cold candidates on a request cost more than the retrieval itself (issue 11: 3.4x
plain retrieval's p95 on first sight), so the store keeps them: the embed worker stores every chunk's
quotable sentences after its chunk vector (:func:`groundsearch.ingest.embed_worker.embed_sentences`),
and a request reads the page's rows in one query. What the store lacks — a store written before
sentence vectors existed, a read-only copy of one, a chunk not yet embedded — is embedded on first
sight and kept in an in-process LRU, as before. Keys: the embedder's ``model_id`` (which names the
weights' hashes), the chunk id and the sentence text (its digest in the store), so a re-ingested chunk
with new text or a new model never reuses a stale vector.

One cache belongs to one retriever (the object that owns the embedder, its store and its query-vector
cache): it is found through a weak-keyed map, so it lives exactly as long as that retriever, and
nothing global outlives an engine.
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import StoreError
from ..store.sentence_rows import digest

__all__ = ["SENTENCE_CACHE_SIZE", "ScopedSentenceVectors", "SentenceVectors", "sentence_vectors_for"]

log = logging.getLogger("groundsearch.answer")

SENTENCE_CACHE_SIZE = 20_000  # ~30 MB of 384-d float32 vectors at most


class SentenceVectors:
    """Question and sentence vectors from one embedder, sentences cached in an LRU.

    ``query`` is delegated to ``embed_query`` when the owner has one (the retriever memoises query
    vectors, so the question is not embedded twice per request).
    """

    def __init__(self, embedder: Any, *, embed_query: Any = None, size: int = SENTENCE_CACHE_SIZE,
                 store: Any = None) -> None:
        self.embedder = embedder
        self.store = store
        self._embed_query = embed_query
        self._size = size
        self._cache: OrderedDict[tuple[str, str, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.stored = 0  # read from the store
        self.misses = 0  # embedded here

    def query(self, text: str, scope: str | None = None) -> np.ndarray:
        """``scope``: the caller's, for the owner's per-scope memo (``Retriever.embed_query``)."""
        if self._embed_query is not None:
            vector = self._embed_query(text) if scope is None else self._embed_query(text, scope)
            return np.asarray(vector, dtype=np.float32)
        return np.asarray(self.embedder.embed_queries([text])[0], dtype=np.float32)

    def sentences(self, items: Sequence[tuple[str, str]]) -> np.ndarray:
        """Vectors for ``(chunk id, sentence)`` pairs, shape ``(len(items), dim)``: from the LRU, else from the
        store's rows (one query for the page), else embedded here in one batch."""
        if not items:
            return np.zeros((0, int(getattr(self.embedder, "dim", 0))), dtype=np.float32)
        model = self.embedder.model_id
        keys = [(model, chunk, text) for chunk, text in items]
        found: dict[int, np.ndarray] = {}
        with self._lock:
            for i, key in enumerate(keys):
                vec = self._cache.get(key)
                if vec is not None:
                    self._cache.move_to_end(key)
                    found[i] = vec
        self.hits += len(found)
        missing = [i for i in range(len(keys)) if i not in found]
        if missing and self.store is not None:
            try:
                rows = self.store.sentence_vectors(model, list(dict.fromkeys(items[i][0] for i in missing)))
            except StoreError as exc:  # the stored rows only save time; the answer does not depend on them
                log.warning("stored sentence vectors unreadable, embedding instead: %s", exc)
                rows = {}
            read = {i: v for i in missing if (v := rows.get(items[i][0], {}).get(digest(items[i][1]))) is not None}
            found.update(read)
            self._remember({keys[i]: v for i, v in read.items()})
            self.stored += len(read)
            missing = [i for i in missing if i not in read]
        if missing:
            fresh = np.asarray(self.embedder.embed_passages([items[i][1] for i in missing]), dtype=np.float32)
            found.update(zip(missing, fresh, strict=True))
            self._remember({keys[i]: found[i] for i in missing})
            self.misses += len(missing)
        return np.stack([found[i] for i in range(len(keys))])

    def _remember(self, vectors: dict[tuple[str, str, str], np.ndarray]) -> None:
        with self._lock:
            for key, vec in vectors.items():
                self._cache[key] = vec
                self._cache.move_to_end(key)
            while len(self._cache) > self._size:
                self._cache.popitem(last=False)

    def clear(self) -> None:
        """Forget every cached vector (benchmarks of first sight; the stored rows are untouched)."""
        with self._lock:
            self._cache.clear()

    def __len__(self) -> int:
        return len(self._cache)


class ScopedSentenceVectors:
    """A ``SentenceVectors`` whose question vectors come from one caller scope's memo (sentences are keyed by
    chunk id, so they need no scope): one request's view, the LRU shared."""

    def __init__(self, vectors: SentenceVectors, scope: str) -> None:
        self.vectors, self.scope = vectors, scope

    def query(self, text: str) -> np.ndarray:
        return self.vectors.query(text, self.scope)

    def sentences(self, items: Sequence[tuple[str, str]]) -> np.ndarray:
        return self.vectors.sentences(items)


_BY_OWNER: weakref.WeakKeyDictionary[Any, SentenceVectors] = weakref.WeakKeyDictionary()
_BY_OWNER_LOCK = threading.Lock()


def sentence_vectors_for(retriever: Any) -> SentenceVectors:
    """The sentence-vector cache of ``retriever`` (made on first use; dropped with the retriever)."""
    with _BY_OWNER_LOCK:
        cache = _BY_OWNER.get(retriever)
        if cache is None or cache.embedder is not retriever.embedder:
            cache = SentenceVectors(retriever.embedder, embed_query=getattr(retriever, "embed_query", None),
                                    store=getattr(retriever, "store", None))
            _BY_OWNER[retriever] = cache
        return cache
