"""HyDE (Gao et al., ACL 2023): embed a passage an LLM writes to answer the query, not the query itself.

A question and its answer passage are worded differently; a hypothetical answer (even a wrong one) is
worded like the passages that answer it, so its vector lands nearer them. As in the paper, the query's own
vector is averaged in, which keeps the search anchored when the model rambles. Only the vector leg moves:
the hypothetical text never reaches the keyword leg (invented terms would match invented facts).
"""

from __future__ import annotations

import numpy as np

from ..models.base import LLM, ChatMessage

__all__ = ["HYDE_MAX_TOKENS", "hyde_passage", "hyde_vector"]

HYDE_MAX_TOKENS = 96  # one short paragraph: a longer one costs seconds on a small local model and drifts
_PROMPT = ("Write one short factual paragraph, like an encyclopedia or paper abstract, that answers the "
           "question. Do not say you are unsure; do not repeat the question.")


def hyde_passage(llm: LLM, query: str, *, max_tokens: int = HYDE_MAX_TOKENS) -> str:
    """The model's hypothetical answer passage (stripped; empty when the model returned nothing)."""
    messages = [ChatMessage("system", _PROMPT), ChatMessage("user", query)]
    return llm.complete(messages, max_tokens=max_tokens, temperature=0.0).text.strip()


def hyde_vector(query_vector: np.ndarray, passage_vector: np.ndarray) -> np.ndarray:
    """The unit-length mean of the query's and the hypothetical passage's vectors."""
    v = np.asarray(query_vector, dtype=np.float32) + np.asarray(passage_vector, dtype=np.float32)
    norm = float(np.linalg.norm(v))
    return v / norm if norm > 0 else np.asarray(query_vector, dtype=np.float32)
