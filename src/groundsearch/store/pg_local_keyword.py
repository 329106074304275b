"""The Postgres keyword leg as a derived index per API worker, following Postgres's change log.

Why: three sessions of SQL designs (impact-ordered postings, sampled thresholds, required prefixes,
MaxScore) left queries made of common words slow — they need block-max WAND inside the index, which
tantivy has and SQL does not. So each worker keeps the embedded store's own :class:`KeywordIndex` in a
temporary directory, fed from Postgres exactly as the embedded one is fed from SQLite (``sqlite_sync``):
the same documents, the same analyser, the same filter compilation, hence the same scores and pages.

Freshness: every write transaction numbers itself in ``corpus_stats.log_seq`` (commit-ordered, see
migration 0007) and logs the chunk keys it added or removed in ``keyword_log``. Before each search the
leg reads ``log_seq`` (one primary-key read) and, when it is ahead of what the index applied, replays the
keys logged since — drop each from the index, re-add it if Postgres still holds it — in one REPEATABLE
READ snapshot. So a write committed on any worker is seen by the next search on every worker.

Disposable: the index is a cache. It is built from the tables on first use, rebuilt when damaged (a
search that fails on files that no longer verify) or when the worker fell behind the trimmed log, and its
directory is removed on close (and, for a worker killed without closing, by the next worker on the host).
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from ..errors import IndexUnavailable, StoreError
from ..types import SearchFilter
from .keyword_tantivy import FIELD_SEP, KeywordDoc, KeywordIndex
from .pg_codec import decode_fields
from .pg_codec import decode_text as dec
from .pg_connect import is_transient, retrying, unavailable
from .sqlite_schema import field_rows

__all__ = ["LOG_RETAIN", "LocalKeywordLeg", "log_changes"]

T = TypeVar("T")
LOG_RETAIN = 20_000  # write transactions kept in keyword_log; a worker further behind rebuilds instead
TRIM_EVERY = 1_000  # trim on every n-th write transaction, not on each one
BATCH = 20_000  # chunks per index commit while catching up or rebuilding (bounds memory)
_PREFIX = "groundsearch-pgkw-"

log = logging.getLogger("groundsearch.store")

# A chunk's terms come from its postings, already analysed at write time (``pg_rows.prepare_writes`` runs
# ``keyword_terms``), each repeated tf times: the same tokens and length as analysing the text again, and a
# 100k rebuild took 26 s this way against ~95 s re-analysing in Python (load 13-16). Order is lost, which
# nothing needs: the index keeps frequencies, not positions.
_DOCS = (
    "SELECT c.pk, t.body, i.id, i.collection, i.status, i.superseded_by IS NOT NULL, i.tenant, i.item_date, "
    "i.fields FROM chunks c JOIN items i ON i.id = c.item_id CROSS JOIN LATERAL ("
    "SELECT string_agg(repeat(p.term || ' ', p.tf), '') AS body FROM postings p WHERE p.chunk_pk = c.pk) t"
)


def log_changes(cur: psycopg.Cursor[Any], seq: int, chunk_keys: Sequence[int]) -> None:
    """Log write transaction ``seq``'s added and removed chunk keys (the caller holds corpus_stats' row lock,
    which is what makes ``seq`` commit-ordered), trimming the log's old end now and then."""
    if chunk_keys:
        cur.execute("INSERT INTO keyword_log (seq, chunk_pk) SELECT %s, unnest(%s::bigint[])", (seq, list(chunk_keys)))
    if seq % TRIM_EVERY == 0 and seq > LOG_RETAIN:
        cur.execute("DELETE FROM keyword_log WHERE seq <= %s", (seq - LOG_RETAIN,))
        cur.execute("UPDATE corpus_stats SET log_floor = GREATEST(log_floor, %s)", (seq - LOG_RETAIN,))


def _doc(row: Sequence[Any]) -> KeywordDoc:
    """One chunk row as the embedded store's sync builds it from SQLite (``sqlite_sync._keyword_docs``)."""
    key, body, item_id, collection, status, superseded, tenant, date, fields = row
    return KeywordDoc(
        key=int(key), item_id=dec(item_id), collection=dec(collection), status=status, superseded=bool(superseded),
        tenant=dec(tenant), date_ord=None if date is None else date.toordinal(),
        field_terms=tuple(f"{name}{FIELD_SEP}{value}" for name, value in field_rows(decode_fields(fields))),
        terms=tuple(dec(body).split()) if body else (),
    )


class LocalKeywordLeg:
    """A worker's tantivy index of every chunk in Postgres, caught up to the change log before each search.

    ``run`` executes a function in one transaction on a pooled connection (the store's ``_run``).
    Thread-safe: catching up and rebuilding take a lock; searches run beside each other.
    """

    def __init__(self, run: Callable[[Callable[[psycopg.Connection], Any]], Any], dsn: str,
                 directory: Path | None = None) -> None:
        self._run = run
        self._dsn = dsn
        # The per-search seq read on its own autocommit connections, unchecked at checkout: one round trip
        # instead of the store pool's four (check, BEGIN, SELECT, COMMIT), each a wait for a core under load.
        # A broken connection fails the read, which is retried on a fresh one.
        self._seq_pool = ConnectionPool(dsn, min_size=1, max_size=2, open=True, name="groundsearch-pgkw",
                                        kwargs={"autocommit": True, "connect_timeout": 5})
        self._own = directory is None
        if directory is None:
            _sweep_orphans()
            directory = Path(tempfile.mkdtemp(prefix=f"{_PREFIX}{os.getpid()}-"))
        self.path = directory
        self._index: KeywordIndex | None = None
        self._lock = threading.Lock()
        self.rebuilds: list[dict[str, Any]] = []  # why and how long each full build took (health, benchmarks)

    def search(self, terms: Sequence[str], f: SearchFilter, limit: int, offset: int) -> list[tuple[int, float]]:
        """``(chunk key, BM25 score)`` best first, as the embedded store returns them, after catching up."""
        index = self._fresh(self._log_seq())
        try:
            keys, scores = index.search(terms, f, limit, offset)
            if not keys and offset == 0 and (problem := index.verify()) is not None:
                # zeroed postings can decode as "no match" instead of failing (seen in the damage test); an
                # empty page is rare, so it pays for checking every file's checksum
                index.damaged = f"the local keyword index at {self.path} is damaged: {problem}"
                raise IndexUnavailable(index.damaged)
        except IndexUnavailable:
            if index.damaged is None:
                raise  # that search's failure alone, on files that verify: no reason to rebuild
            with self._lock:
                if self._index is index:
                    self._rebuild(index.damaged)
                index = self._require()
            keys, scores = index.search(terms, f, limit, offset)
        # equal scores come back in segment order, which depends on how the index was committed; by key
        # they are the same however it was built (as in the embedded store)
        return sorted(((int(k), float(s)) for k, s in zip(keys, scores) if k is not None), key=lambda h: (-h[1], h[0]))

    def catch_up(self) -> None:
        """Bring the index level with the log now (e.g. to warm a worker before it serves)."""
        self._fresh(self._log_seq())

    def _log_seq(self) -> int:
        try:
            for attempt in retrying():
                with attempt, self._seq_pool.connection(timeout=15) as conn:
                    return int(conn.execute("SELECT log_seq FROM corpus_stats").fetchone()[0])  # type: ignore[index]
        except (psycopg.Error, PoolTimeout) as exc:
            if is_transient(exc):
                raise unavailable(self._dsn, exc) from exc
            raise StoreError(f"Postgres rejected the change-log read: {exc}") from exc
        raise AssertionError("unreachable")  # pragma: no cover

    @property
    def applied_seq(self) -> int:
        return -1 if self._index is None else self._index.applied_seq

    def _require(self) -> KeywordIndex:
        assert self._index is not None
        return self._index

    def _fresh(self, top: int) -> KeywordIndex:
        index = self._index
        if index is not None and index.applied_seq == top and index.damaged is None:
            return index
        with self._lock:
            if self._index is None:
                self._index = KeywordIndex.open(self.path, writable=True)
                self._rebuild("first use")
            elif self._index.damaged is not None:
                self._rebuild(self._index.damaged)
            elif self._index.applied_seq != top:
                self._replay()
            return self._require()

    def _replay(self) -> None:
        """Apply every key logged since the index's seq, read in one snapshot with the seq it reaches."""
        index = self._require()
        applied = index.applied_seq

        def read(conn: psycopg.Connection) -> tuple[int, list[int] | None, list[KeywordDoc]]:
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            seq, floor = conn.execute("SELECT log_seq, log_floor FROM corpus_stats").fetchone()  # type: ignore[misc]
            if seq < applied or applied < floor:
                return int(seq), None, []  # another database behind the DSN, or trimmed past us: rebuild
            keys = [int(k) for (k,) in conn.execute("SELECT DISTINCT chunk_pk FROM keyword_log WHERE seq > %s",
                                                    (applied,))]
            return int(seq), keys, [_doc(r) for r in conn.execute(_DOCS + " WHERE c.pk = ANY(%s)", (keys,))]

        seq, keys, docs = self._run(read)
        if keys is None:
            self._rebuild("the worker's index fell behind the trimmed change log")
            return
        present = {d.key for d in docs}
        removed = [k for k in keys if k not in present]
        parts = [docs[i : i + BATCH] for i in range(0, len(docs), BATCH)] or [[]]
        try:
            # the seq moves only with the last part: a failure in between replays every key again (idempotent)
            for j, part in enumerate(parts):
                index.apply(seq if j == len(parts) - 1 else applied, removed if j == 0 else [], part)
        except BaseException as exc:  # a panic on damaged files: the index is a cache, build it again
            if not isinstance(exc, (OSError, ValueError)) and type(exc).__name__ != "PanicException":
                raise
            self._rebuild(f"applying the change log failed ({exc})")

    def _rebuild(self, why: str) -> None:
        """Wipe the index and index every chunk again, streamed from one snapshot (caller holds the lock)."""
        index = self._require()
        started = time.perf_counter()
        index.wipe(why)

        def build(conn: psycopg.Connection) -> tuple[int, int]:
            index.reset()  # a retried attempt starts over
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            seq = int(conn.execute("SELECT log_seq FROM corpus_stats").fetchone()[0])  # type: ignore[index]
            n = 0
            with conn.cursor(name="groundsearch_pgkw_rebuild") as cur:
                cur.itersize = BATCH
                cur.execute(_DOCS)
                while rows := cur.fetchmany(BATCH):
                    index.apply(0, [], [_doc(r) for r in rows])
                    n += len(rows)
            index.apply(seq, [], [])
            return seq, n

        seq, n = self._run(build)
        seconds = time.perf_counter() - started
        self.rebuilds.append({"why": why, "chunks": n, "seconds": round(seconds, 2), "seq": seq})
        log.info("local keyword index: %s — built %d chunks in %.1f s", why, n, seconds)

    def close(self) -> None:
        self._seq_pool.close()
        with self._lock:
            if self._index is not None:
                self._index.close()
                self._index = None
            if self._own:
                shutil.rmtree(self.path, ignore_errors=True)


def _sweep_orphans() -> None:
    """Remove index directories left by workers of this host that died without closing (kill -9)."""
    for path in Path(tempfile.gettempdir()).glob(f"{_PREFIX}*-*"):
        try:
            pid = int(path.name[len(_PREFIX):].split("-", 1)[0])
            os.kill(pid, 0)
        except ProcessLookupError:
            shutil.rmtree(path, ignore_errors=True)
        except (ValueError, PermissionError, OSError):
            continue  # not ours, or a live process of another user
