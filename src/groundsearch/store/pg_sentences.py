"""SQL of the Postgres store's sentence vectors (``chunk_sentences``, migration 0005; codec in
:mod:`.sentence_rows`). The rows go with their chunk by ``ON DELETE CASCADE``."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import psycopg

from .pg_codec import decode_text as dec
from .pg_codec import encode_text as enc
from .sentence_rows import SentenceRow, check_rows, unpack

__all__ = ["pending", "read", "write"]


def pending(conn: psycopg.Connection, model: str, after: int, limit: int) -> list[int]:
    rows = conn.execute(
        "SELECT c.pk FROM chunks c WHERE c.pk > %s AND NOT EXISTS (SELECT 1 FROM chunk_sentences s "
        "WHERE s.chunk_pk = c.pk AND s.model = %s) ORDER BY c.pk LIMIT %s", (int(after), model, int(limit)))
    return [int(r[0]) for r in rows.fetchall()]


def write(conn: psycopg.Connection, model: str, rows: Sequence[SentenceRow], dim: int) -> int:
    """One transaction (the caller's); FOR KEY SHARE holds each chunk until its row is in, and a chunk
    deleted meanwhile gets none."""
    done = 0
    with conn.cursor() as cur:
        for key, digests, blob in check_rows(rows, dim):
            cur.execute(
                "INSERT INTO chunk_sentences (chunk_pk, model, digests, vectors) "
                "SELECT c.pk, %s, %s, %s FROM chunks c WHERE c.pk = %s FOR KEY SHARE "
                "ON CONFLICT (chunk_pk, model) DO UPDATE SET digests = EXCLUDED.digests, vectors = EXCLUDED.vectors",
                (model, digests, blob, key))
            done += cur.rowcount
    return done


def read(conn: psycopg.Connection, model: str, chunk_ids: Sequence[str], dim: int) -> dict[str, dict[str, np.ndarray]]:
    rows = conn.execute(
        "SELECT c.id, s.digests, s.vectors FROM chunks c JOIN chunk_sentences s ON s.chunk_pk = c.pk "
        "WHERE s.model = %s AND c.id = ANY(%s::text[])", (model, [enc(i) for i in chunk_ids])).fetchall()
    return {dec(cid): dict(zip(digests, unpack(bytes(blob), len(digests), dim))) for cid, digests, blob in rows}
