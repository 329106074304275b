"""Sentence vectors for extractive answers, computed once per (embedder, chunk, sentence) and kept in an LRU.

Scoring candidate sentences by their similarity to the question needs one vector per sentence. Embedding
every candidate of the fused page on every request would cost more than the retrieval itself, so a
vector is computed the first time its sentence is a candidate and reused after. The key is the
embedder's ``model_id`` (which names the weights' hashes), the chunk key and the sentence text, so a
re-ingested chunk with new text or a new model never reuses a stale vector. In process rather than
stored: the working set of an answer path is the few hundred chunks that popular questions land on,
and a few thousand 384-float vectors (~1.5 kB each) fit in a few MB.

One cache belongs to one retriever (the object that owns the embedder and its query-vector cache): it
is found through a weak-keyed map, so it lives exactly as long as that retriever, and nothing global
outlives an engine.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["SENTENCE_CACHE_SIZE", "SentenceVectors", "sentence_vectors_for"]

SENTENCE_CACHE_SIZE = 20_000  # ~30 MB of 384-d float32 vectors at most


class SentenceVectors:
    """Question and sentence vectors from one embedder, sentences cached in an LRU.

    ``query`` is delegated to ``embed_query`` when the owner has one (the retriever memoises query
    vectors, so the question is not embedded twice per request).
    """

    def __init__(self, embedder: Any, *, embed_query: Any = None, size: int = SENTENCE_CACHE_SIZE) -> None:
        self.embedder = embedder
        self._embed_query = embed_query
        self._size = size
        self._cache: OrderedDict[tuple[str, str, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def query(self, text: str) -> np.ndarray:
        if self._embed_query is not None:
            return np.asarray(self._embed_query(text), dtype=np.float32)
        return np.asarray(self.embedder.embed_queries([text])[0], dtype=np.float32)

    def sentences(self, items: Sequence[tuple[str, str]]) -> np.ndarray:
        """Vectors for ``(chunk key, sentence)`` pairs, shape ``(len(items), dim)``; misses embedded in one batch."""
        model = self.embedder.model_id
        keys = [(model, chunk, text) for chunk, text in items]
        found: dict[int, np.ndarray] = {}
        with self._lock:
            for i, key in enumerate(keys):
                vec = self._cache.get(key)
                if vec is not None:
                    self._cache.move_to_end(key)
                    found[i] = vec
        missing = [i for i in range(len(keys)) if i not in found]
        if missing:
            fresh = np.asarray(self.embedder.embed_passages([items[i][1] for i in missing]), dtype=np.float32)
            with self._lock:
                for i, vec in zip(missing, fresh, strict=True):
                    found[i] = vec
                    self._cache[keys[i]] = vec
                    self._cache.move_to_end(keys[i])
                while len(self._cache) > self._size:
                    self._cache.popitem(last=False)
        self.hits += len(keys) - len(missing)
        self.misses += len(missing)
        if not keys:
            return np.zeros((0, int(getattr(self.embedder, "dim", 0))), dtype=np.float32)
        return np.stack([found[i] for i in range(len(keys))])

    def __len__(self) -> int:
        return len(self._cache)


_BY_OWNER: weakref.WeakKeyDictionary[Any, SentenceVectors] = weakref.WeakKeyDictionary()
_BY_OWNER_LOCK = threading.Lock()


def sentence_vectors_for(retriever: Any) -> SentenceVectors:
    """The sentence-vector cache of ``retriever`` (made on first use; dropped with the retriever)."""
    with _BY_OWNER_LOCK:
        cache = _BY_OWNER.get(retriever)
        if cache is None or cache.embedder is not retriever.embedder:
            cache = SentenceVectors(retriever.embedder, embed_query=getattr(retriever, "embed_query", None))
            _BY_OWNER[retriever] = cache
        return cache
