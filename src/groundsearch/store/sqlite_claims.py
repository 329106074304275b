"""Claims on pending chunks for embedders sharing one data directory (``serve`` beside ``groundsearch embed``).

The Postgres store hands out claims as advisory locks (``pg_claims``); before this, two embedders on one
embedded store — the server's background thread and a CLI ``embed`` — listed the same pending window and both
embedded it. A claim here is a byte-range lock on ``embed-claims.lock`` in the data directory, one byte per
(chunk key, kind of work). Why open-file-description locks (Linux ``F_OFD_SETLK``): like an advisory lock they
end with their holder — a process killed mid-window releases its claims with its file — and unlike classic
POSIX locks they conflict between two descriptors of one process and are not all dropped when the process
closes any descriptor of the file. Where the platform has no OFD locks, every chunk is "claimed" (the old
behaviour: identical vectors written twice, never a wrong one).
"""

from __future__ import annotations

import fcntl
import os
import struct
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

__all__ = ["FileClaims"]

_OFD_SETLK = getattr(fcntl, "F_OFD_SETLK", None)
_VECTORS, _SENTENCES = 0, 1  # the byte of a key: key * 2 + kind


def _flock(kind: int, offset: int) -> bytes:
    # struct flock: l_type, l_whence (shorts), l_start, l_len (off_t), l_pid (0 for OFD locks), padded
    return struct.pack("hhqqi4x", kind, os.SEEK_SET, offset, 1, 0)


class FileClaims:
    """One embedder's claims on a data directory. Not thread-safe: one embedding loop owns it.

    ``pending(keys)`` / ``pending_sentences(keys, model)`` say which of ``keys`` still lack the work (another
    embedder may have finished them between our listing and our claim)."""

    def __init__(self, path: Path, pending: Callable[[Sequence[int]], Iterable[int]],
                 pending_sentences: Callable[[Sequence[int], str], Iterable[int]]) -> None:
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600) if _OFD_SETLK is not None else None
        self._pending = pending
        self._pending_sentences = pending_sentences

    def acquire(self, keys: Sequence[int]) -> list[int]:
        """Claim what no other embedder holds; keep only the chunks still without a vector."""
        return self._claim(keys, _VECTORS, lambda held: self._pending(held))

    def release(self, keys: Sequence[int], kind: int = _VECTORS) -> None:
        for k in keys:
            self._lock(int(k), kind, fcntl.F_UNLCK)

    def acquire_sentences(self, keys: Sequence[int], model: str) -> list[int]:
        return self._claim(keys, _SENTENCES, lambda held: self._pending_sentences(held, model))

    def release_sentences(self, keys: Sequence[int]) -> None:
        self.release(keys, _SENTENCES)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # every claim this embedder still holds ends with its descriptor
            self._fd = None

    def _claim(self, keys: Sequence[int], kind: int, still: Callable[[list[int]], Iterable[int]]) -> list[int]:
        held = [int(k) for k in keys if self._lock(int(k), kind, fcntl.F_WRLCK)]
        if not held:
            return []
        pending = set(still(held))
        self.release([k for k in held if k not in pending], kind)
        return sorted(pending)

    def _lock(self, key: int, kind: int, op: int) -> bool:
        if self._fd is None:
            return True
        try:
            fcntl.fcntl(self._fd, _OFD_SETLK, _flock(op, key * 2 + kind))
        except (BlockingIOError, PermissionError):
            return False  # another embedder holds it
        return True
