"""The default embedder: all-MiniLM-L6-v2 (int8 ONNX) run by onnxruntime, no torch, no hub.

The graph ends at ``last_hidden_state``; pooling is ours. We follow the sentence-transformers recipe the
model was trained for — WordPiece truncated at 256 tokens, mean pooling over the attention mask, L2
normalisation — so cosines match the published model (``../shared/MODELS.md`` sanity values).

Trap handled here: the shipped ``tokenizer.json`` pads every input to a fixed 128 tokens and truncates at
128. We switch padding off in the tokenizer and pad each length-sorted batch only to its own longest
member (dynamic padding); short queries then cost a handful of positions instead of 128.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import EmbeddingFailed, ModelError
from .files import MINILM_MODEL, MINILM_TOKENIZER, PinnedFile, verified_path

__all__ = ["MAX_TOKENS", "MiniLMEmbedder", "mean_pool", "session_options"]

# The model was trained with sequences up to 256 word pieces (sentence-transformers' max_seq_length);
# longer inputs are cut there, which is why ingest keeps chunks inside this window.
MAX_TOKENS = 256
DIM = 384


def mean_pool(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Average token states where ``mask`` is 1, then L2-normalise each row (float32 out).

    Padding positions must not dilute the mean, hence the mask; the clip guards an all-zero mask.
    """
    weights = mask[:, :, None].astype(np.float32)
    summed = (hidden * weights).sum(axis=1)
    counts = np.clip(weights.sum(axis=1), 1e-9, None)
    pooled = summed / counts
    norms = np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
    return (pooled / norms).astype(np.float32, copy=False)


def session_options(threads: int) -> Any:
    """The CPU session options of the bundled MiniLM: one graph at a time, parallel only within it, and no
    busy-waiting between runs — a worker that spins after each query embedding burns the core the request's own
    Python work needs (process CPU per embed + 5 ms of Python: 14.9 -> 9.7 ms measured, vectors bit-identical,
    +0.9 ms wall on an idle machine, session 8; the demo answer's CPU p95 in BENCHMARKS.md, "Eighth session")."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return options


class MiniLMEmbedder:
    """:class:`~groundsearch.models.base.Embedder` over the pinned all-MiniLM-L6-v2 int8 ONNX file.

    The model is symmetric (no query/passage prefixes), so both methods embed alike. ``model_path`` and
    ``tokenizer_path`` override where the files are read from; they are still checked against the pinned
    SHA-256s.
    """

    dim: int = DIM

    def __init__(
        self,
        *,
        threads: int = 2,
        batch_size: int = 32,
        max_tokens: int = MAX_TOKENS,
        model_file: PinnedFile = MINILM_MODEL,
        tokenizer_file: PinnedFile = MINILM_TOKENIZER,
        model_path: Path | None = None,
        tokenizer_path: Path | None = None,
    ) -> None:
        if threads < 1 or batch_size < 1 or not 2 <= max_tokens <= 512:
            raise ModelError(
                f"MiniLMEmbedder: threads and batch_size must be >= 1 and max_tokens in 2..512, "
                f"got threads={threads}, batch_size={batch_size}, max_tokens={max_tokens}"
            )
        import onnxruntime as ort
        from tokenizers import Tokenizer

        model = verified_path(model_file, model_path)
        tokenizer = verified_path(tokenizer_file, tokenizer_path)
        try:
            self._tokenizer = Tokenizer.from_file(str(tokenizer))
        except Exception as exc:  # the tokenizers library raises bare Exception subclasses
            raise ModelError(f"cannot load tokenizer {tokenizer}: {exc}") from exc
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length=max_tokens)
        self._pad_id = self._tokenizer.token_to_id("[PAD]") or 0

        options = session_options(threads)
        try:
            self._session = ort.InferenceSession(str(model), sess_options=options, providers=["CPUExecutionProvider"])
        except Exception as exc:
            raise ModelError(f"onnxruntime cannot load {model}: {exc}") from exc
        self._input_names = {i.name for i in self._session.get_inputs()}
        self.batch_size = batch_size
        self.threads = threads
        self.model_id = f"all-MiniLM-L6-v2-int8@{model_file.sha256[:12]}+tok@{tokenizer_file.sha256[:8]}"

    def __repr__(self) -> str:
        return f"MiniLMEmbedder(model_id={self.model_id!r}, threads={self.threads}, batch_size={self.batch_size})"

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts)

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        """Word pieces per text *after* truncation (special tokens included)."""
        return [len(e.ids) for e in self._tokenizer.encode_batch(list(texts))]

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise EmbeddingFailed("embed_* takes a sequence of strings, got a single str")
        texts = list(texts)
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        bad = [i for i, t in enumerate(texts) if not isinstance(t, str)]
        if bad:
            raise EmbeddingFailed(f"embed_* needs strings; item {bad[0]} is {type(texts[bad[0]]).__name__}")
        try:
            encodings = self._tokenizer.encode_batch(texts)
        except Exception as exc:
            raise EmbeddingFailed(f"tokenization failed: {exc}") from exc
        # Sorting by length groups similar lengths so dynamic padding wastes little; order is restored below.
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        out = np.empty((len(texts), DIM), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            out[idx] = self._run([encodings[i].ids for i in idx])
        return out

    def _run(self, batch_ids: list[list[int]]) -> np.ndarray:
        width = max(len(ids) for ids in batch_ids)
        input_ids = np.full((len(batch_ids), width), self._pad_id, dtype=np.int64)
        mask = np.zeros((len(batch_ids), width), dtype=np.int64)
        for row, ids in enumerate(batch_ids):
            input_ids[row, : len(ids)] = ids
            mask[row, : len(ids)] = 1
        feeds = {"input_ids": input_ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(input_ids)
        try:
            (hidden,) = self._session.run(["last_hidden_state"], feeds)
        except Exception as exc:
            raise EmbeddingFailed(f"onnxruntime failed on a batch of {len(batch_ids)}: {exc}") from exc
        return mean_pool(hidden, mask)
