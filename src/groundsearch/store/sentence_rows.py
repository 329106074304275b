"""Pure codec of the stored sentence vectors (one row per chunk and embedding model), shared by backends.

Why stored at all: an extractive answer scores a page's candidate sentences by their similarity to the
question, and embedding a dozen cold sentences on a request cost more than the retrieval (issue 11).
They are embedded once, after the chunk vectors (:mod:`groundsearch.ingest.embed_worker`), and read back
with the page. A row names its sentences by digest rather than text: the lookup only needs to match the
text the answer path computes, digests hold no NUL a Postgres ``text`` would refuse, and they are short.
The row is keyed by the chunk's *key* (never reused) and dropped with the chunk, so a re-ingested chunk
with new text starts without vectors instead of inheriting stale ones; the model id in the key makes a
new embedder miss rather than mix vector spaces.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from ..errors import InvalidInput
from .base import check_vectors

__all__ = ["SentenceRow", "check_rows", "digest", "pack", "unpack"]

SentenceRow = tuple[int, Sequence[str], np.ndarray]  # (chunk key, sentence texts, their vectors (n, dim))


def digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


def pack(vectors: np.ndarray) -> bytes:
    return np.ascontiguousarray(vectors, dtype="<f4").tobytes()


def unpack(blob: bytes, n: int, dim: int) -> np.ndarray:
    return np.frombuffer(blob, dtype="<f4").reshape(n, dim).astype(np.float32)


def check_rows(rows: Sequence[SentenceRow], dim: int) -> list[tuple[int, list[str], bytes]]:
    """``(key, digests, packed vectors)`` per row, or :class:`InvalidInput` saying which row is wrong."""
    out = []
    for key, sentences, vectors in rows:
        if isinstance(sentences, str):
            raise InvalidInput(f"sentences of chunk {key} must be a list of texts, not one string")
        vecs = check_vectors(vectors, len(sentences), dim) if len(sentences) else np.zeros((0, dim), np.float32)
        out.append((int(key), [digest(s) for s in sentences], pack(vecs)))
    return out
