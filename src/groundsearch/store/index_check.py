"""Checks that run before a derived index's bytes are trusted, and how a Rust panic is told apart.

tantivy writes a footer on every segment file — ``<json {version, crc}> <u32 json length> <u32 magic 1337>``,
little-endian, the CRC-32 (IEEE, as ``zlib.crc32``) covering everything before the footer — but checks it
only on request (``Index::validate_checksum`` in Rust, which tantivy-py does not expose). Verifying it here
costs one sequential read of the index; see /work/notes/bench-corruption.md for the figure.
"""

from __future__ import annotations

import asyncio
import json
import struct
import zlib
from pathlib import Path

__all__ = ["is_panic", "verify_files"]

_FOOTER_MAGIC = 1337
_SEGMENT_PARTS = ("idx", "term", "fast", "fieldnorm", "store")  # every segment of our schema has these


def is_panic(exc: BaseException) -> bool:
    """A Rust panic surfacing through pyo3 (or any other non-``Exception`` that is not interpreter control
    flow). pyo3's ``PanicException`` derives from ``BaseException`` on purpose, so ``except Exception``
    lets it through and it would otherwise kill a request handler with no JSON error."""
    if isinstance(exc, BaseExceptionGroup):
        return any(is_panic(e) for e in exc.exceptions)
    return not isinstance(exc, (Exception, KeyboardInterrupt, SystemExit, GeneratorExit, asyncio.CancelledError))


def verify_files(path: Path) -> str | None:
    """What is wrong with the tantivy files in ``path`` (``None``: every segment file is whole).

    Reads every file of every segment ``meta.json`` lists and checks tantivy's own CRC-32 footer, and that
    the parts each segment needs (and its deletes file) exist. A missing ``meta.json`` is a new index.
    A reader may look while the writer merges and garbage-collects segments, so a verdict reached while
    ``meta.json`` changed under it is not trusted: it looks again (at most three times).
    """
    problem = None
    for _ in range(3):
        try:
            before = (path / "meta.json").read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            return f"meta.json is unreadable ({exc.strerror})"
        problem = _verify_once(path, before)
        try:
            if problem is None or (path / "meta.json").read_bytes() == before:
                return problem
        except OSError:
            return problem
    return problem


def _verify_once(path: Path, meta_bytes: bytes) -> str | None:
    try:
        meta = json.loads(meta_bytes)
    except ValueError as exc:
        return f"meta.json is unreadable ({exc})"
    try:
        segments = [(str(seg["segment_id"]).replace("-", ""), seg.get("deletes")) for seg in meta["segments"]]
    except (KeyError, TypeError, AttributeError):
        return "meta.json does not describe segments"
    present = {p.name for p in path.iterdir()}
    for sid, deletes in segments:
        needed = [f"{sid}.{ext}" for ext in _SEGMENT_PARTS]
        if deletes is not None:
            try:
                needed.append(f"{sid}.{int(deletes['opstamp'])}.del")
            except (KeyError, TypeError, ValueError):
                return f"meta.json has a bad deletes entry for segment {sid}"
        for name in needed:
            if name not in present:
                return f"segment file {name} is missing"
        for name in sorted(n for n in present if n.startswith(sid + ".")):
            problem = _footer_problem(path / name)
            if problem is not None:
                return f"segment file {name} {problem}"
    return None


def _footer_problem(file: Path) -> str | None:
    try:
        data = file.read_bytes()
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    if len(data) < 8:
        return "is truncated"
    length, magic = struct.unpack("<II", data[-8:])
    if magic != _FOOTER_MAGIC or length + 8 > len(data):
        return "has no valid footer (truncated or overwritten)"
    try:
        crc = int(json.loads(data[-8 - length : -8])["crc"])
    except (ValueError, KeyError, TypeError):
        return "has a damaged footer"
    if zlib.crc32(memoryview(data)[: len(data) - 8 - length]) != crc:
        return "failed its checksum"
    return None
