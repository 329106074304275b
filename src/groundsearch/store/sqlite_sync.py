"""How the embedded store's derived indexes follow SQLite's change log.

Each derived index remembers the last ``changes.seq`` it reflects. Catching up is the same operation
whether it runs right after a commit, at open after a crash, or in a reader process that saw the writer
commit: take every chunk key changed since that seq, drop it from the index, and re-add it if SQLite
still holds it. Keys are never reused, so this is idempotent and order-free.

The log is trimmed only behind what every persisted index has applied, keeping a tail of
``LOG_RETAIN`` entries for readers in other processes; a reader that falls further behind than the
tail reloads its vectors from SQLite instead of replaying.

A damaged keyword index is rebuilt from SQLite by :meth:`DerivedIndexes.rebuild_keyword`, the one
method that takes the store's lock itself (per batch), so a rebuild in the background of a serving store
lets searches (vector leg only, with a ``degraded`` note) and writes go on between batches.

Callers hold the store's lock; nothing else here is thread-safe on its own.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from ..errors import StoreError
from .keyword_tantivy import FIELD_SEP, KeywordDoc, KeywordIndex
from .sqlite_schema import OP_VECTOR
from .text import keyword_terms
from .vectors import NO_DATE, VectorIndex, VectorRows

__all__ = ["LOG_RETAIN", "DerivedIndexes"]

SYNC_BATCH = 20_000  # chunks per keyword-index commit while catching up (bounds memory on a full rebuild)
LOAD_BATCH = 50_000  # rows per fetch when loading vectors at open
LOG_RETAIN = 200_000  # change-log tail kept for lagging readers (~10 MB of rows)

log = logging.getLogger("groundsearch.store")


class DerivedIndexes:
    """The keyword and vector indexes of one store, kept level with its change log."""

    def __init__(self, conn: sqlite3.Connection, dim: int, keyword: KeywordIndex, vectors: VectorIndex,
                 read_only: bool) -> None:
        self._conn = conn
        self.dim = dim
        self.keyword = keyword
        self.vectors = vectors
        self.read_only = read_only
        self._trimmed_to = 0
        self.rebuilding_keyword = False  # while set, writes leave the keyword index to the rebuild

    # ---------------------------------------------------------------------------------------- log

    def max_seq(self) -> int:
        return int(self._conn.execute("SELECT coalesce(max(seq), 0) FROM changes").fetchone()[0])

    def changed_keys(self, since: int) -> list[int]:
        return [k for (k,) in self._conn.execute("SELECT DISTINCT chunk_key FROM changes WHERE seq > ?", (since,))]

    def text_changed_keys(self, since: int) -> list[int]:
        """Changed keys the keyword index must see: a vector filled in later changes no term."""
        return [k for (k,) in self._conn.execute(
            "SELECT DISTINCT chunk_key FROM changes WHERE seq > ? AND op != ?", (since, OP_VECTOR))]

    def _log_covers(self, since: int) -> bool:
        """Whether every change after ``since`` is still in the log (nothing was trimmed past it)."""
        (first,) = self._conn.execute("SELECT min(seq) FROM changes").fetchone()
        return first is None or first <= since + 1

    def sync(self) -> None:
        """Bring both indexes up to the log (the writer updates the keyword index; readers only reload it)."""
        if not self.read_only:
            self.catch_up_keyword()
        self.catch_up_vectors()
        if not self.read_only:
            self._trim_log()

    def _trim_log(self) -> None:
        floor = min(self.keyword.applied_seq, self.vectors.durable_seq) - LOG_RETAIN
        if floor - self._trimmed_to < LOG_RETAIN // 10:  # trim in steps, not on every commit
            return
        self._conn.execute("DELETE FROM changes WHERE seq <= ?", (floor,))
        self._trimmed_to = floor

    # ---------------------------------------------------------------------------------------- keyword

    def catch_up_keyword(self) -> None:
        if self.rebuilding_keyword:
            return  # the rebuild replays every change made meanwhile when it finishes
        top = self.max_seq()
        if self.keyword.applied_seq > top or not self._log_covers(self.keyword.applied_seq):
            self.keyword.reset()  # ahead of the truth, or behind the trimmed log: rebuild from every chunk
            keys = [k for (k,) in self._conn.execute("SELECT key FROM chunks ORDER BY key")]
        elif self.keyword.applied_seq == top:
            return
        else:
            keys = self.text_changed_keys(self.keyword.applied_seq)
        if not keys:
            self.keyword.apply(top, [], [])
        for start in range(0, len(keys), SYNC_BATCH):
            batch = keys[start : start + SYNC_BATCH]
            docs = self._keyword_docs(batch)
            present = {d.key for d in docs}
            last = start + SYNC_BATCH >= len(keys)
            self.keyword.apply(top if last else self.keyword.applied_seq, [k for k in batch if k not in present], docs)

    def check_keyword_count(self) -> str | None:
        """Whether the keyword index holds one document per chunk, when it claims to be level with the log.

        Checksums cannot catch a ``meta.json`` edited into another valid one (a changed ``max_doc``); the
        count can, for the price of one ``count(*)``."""
        # one statement, one snapshot: a writer committing in between cannot fake a mismatch for a reader
        top, chunks = self._conn.execute(
            "SELECT (SELECT coalesce(max(seq), 0) FROM changes), (SELECT count(*) FROM chunks)").fetchone()
        if self.keyword.damaged is not None or self.keyword.applied_seq != top:
            return None
        docs = self.keyword.num_docs
        return None if docs == chunks else f"it holds {docs} documents for {chunks} chunks"

    def rebuild_keyword(self, why: str, lock: threading.RLock | None = None,
                        closed: Callable[[], bool] = lambda: False) -> None:
        """Wipe the keyword index and index every chunk again from SQLite.

        Without ``lock`` the caller holds the store's lock throughout (at open). With it, the lock is
        taken per batch of ``SYNC_BATCH`` chunks; meanwhile the index refuses searches (``damaged``) and
        :meth:`catch_up_keyword` stands aside, and the changes committed during the rebuild are replayed at
        the end. The seq stays 0 until the last batch, so a crash mid-way means a full rebuild at next open.
        """
        hold: contextlib.AbstractContextManager[object] = lock if lock is not None else contextlib.nullcontext()
        started = time.perf_counter()
        with hold:
            self.rebuilding_keyword = True
            try:
                self.keyword.wipe(why)
                self.keyword.damaged = f"the keyword index is being rebuilt from SQLite ({why})"
                top = self.max_seq()
                keys = [k for (k,) in self._conn.execute("SELECT key FROM chunks ORDER BY key")]
            except BaseException:
                self.rebuilding_keyword = False
                raise
        try:
            for start in range(0, len(keys), SYNC_BATCH):
                with hold:
                    if closed():
                        raise StoreError("the store was closed during the keyword rebuild")
                    self.keyword.apply(0, [], self._keyword_docs(keys[start : start + SYNC_BATCH]))
            with hold:
                self.keyword.apply(top, [], [])
                self.rebuilding_keyword = False
                self.keyword.damaged = None
                self.catch_up_keyword()
        except BaseException as exc:
            with hold:
                self.rebuilding_keyword = False
                self.keyword.damaged = f"rebuilding the keyword index failed ({exc}); reopen the store to retry"
            raise
        log.warning("keyword index: %s (%d chunks in %.1f s)", why, len(keys), time.perf_counter() - started)

    def _keyword_docs(self, keys: Sequence[int]) -> list[KeywordDoc]:
        rows = self._conn.execute(
            "SELECT c.key, c.text, c.heading_path, i.rowid, i.id, i.title, i.collection, i.status, "
            "i.superseded_by IS NOT NULL, i.tenant, i.date_ord FROM chunks c JOIN items i ON i.rowid = c.item_rowid "
            "WHERE c.key IN (SELECT value FROM json_each(?)) ORDER BY c.key",
            (json.dumps(list(keys)),),
        ).fetchall()
        rowids = sorted({r[3] for r in rows})
        terms: dict[int, list[str]] = {}
        for rowid, name, value in self._conn.execute(
            "SELECT item_rowid, name, value FROM item_fields WHERE item_rowid IN (SELECT value FROM json_each(?))",
            (json.dumps(rowids),),
        ):
            terms.setdefault(rowid, []).append(f"{name}{FIELD_SEP}{value}")
        return [
            KeywordDoc(key=key, item_id=iid, collection=coll, status=status, superseded=bool(sup), tenant=tenant,
                       date_ord=date_ord, field_terms=tuple(terms.get(rowid, ())),
                       terms=tuple(keyword_terms(title, json.loads(heading), text)))
            for key, text, heading, rowid, iid, title, coll, status, sup, tenant, date_ord in rows
        ]

    # ---------------------------------------------------------------------------------------- vectors

    def _vector_rows(self, where: str, params: Sequence[object]) -> Iterator[VectorRows]:
        cur = self._conn.execute(
            "SELECT c.key, c.vector, i.rowid, i.collection, i.status, i.superseded_by IS NOT NULL, i.tenant, "
            f"i.date_ord FROM chunks c JOIN items i ON i.rowid = c.item_rowid WHERE c.vector IS NOT NULL AND {where} "
            "ORDER BY c.key",
            params,
        )
        width = 4 * self.dim
        while batch := cur.fetchmany(LOAD_BATCH):
            cols = list(zip(*batch))
            if any(len(blob) != width for blob in cols[1]):  # the truth itself is damaged: nothing to rebuild from
                raise StoreError(f"the database holds a chunk vector that is not {self.dim} float32 values; "
                                 "it is damaged — restore it from a backup or re-ingest into a new data directory")
            yield VectorRows(
                keys=np.asarray(cols[0], dtype=np.int64),
                vectors=np.frombuffer(b"".join(cols[1]), dtype="<f4").reshape(len(batch), self.dim).astype(np.float32),
                item_rowids=np.asarray(cols[2], dtype=np.int64),
                collections=cols[3], statuses=cols[4],
                superseded=np.asarray(cols[5], dtype=bool), tenants=cols[6],
                date_ords=np.asarray([NO_DATE if d is None else d for d in cols[7]], dtype=np.int32),
            )

    def load_vectors(self) -> None:
        """Fill an empty vector index from SQLite, then let a saved HNSW graph replay what it missed."""
        self._conn.execute("BEGIN")  # one snapshot: the rows and the seq they reflect agree
        try:
            seq = self.max_seq()
            for rows in self._vector_rows("1", ()):
                self.vectors.append(rows)
        finally:
            self._conn.execute("COMMIT")
        self.vectors.applied_seq = seq
        self.vectors.attach_hnsw(self.changed_keys, self._log_covers)

    def catch_up_vectors(self) -> None:
        vi = self.vectors
        self._conn.execute("BEGIN")
        try:
            top = self.max_seq()
            if top == vi.applied_seq:
                return
            if not self._log_covers(vi.applied_seq):
                vi.clear()
                for rows in self._vector_rows("1", ()):
                    vi.append(rows)
            else:
                keys = self.changed_keys(vi.applied_seq)
                vi.remove(keys)
                for rows in self._vector_rows("c.key IN (SELECT value FROM json_each(?))", (json.dumps(keys),)):
                    vi.append(rows)
            vi.ensure_graph()
            vi.applied_seq = top
        finally:
            self._conn.execute("COMMIT")
        if not self.read_only:
            vi.checkpoint()
