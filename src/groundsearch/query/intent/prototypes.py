"""Tier 2: the nearest labelled prototype request (by embedding cosine) decides the fields.

The prototypes (``prototypes.jsonl`` beside this module, hand-labelled) are embedded once per embedder
and kept on disk under ``<data_dir>/intent-prototypes/``, keyed by the embedder's ``model_id`` (which
names its weights' hash) and by the prototype file's own hash, so new weights or edited prototypes are
re-embedded and nothing stale is ever read.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from ...errors import ConfigError
from ...models.base import Embedder
from ...types import ChartSubtype, Complexity, Format
from .rules import DomainVocab

__all__ = ["Prototype", "PrototypeIndex", "PrototypeMatch", "load_prototypes"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Prototype:
    query: str
    format: Format
    chart_subtype: ChartSubtype | None
    domains: tuple[str, ...]  # concept names: docs / releases / papers
    complexity: Complexity


@dataclass(frozen=True, slots=True)
class PrototypeMatch:
    prototype: Prototype
    cosine: float
    domains: tuple[str, ...]  # mapped onto the configured domain names


def _prototype_bytes(path: Path | None) -> bytes:
    if path is not None:
        return Path(path).read_bytes()
    return (resources.files("groundsearch.query.intent") / "prototypes.jsonl").read_bytes()


def load_prototypes(raw: bytes) -> tuple[Prototype, ...]:
    out = []
    for n, line in enumerate(raw.decode("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            out.append(
                Prototype(
                    query=row["query"], format=row["format"], chart_subtype=row["chart_subtype"],
                    domains=tuple(row["domains"]), complexity=row["complexity"],
                )
            )
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise ConfigError(f"intent prototypes line {n} is malformed: {exc}") from None
    if not out:
        raise ConfigError("intent prototypes file is empty")
    return tuple(out)


class PrototypeIndex:
    """Prototype vectors for one embedder, loaded from the disk cache or computed and stored once."""

    def __init__(self, embedder: Embedder, *, data_dir: Path | None = None, path: Path | None = None) -> None:
        raw = _prototype_bytes(path)
        self.prototypes = load_prototypes(raw)
        self._embedder = embedder
        digest = hashlib.sha256(embedder.model_id.encode() + b"\0" + raw).hexdigest()[:24]
        self.cache_file = Path(data_dir) / "intent-prototypes" / f"{digest}.npy" if data_dir else None
        self.vectors = self._load_or_embed()

    def _load_or_embed(self) -> np.ndarray:
        if self.cache_file is not None and self.cache_file.is_file():
            try:
                vectors = np.load(self.cache_file, allow_pickle=False)
                if vectors.shape == (len(self.prototypes), self._embedder.dim):
                    return vectors
            except (OSError, ValueError) as exc:
                log.warning("intent prototypes cache %s unreadable (%s); re-embedding", self.cache_file, exc)
        vectors = np.asarray(self._embedder.embed_queries([p.query for p in self.prototypes]), dtype=np.float32)
        if self.cache_file is not None:
            self.cache_file.parent.mkdir(parents=True, exist_ok=True)
            # Write-then-rename: two processes warming the same cache never leave a half-written file.
            fd, tmp = tempfile.mkstemp(dir=self.cache_file.parent, suffix=".npy.tmp")
            with os.fdopen(fd, "wb") as fh:
                np.save(fh, vectors, allow_pickle=False)
            os.replace(tmp, self.cache_file)
        return vectors

    def nearest(self, query: str, vocab: DomainVocab) -> PrototypeMatch:
        vector = np.asarray(self._embedder.embed_queries([query]), dtype=np.float32)[0]
        scores = self.vectors @ vector
        best = int(np.argmax(scores))
        proto = self.prototypes[best]
        domains = tuple(sorted({n for c in proto.domains if (n := vocab.for_concept(c))}))
        return PrototypeMatch(prototype=proto, cosine=float(np.clip(scores[best], 0.0, 1.0)), domains=domains)
