"""SQL of the embedded store's sentence vectors (``chunk_sentences``; codec in :mod:`.sentence_rows`).

A read-only store opened over a file written before the table existed has no such table: reads then
answer "nothing stored" and the answer path embeds on first sight as it did before.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

import numpy as np

from .sentence_rows import SentenceRow, check_rows, unpack

__all__ = ["DDL", "forget", "pending", "read", "write"]

DDL = """
CREATE TABLE IF NOT EXISTS chunk_sentences (
    chunk_key INTEGER NOT NULL,
    model TEXT NOT NULL,
    digests TEXT NOT NULL,
    vectors BLOB NOT NULL,
    PRIMARY KEY (chunk_key, model)
);
"""


def _missing_table(exc: sqlite3.OperationalError) -> bool:
    return "no such table" in str(exc)


def pending(conn: sqlite3.Connection, model: str, after: int, limit: int) -> list[int]:
    try:
        return [k for (k,) in conn.execute(
            "SELECT c.key FROM chunks c WHERE c.key > ? AND NOT EXISTS (SELECT 1 FROM chunk_sentences s "
            "WHERE s.chunk_key = c.key AND s.model = ?) ORDER BY c.key LIMIT ?", (int(after), model, int(limit)))]
    except sqlite3.OperationalError as exc:
        if _missing_table(exc):
            return []
        raise


def write(conn: sqlite3.Connection, model: str, rows: Sequence[SentenceRow], dim: int) -> int:
    """Insert inside the caller's transaction; a chunk deleted meanwhile gets no row."""
    done = 0
    for key, digests, blob in check_rows(rows, dim):
        done += conn.execute(
            "INSERT OR REPLACE INTO chunk_sentences(chunk_key, model, digests, vectors) "
            "SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM chunks WHERE key = ?)",
            (key, model, json.dumps(digests), blob, key)).rowcount
    return done


def read(conn: sqlite3.Connection, model: str, chunk_ids: Sequence[str], dim: int) -> dict[str, dict[str, np.ndarray]]:
    try:
        rows = conn.execute(
            "SELECT c.id, s.digests, s.vectors FROM chunks c JOIN chunk_sentences s ON s.chunk_key = c.key "
            "WHERE s.model = ? AND c.id IN (SELECT value FROM json_each(?))",
            (model, json.dumps(list(chunk_ids), ensure_ascii=False))).fetchall()
    except sqlite3.OperationalError as exc:
        if _missing_table(exc):
            return {}
        raise
    out: dict[str, dict[str, np.ndarray]] = {}
    for chunk_id, digests, blob in rows:
        names = json.loads(digests)
        out[chunk_id] = dict(zip(names, unpack(blob, len(names), dim)))
    return out


def forget(conn: sqlite3.Connection, item_rowid: int) -> None:
    """Inside the transaction that deletes the item's chunks."""
    conn.execute("DELETE FROM chunk_sentences WHERE chunk_key IN (SELECT key FROM chunks WHERE item_rowid = ?)",
                 (item_rowid,))
