"""Claims on pending chunks, so several embedders on one database never embed the same chunk.

Each API worker on a shared Postgres runs a background embedder, and before claims every one of them listed
the same pending chunks and embedded them all: N workers did N times the work (the vectors were identical, the
second insert a no-op). A claim is a session-level advisory lock on the chunk's key, held on a connection of
the embedder's own while it embeds that window. Why advisory locks and not a lease column: a lock lives exactly
as long as its session, so an embedder killed mid-window releases its claims with its connection — no expiry
to tune, nothing to clean up, and no schema change. Row locks (``FOR UPDATE SKIP LOCKED``) would need one
transaction held open across the minute a window takes to embed, blocking every write to those chunks.

Advisory locks are per database, and the two-int form used here does not meet the one-bigint lock that
serialises migrations (``pg_migrations``).
"""

from __future__ import annotations

from collections.abc import Sequence

import psycopg

from .pg_connect import CONNECT_TIMEOUT_S, unavailable

__all__ = ["CLAIM_SPACE", "SENTENCE_SPACE", "VectorClaims"]

CLAIM_SPACE = 0x67730001  # the advisory-lock class of "this chunk is being embedded"; any constant no one else uses
SENTENCE_SPACE = 0x67730002  # "this chunk's sentences are being embedded" (store/sentence_rows.py)

_OBJ = "(k %% 2147483648)::int4"  # the key folded into the lock's int4 slot (chunk keys stay far below 2^31)


class VectorClaims:
    """One embedder's claims. Not thread-safe: one embedding loop owns it."""

    def __init__(self, dsn: str) -> None:
        try:
            self._conn = psycopg.connect(dsn, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
        except psycopg.OperationalError as exc:
            raise unavailable(dsn, exc) from exc

    def acquire(self, keys: Sequence[int]) -> list[int]:
        """Claim what no other embedder holds, and keep only chunks still pending once claimed (another
        embedder may have stored their vectors between our listing and our claim)."""
        return self._claim(keys, CLAIM_SPACE, "SELECT 1 FROM chunk_vectors v WHERE v.chunk_pk = c.pk", {})

    def release(self, keys: Sequence[int], space: int = CLAIM_SPACE) -> None:
        if keys:
            self._conn.execute(f"SELECT pg_advisory_unlock({int(space)}, {_OBJ}) FROM unnest(%(k)s::bigint[]) AS k",
                               {"k": list(map(int, keys))})

    def acquire_sentences(self, keys: Sequence[int], model: str) -> list[int]:
        """As :meth:`acquire`, for a chunk's sentence vectors from ``model``; release with
        :meth:`release_sentences`."""
        return self._claim(keys, SENTENCE_SPACE,
                           "SELECT 1 FROM chunk_sentences s WHERE s.chunk_pk = c.pk AND s.model = %(m)s", {"m": model})

    def release_sentences(self, keys: Sequence[int]) -> None:
        self.release(keys, SENTENCE_SPACE)

    def _claim(self, keys: Sequence[int], space: int, done: str, params: dict[str, str]) -> list[int]:
        """Lock in ``space`` whatever no one else holds, then release the claimed keys ``done`` (a subquery over
        chunk ``c``) says are finished: the work left to this embedder."""
        if not keys:
            return []
        rows = self._conn.execute(
            f"SELECT k FROM unnest(%(k)s::bigint[]) AS k WHERE pg_try_advisory_lock({int(space)}, {_OBJ})",
            {"k": list(map(int, keys))}).fetchall()
        held = [int(r[0]) for r in rows]
        if not held:
            return []
        pending = {int(r[0]) for r in self._conn.execute(
            f"SELECT c.pk FROM chunks c WHERE c.pk = ANY(%(k)s) AND NOT EXISTS ({done})",
            {"k": held, **params}).fetchall()}
        self.release([k for k in held if k not in pending], space)
        return sorted(pending)

    def close(self) -> None:
        self._conn.close()  # ends the session: whatever it still holds is released with it
