"""The embedded store: SQLite (WAL) as the truth, a tantivy keyword index and an in-memory vector index
derived from it, all in one data directory::

    data_dir/
      store.sqlite3      items, chunks (+ float32 vectors), fields, mentions, entity pairs, change log
      keyword/           tantivy index of the default tenant's public chunks + applied.json (last change
                         seq applied); keyword/t-*/ one per other tenant and visibility (keyword_scope.py)
      vectors/           HNSW graph + applied.json, only once the store outgrows exact search

Consistency: a write commits to SQLite first (one transaction per ``upsert`` call, all or nothing, with
a row in ``changes`` per chunk inserted or deleted), then the derived indexes catch up from the change
log. A process killed in between leaves indexes that are merely behind; the next ``open`` replays the
log into them. Results are always hydrated from SQLite, so a hit whose item is gone is dropped, never
returned.

Damage: the derived indexes are checked when the store opens (tantivy's per-file CRC-32s, the saved
graph's SHA-256, the keyword document count against SQLite's) and rebuilt from SQLite when they fail; a
keyword index found damaged by a search is rebuilt in the background while searches answer from the
vector leg. :meth:`SQLiteStore.index_health` says which index was rebuilt and why.

Processes: **one index owner at a time** per data directory. The owner holds tantivy's index lock for its
whole life; a second ``open`` for writing raises :class:`~groundsearch.errors.StoreError` — unless it asks
for ``shared=True``: then it becomes a *log writer* (the short writer hand-off a CLI ingest beside a running
``serve`` uses). A log writer writes SQLite only (items, chunks, vectors and the change log, serialised with
the owner by SQLite's own write lock) and leaves the derived indexes to the owner, which notices the commit
through ``PRAGMA data_version`` and replays the log at its next search or background-embedder poll. Any
number of ``read_only=True`` instances may search concurrently; they notice commits the same way and catch up
before answering. Within a process the store is thread-safe (keyword and vector legs can run concurrently).

Pending vectors: a chunk may be stored without a vector (ingest writes text first, so it is keyword-searchable
at once); :meth:`SQLiteStore.pending_vectors` lists such chunks and :meth:`SQLiteStore.set_vectors` fills them
in, each fill logged as ``OP_VECTOR`` so only the vector index re-reads it.
"""

from __future__ import annotations

import dataclasses

import datetime as dt
import json
import logging
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from ..errors import IndexUnavailable, InvalidInput, SchemaTooNew, StoreError
from ..types import ChunkView, EntityEdge, Hit, Item, ItemWrite, Page, PreviewHit, SearchFilter
from . import chat_citations as citations
from . import sqlite_curation as curation
from . import sqlite_graph as graph
from . import sqlite_sentences as sentences
from .base import check_vectors, page_from
from .sentence_rows import SentenceRow
from .keyword_tantivy import KeywordIndex
from .legacy_ids import move_squatters
from .sqlite_rows import CHUNK_COLS, ITEM_COLS, chunk_view, item_from_row, validate_writes
from .sqlite_claims import FileClaims
from .sqlite_schema import (
    DDL, OP_DELETE, OP_UPSERT, OP_VECTOR, SCHEMA_VERSION, date_ordinal, encode_fields, field_rows, item_filter_sql,
    like_escape, vector_to_blob,
)
from .sqlite_sync import DerivedIndexes
from .text import analyze
from .vectors import VectorIndex, exact_search

__all__ = ["SQLiteStore"]

log = logging.getLogger("groundsearch.store")

_USER_META = "user."  # callers' keys live beside the store's own (schema_version, dim) without clashing


def _hits(keys: list[int | None], scores: list[float]) -> list[Hit]:
    """A leg's keys and scores as ``(key, score)`` hits (``zip`` in C: this runs for every candidate).

    No ids are resolved here: that is :meth:`SQLiteStore.hydrate`'s job, for the final page only. A key
    is ``None`` only where tantivy holds a document without one; such a document is skipped.
    """
    if None in keys:
        return [pair for pair in zip(keys, scores) if pair[0] is not None]  # type: ignore[misc]
    return list(zip(keys, scores))  # type: ignore[arg-type]


class SQLiteStore:
    """The embedded :class:`~groundsearch.store.base.Store`. Build it with :meth:`open`."""

    def __init__(self, data_dir: Path, dim: int, conn: sqlite3.Connection, keyword: KeywordIndex,
                 vectors: VectorIndex, read_only: bool, owner: bool | None = None) -> None:
        self.data_dir = data_dir
        self.dim = dim
        self.read_only = read_only
        self.owns_indexes = not read_only if owner is None else owner  # False: a reader or a log writer
        self._conn = conn
        self._keyword = keyword
        self._vectors = vectors
        self._derived = DerivedIndexes(conn, dim, keyword, vectors, not self.owns_indexes)
        self._lock = threading.RLock()
        self._data_version = self._pragma_data_version()
        self._closed = False
        self._rebuild: threading.Thread | None = None
        self._stopping = False  # set by close(): a background rebuild stops at its next batch

    @classmethod
    def open(cls, data_dir: Path, dim: int, *, exact_vector_max: int = 200_000, read_only: bool = False,
             shared: bool = False, hnsw_ef: int | None = None) -> SQLiteStore:
        """Open (creating if needed) the store in ``data_dir`` and bring its derived indexes up to date.

        ``shared``: when another process owns the indexes, open as a log writer instead of failing.
        ``hnsw_ef``: the graph's search beam (None: grows with the live rows, ``vectors.search_ef``)."""
        data_dir = Path(data_dir)
        if dim <= 0:
            raise InvalidInput(f"vector dimension must be positive, got {dim}")
        db_path = data_dir / "store.sqlite3"
        if read_only and not db_path.exists():
            raise StoreError(f"no store at {data_dir}; ingest something first")
        data_dir.mkdir(parents=True, exist_ok=True)
        # The keyword writer lock is taken first: a second writer fails before touching anything.
        owner = not read_only
        try:
            keyword = KeywordIndex.open(data_dir / "keyword", writable=owner)
        except StoreError as exc:
            if not (shared and owner and exc.details.get("reason") == "writer_busy"):
                raise
            owner = False
            keyword = KeywordIndex.open(data_dir / "keyword", writable=False)
        try:
            conn = _connect(db_path, dim, read_only)
            vectors = VectorIndex(dim, exact_vector_max, data_dir / "vectors", ef=hnsw_ef)
            store = cls(data_dir, dim, conn, keyword, vectors, read_only, owner)
            with store._lock:
                store._derived.load_vectors()
                if owner:
                    if keyword.repair:
                        log.warning("keyword index: %s", keyword.repair)
                    store._derived.catch_up_keyword()
                    vectors.checkpoint(force=True)
                miscount = store._derived.check_keyword_count()
                if miscount is not None:
                    why = f"the keyword index at {keyword.path} disagreed with SQLite ({miscount})"
                    if not owner:
                        keyword.damaged = f"{why}; the writer process rebuilds it"
                    else:
                        store._derived.rebuild_keyword(f"{why}; rebuilt it from SQLite")
            if owner:
                move_squatters(store)
        except BaseException:
            keyword.close()
            raise
        return store

    # ================================================================================ writes

    def upsert(self, writes: Sequence[ItemWrite]) -> None:
        self._require_writer()
        checked = validate_writes(writes, self.dim)
        if not checked:
            return
        with self._lock:
            with self._transaction():
                rewritten: dict[str, list[str]] = {}
                for w, vectors in checked:
                    created = self._remove_item(w.item.id)
                    self._insert(w, vectors, created)
                    if created is not None:
                        rewritten[w.item.id] = [c.text for c in w.chunks]
                # the passages stored conversations quoted that the new versions no longer hold, erased
                citations.sqlite_scrub(self._conn, rewritten=rewritten)
            self._sync()

    def delete(self, item_ids: Sequence[str]) -> int:
        self._require_writer()
        with self._lock:
            with self._transaction():
                gone = [i for i in dict.fromkeys(item_ids) if self._remove_item(i) is not None]
                citations.sqlite_scrub(self._conn, gone)  # what stored conversations quoted of them, erased
                removed = len(gone)
            self._sync()
        return removed

    def pending_vectors(self, after: int = 0, limit: int = 1000, *, tenant: str | None = None) -> list[int]:
        """Keys of chunks stored without a vector, above ``after``, ascending (a resumable cursor)."""
        with self._lock:
            self._refresh()
            if tenant is None:
                return [k for (k,) in self._conn.execute(
                    "SELECT key FROM chunks WHERE vector IS NULL AND key > ? ORDER BY key LIMIT ?", (after, limit))]
            return [k for (k,) in self._conn.execute(  # the chunks_pending partial index: waiting chunks only
                "SELECT c.key FROM chunks c JOIN items i ON i.rowid = c.item_rowid WHERE c.vector IS NULL "
                "AND c.key > ? AND i.tenant = ? ORDER BY c.key LIMIT ?", (after, tenant, limit))]

    def pending_vector_tenants(self, after: int = 0) -> list[str]:
        with self._lock:
            self._refresh()
            return [t for (t,) in self._conn.execute(
                "SELECT DISTINCT i.tenant FROM chunks c JOIN items i ON i.rowid = c.item_rowid "
                "WHERE c.vector IS NULL AND c.key > ? ORDER BY 1", (after,))]

    def vector_claims(self) -> FileClaims:
        """For an embedder sharing this data directory with others (``serve`` beside ``embed``): claim
        pending chunks before embedding them (``store/sqlite_claims.py``)."""
        def span(keys: Sequence[int]) -> tuple[int, int]:
            return min(keys) - 1, max(keys) - min(keys) + 1

        return FileClaims(
            self.data_dir / "embed-claims.lock",
            lambda keys: set(self.pending_vectors(*span(keys))) & set(keys),
            lambda keys, model: set(self.pending_sentences(model, *span(keys))) & set(keys))

    def count_pending_vectors(self, filter: SearchFilter | None = None) -> int:
        with self._lock:
            total = int(self._conn.execute("SELECT count(*) FROM chunks WHERE vector IS NULL").fetchone()[0])
            if filter is None or total == 0:
                return total
            where, params = item_filter_sql(filter)
            return int(self._conn.execute(  # over the chunks_pending partial index: only chunks still waiting
                f"SELECT count(*) FROM chunks c JOIN items i ON i.rowid = c.item_rowid WHERE c.vector IS NULL "
                f"AND {where}", params).fetchone()[0])

    def set_vectors(self, keys: Sequence[int], vectors: np.ndarray) -> int:
        """Store vectors for chunks that still lack one; returns how many were set. A chunk deleted or replaced
        meanwhile is skipped (keys are never reused, so a late vector can never land on other text)."""
        self._require_writer()
        vecs = check_vectors(vectors, len(keys), self.dim)
        with self._lock:
            with self._transaction():
                done = [int(k) for k, v in zip(keys, vecs) if self._conn.execute(
                    "UPDATE chunks SET vector = ? WHERE key = ? AND vector IS NULL", (vector_to_blob(v), int(k))
                ).rowcount]
                self._conn.executemany("INSERT INTO changes(chunk_key, op) VALUES (?, ?)",
                                       [(k, OP_VECTOR) for k in done])
            self._sync()
        return len(done)

    # ---- sentence vectors of extractive answers (store/sentence_rows.py) -------------------------------
    def pending_sentences(self, model: str, after: int = 0, limit: int = 1000) -> list[int]:
        with self._lock:
            self._refresh()
            return sentences.pending(self._conn, model, after, limit)

    def set_sentences(self, model: str, rows: Sequence[SentenceRow]) -> int:
        self._require_writer()
        with self._lock:
            with self._transaction():
                return sentences.write(self._conn, model, rows, self.dim)

    def sentence_vectors(self, model: str, chunk_ids: Sequence[str]) -> dict[str, dict[str, np.ndarray]]:
        if not chunk_ids:
            return {}
        with self._lock:
            return sentences.read(self._conn, model, chunk_ids, self.dim)

    def _remove_item(self, item_id: str) -> str | None:
        """Delete one item's rows inside the open transaction; returns its ``created_at`` ('' if unset) or None."""
        row = self._conn.execute("SELECT rowid, date_ord, created_at FROM items WHERE id = ?", (item_id,)).fetchone()
        if row is None:
            return None
        rowid, date_ord, created = row
        graph.remove_item_mentions(self._conn, rowid, date_ord)
        keys = [k for (k,) in self._conn.execute("SELECT key FROM chunks WHERE item_rowid = ?", (rowid,))]
        self._conn.executemany("INSERT INTO changes(chunk_key, op) VALUES (?, ?)", [(k, OP_DELETE) for k in keys])
        sentences.forget(self._conn, rowid)
        self._conn.execute("DELETE FROM chunks WHERE item_rowid = ?", (rowid,))
        self._conn.execute("DELETE FROM item_fields WHERE item_rowid = ?", (rowid,))
        self._conn.execute("DELETE FROM items WHERE rowid = ?", (rowid,))
        return created or ""

    def _insert(self, w: ItemWrite, vectors: np.ndarray | None, created: str | None) -> None:
        item = w.item
        now = dt.datetime.now(dt.timezone.utc).isoformat()
        date_ord = date_ordinal(item.date)
        cur = self._conn.execute(
            "INSERT INTO items(id, collection, title, title_fold, text, url, date_ord, fields, tenant, status, "
            "superseded_by, content_hash, source, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (item.id, item.collection, item.title, item.title.casefold(), item.text, item.url, date_ord,
             encode_fields(item.fields), item.tenant, item.status, item.superseded_by or None, item.content_hash,
             item.source, item.created_at.isoformat() if item.created_at else (created or now),
             item.updated_at.isoformat() if item.updated_at else now),
        )
        rowid = cur.lastrowid
        self._conn.executemany(
            "INSERT INTO item_fields(item_rowid, name, value) VALUES (?, ?, ?)",
            [(rowid, n, v) for n, v in field_rows(item.fields)],
        )
        keys = []
        for i, chunk in enumerate(w.chunks):
            blob = None if vectors is None else vector_to_blob(vectors[i])
            key = self._conn.execute(
                "INSERT INTO chunks(id, item_rowid, position, text, heading_path, entities, vector) "
                "VALUES (?,?,?,?,?,?,?)",
                (chunk.id, rowid, chunk.position, chunk.text, json.dumps(list(chunk.heading_path), ensure_ascii=False),
                 json.dumps(list(chunk.entities), ensure_ascii=False), blob),
            ).lastrowid
            keys.append(key)
            graph.add_mentions(self._conn, key, rowid, chunk.entities, date_ord)
        self._conn.executemany("INSERT INTO changes(chunk_key, op) VALUES (?, ?)", [(k, OP_UPSERT) for k in keys])

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except sqlite3.IntegrityError as exc:
            self._conn.execute("ROLLBACK")
            raise InvalidInput(f"write rejected, nothing was stored: {exc} (chunk ids must be unique across items)")
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    def _require_writer(self) -> None:
        if self.read_only:
            raise StoreError("this store was opened read-only; writes go through the writer process")

    # ================================================================================ derived indexes

    def _pragma_data_version(self) -> int:
        return int(self._conn.execute("PRAGMA data_version").fetchone()[0])

    def _sync(self) -> None:
        self._derived.sync()
        self._data_version = self._pragma_data_version()

    def _refresh(self) -> None:
        """Catch up when another connection (the owner, or a log writer in another process) has committed
        since we last looked; the owner then indexes that process's changes itself."""
        if self._pragma_data_version() != self._data_version:
            self._sync()
            if not self.owns_indexes:
                self._keyword.reload()

    def refresh(self) -> None:
        """Pick up other processes' commits now (the background embedder calls this while the server idles)."""
        with self._lock:
            self._refresh()

    # ================================================================================ retrieval

    def keyword_search(self, query: str, filter: SearchFilter, limit: int, offset: int = 0) -> Page:
        _check_page(limit, offset)
        terms = analyze(query)
        if not terms or limit == 0:
            return Page(hits=(), offset=offset, has_more=False)
        with self._lock:
            self._refresh()
            narrowed = self._resolve_review(filter)
        if narrowed is None:
            return Page(hits=(), offset=offset, has_more=False)
        try:
            keys, scores = self._keyword.search(terms, narrowed, limit + 1, offset)
        except IndexUnavailable:
            self._start_keyword_rebuild()
            raise
        # Equal scores in tantivy come back in segment order, which depends on how the index was committed (a
        # rebuilt index is one segment); by chunk id they are the same however it was built or re-ingested.
        return page_from(self._ties_by_id(_hits(keys, scores)), offset, limit)

    def _ties_by_id(self, hits: list[Hit]) -> list[Hit]:
        """``hits`` best first, equal scores by chunk id. Not by key: a key is the order of ingest, so a file
        re-ingested (its chunks get new keys) would flip its ties against every other file's, and a store with
        that history would rank unlike a fresh build of the same files. Ids are looked up for tied hits only."""
        seen: dict[float, int] = {}
        for _, score in hits:
            seen[score] = seen.get(score, 0) + 1
        tied = [k for k, score in hits if seen[score] > 1]
        if not tied:
            return sorted(hits, key=lambda h: -h[1])
        with self._lock:
            ids = dict(self._conn.execute("SELECT key, id FROM chunks WHERE key IN (SELECT value FROM json_each(?))",
                                          (json.dumps(tied),)).fetchall())
        return sorted(hits, key=lambda h: (-h[1], ids.get(h[0], ""), h[0]))

    def _start_keyword_rebuild(self) -> None:
        """The writer rebuilds a keyword index a search found damaged, in the background: the vector leg
        keeps answering meanwhile, and the lock is only held per batch (see ``rebuild_keyword``)."""
        with self._lock:
            why = self._keyword.damaged  # None: the files verified, the failure was that search's alone
            if why is None or not self.owns_indexes or self._stopping or self._derived.rebuilding_keyword or self._rebuild:
                return

            def run() -> None:
                try:
                    self._derived.rebuild_keyword(f"{why}; rebuilt it from SQLite", self._lock, lambda: self._stopping)
                except BaseException as exc:  # noqa: BLE001 — a background thread has no caller to tell
                    log.error("keyword index rebuild failed: %s", exc)
                finally:
                    self._rebuild = None

            self._rebuild = threading.Thread(target=run, name="groundsearch-keyword-rebuild", daemon=True)
            self._rebuild.start()

    def index_health(self) -> dict[str, dict[str, str]]:
        """Each derived index's state — ``ok``, ``rebuilt`` (damaged, rebuilt from SQLite), ``rebuilding``
        or ``unavailable`` (damaged; a reader waits for the writer) — and why."""
        kw, vi = self._keyword, self._vectors
        with self._lock:
            rebuilding = self._derived.rebuilding_keyword
            if rebuilding:
                kstate = "rebuilding"
            elif kw.damaged:
                kstate = "unavailable"
            else:
                kstate = "rebuilt" if kw.repair else "ok"
            return {
                "keyword": {"state": kstate, "detail": kw.damaged or kw.repair or ""},
                "vectors": {"state": "rebuilt" if vi.repair else "ok", "detail": vi.repair or "",
                            "search": "hnsw" if vi.uses_hnsw else "exact"},
            }

    def vector_search(self, vector: np.ndarray, filter: SearchFilter, limit: int, offset: int = 0) -> Page:
        _check_page(limit, offset)
        q = np.asarray(vector, dtype=np.float32).reshape(-1)
        if q.shape != (self.dim,):
            raise InvalidInput(f"query vector has {q.size} dimensions; this store holds {self.dim}-d vectors")
        if not np.all(np.isfinite(q)):
            raise InvalidInput("query vector contains NaN or infinity")
        if limit == 0:
            return Page(hits=(), offset=offset, has_more=False)
        snapshot = None
        with self._lock:
            self._refresh()
            allowed, excluded = self._item_sets(filter)
            mask = self._vectors.mask(filter, allowed, excluded)
            if self._vectors.graph_applies(mask):
                keys, scores = self._vectors.search(q, mask, offset + limit + 1)
            else:
                snapshot = self._vectors.snapshot()
        if snapshot is not None:  # the exact scan runs outside the lock, so the keyword leg can run beside it
            keys, scores = exact_search(snapshot[0], snapshot[1], q, mask, offset + limit + 1)
        hits = self._ties_by_id(_hits(keys.tolist(), scores.tolist()))  # ties by id, as in keyword_search
        return page_from(hits[offset:], offset, limit)

    def _resolve_review(self, f: SearchFilter) -> SearchFilter | None:
        """``f`` with its review-cadence parts turned into the item ids they admit, for the keyword index,
        which holds field values as exact terms and so cannot compare dates; ``None`` when no item passes."""
        if not f.review_statuses and f.review_due_before is None:
            return f
        only = SearchFilter(item_ids=f.item_ids, review_statuses=f.review_statuses,
                            review_due_before=f.review_due_before, statuses=("draft", "published", "archived"),
                            include_superseded=True)
        where, params = item_filter_sql(only)
        ids = tuple(r for (r,) in self._conn.execute(f"SELECT id FROM items i WHERE {where}", params))
        if not ids:
            return None
        return dataclasses.replace(f, item_ids=ids, review_statuses=(), review_due_before=None)

    def _item_sets(self, f: SearchFilter) -> tuple[np.ndarray | None, np.ndarray | None]:
        """Item rowids allowed by the field / item-id / review parts of ``f`` (``None``: no such constraint), and
        excluded."""
        allowed = None
        if f.fields or f.item_ids or f.review_statuses or f.review_due_before is not None:
            only = SearchFilter(fields=f.fields, item_ids=f.item_ids, statuses=("draft", "published", "archived"),
                                include_superseded=True, review_statuses=f.review_statuses,
                                review_due_before=f.review_due_before)
            where, params = item_filter_sql(only)
            allowed = np.asarray([r for (r,) in self._conn.execute(f"SELECT rowid FROM items i WHERE {where}", params)],
                                 dtype=np.int64)
        excluded = None
        if f.exclude_item_ids:
            excluded = np.asarray([r for (r,) in self._conn.execute(
                "SELECT rowid FROM items WHERE id IN (SELECT value FROM json_each(?))",
                (json.dumps(list(f.exclude_item_ids), ensure_ascii=False),))], dtype=np.int64)
        return allowed, excluded

    def preview(self, prefix: str, filter: SearchFilter, limit: int) -> list[PreviewHit]:
        """Titles starting with the prefix, then titles with a word starting with it (both ``title_match``),
        then titles merely containing it. ``LIKE`` with ``ESCAPE`` keeps ``%``, ``_`` and ``\\`` literal."""
        needle = prefix.strip().casefold()
        if not needle or limit <= 0:
            return []
        esc = like_escape(needle)
        where, params = item_filter_sql(filter)
        with self._lock:
            rows = self._conn.execute(
                "SELECT i.id, i.collection, i.title, i.url, CASE WHEN i.title_fold LIKE ? ESCAPE '\\' THEN 0 "
                "WHEN i.title_fold LIKE ? ESCAPE '\\' THEN 1 ELSE 2 END AS tier FROM items i "
                f"WHERE i.title_fold LIKE ? ESCAPE '\\' AND {where} ORDER BY tier, length(i.title), i.title, i.id LIMIT ?",
                [esc + "%", "% " + esc + "%", "%" + esc + "%", *params, limit],
            ).fetchall()
        return [PreviewHit(i, c, t, u, tier < 2) for i, c, t, u, tier in rows]

    # ================================================================================ reads

    def get(self, item_id: str) -> Item | None:
        return self.get_many([item_id]).get(item_id)

    def get_many(self, item_ids: Sequence[str]) -> dict[str, Item]:
        with self._lock:
            rows = self._conn.execute(f"SELECT {ITEM_COLS} FROM items i WHERE i.id IN (SELECT value FROM json_each(?))",
                                      (json.dumps(list(item_ids), ensure_ascii=False),)).fetchall()
        return {r[0]: item_from_row(r) for r in rows}

    def chunks(self, chunk_ids: Sequence[str]) -> dict[str, ChunkView]:
        return {v.chunk.id: v for v in self._views("c.id", list(chunk_ids)).values()}

    def hydrate(self, keys: Sequence[int]) -> dict[int, ChunkView]:
        return self._views("c.key", [int(k) for k in keys]) if keys else {}

    def _views(self, column: str, values: list[str] | list[int]) -> dict[int, ChunkView]:
        """Chunks with their items, by chunk key, where ``column`` (ours: ``c.key`` or ``c.id``) is in ``values``."""
        with self._lock:
            rows = self._conn.execute(
                f"SELECT c.key, {CHUNK_COLS}, {ITEM_COLS} FROM chunks c JOIN items i ON i.rowid = c.item_rowid "
                f"WHERE {column} IN (SELECT value FROM json_each(?))", (json.dumps(values, ensure_ascii=False),),
            ).fetchall()
        return {r[0]: chunk_view(r[1:]) for r in rows}

    def item_chunks(self, item_id: str) -> list[ChunkView]:
        with self._lock:
            rows = self._conn.execute(
                f"SELECT {CHUNK_COLS}, {ITEM_COLS} FROM chunks c JOIN items i ON i.rowid = c.item_rowid "
                "WHERE i.id = ? ORDER BY c.position, c.key", (item_id,),
            ).fetchall()
        return [chunk_view(r) for r in rows]

    def item_vectors(self, item_id: str) -> np.ndarray:
        with self._lock:
            blobs = [b for (b,) in self._conn.execute(
                "SELECT c.vector FROM chunks c JOIN items i ON i.rowid = c.item_rowid "
                "WHERE i.id = ? AND c.vector IS NOT NULL ORDER BY c.position, c.key", (item_id,))]
        if not blobs:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.frombuffer(b"".join(blobs), dtype="<f4").reshape(len(blobs), self.dim).astype(np.float32)

    def find_by_hash(self, content_hash: str, filter: SearchFilter | None = None) -> list[Item]:
        where, params = item_filter_sql(filter)
        with self._lock:
            rows = self._conn.execute(f"SELECT {ITEM_COLS} FROM items i WHERE i.content_hash = ? AND {where} "
                                      "ORDER BY i.rowid", [content_hash, *params]).fetchall()
        return [item_from_row(r) for r in rows]

    def source_hashes(self, sources: Sequence[str], collection: str, tenant: str) -> dict[str, dict[str, str]]:
        out: dict[str, dict[str, str]] = {}
        with self._lock:
            for source, iid, h in self._conn.execute(
                "SELECT source, id, content_hash FROM items WHERE source IN (SELECT value FROM json_each(?)) "
                "AND collection = ? AND tenant = ?",
                (json.dumps(list(sources), ensure_ascii=False), collection, tenant),
            ):
                out.setdefault(source, {})[iid] = h
        return out

    def sources_under(self, prefix: str, collection: str, tenant: str = "") -> list[str]:
        with self._lock:  # substr = ?: a literal prefix test, so "%" or "_" in a folder name match only themselves
            return [r for (r,) in self._conn.execute(
                "SELECT DISTINCT source FROM items WHERE collection = ? AND tenant = ? AND source IS NOT NULL "
                "AND substr(source, 1, length(?)) = ? ORDER BY source", (collection, tenant, prefix, prefix))]

    def count(self, filter: SearchFilter | None = None) -> int:
        where, params = item_filter_sql(filter)
        with self._lock:
            return int(self._conn.execute(f"SELECT count(*) FROM items i WHERE {where}", params).fetchone()[0])

    def count_chunks(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT count(*) FROM chunks").fetchone()[0])

    def entity_edges(self, entities: Sequence[str], filter: SearchFilter, limit: int) -> list[EntityEdge]:
        with self._lock:
            return graph.entity_edges(self._conn, entities, filter, limit)

    def entity_chunks(self, entities: Sequence[str], filter: SearchFilter, limit: int) -> list[tuple[int, str]]:
        with self._lock:
            return graph.entity_chunks(self._conn, entities, filter, limit)

    def top_terms(self, filter: SearchFilter, limit: int) -> list[tuple[str, int]]:
        with self._lock:
            return graph.top_terms(self._conn, filter, limit)

    def dated_mentions(self, filter: SearchFilter) -> list[tuple[str, str, dt.date]]:
        with self._lock:
            self._refresh()
            return curation.dated_mentions(self._conn, filter)

    def browse_rows(self, filter: SearchFilter) -> list[tuple[str, dt.date | None, str | None, str | None]]:
        with self._lock:
            self._refresh()
            return curation.browse_rows(self._conn, filter)

    # ================================================================================ metadata

    def meta_get(self, key: str) -> str | None:
        with self._lock:
            row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (_USER_META + key,)).fetchone()
        return None if row is None else str(row[0])

    def meta_set(self, key: str, value: str) -> None:
        self._require_writer()
        with self._lock:
            self._conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (_USER_META + key, value))

    # ================================================================================ lifecycle

    def close(self) -> None:
        self._stopping = True
        rebuild = self._rebuild
        if rebuild is not None:  # let a background rebuild finish its batch and stop
            rebuild.join(30)
        with self._lock:
            if self._closed:
                return
            self._closed = True
            try:
                if self.owns_indexes:
                    self._vectors.checkpoint(force=True)
            finally:
                self._keyword.close()
                self._conn.close()

    def __enter__(self) -> SQLiteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _connect(path: Path, dim: int, read_only: bool) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False, timeout=30.0)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        # FULL: a commit is durable before the derived indexes are told about it, so an index can never hold
        # a key the database lost (keys are never reused only if the database never rolls back under us).
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("PRAGMA temp_store=MEMORY")
        conn.execute("PRAGMA cache_size=-65536")  # 64 MB page cache
        if not read_only:
            conn.executescript(DDL)
            conn.executescript(sentences.DDL)
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        version = int(meta.get("schema_version", SCHEMA_VERSION))
        if version > SCHEMA_VERSION:
            raise SchemaTooNew(f"the store at {path.parent} has schema {version}; this groundsearch reads up to "
                               f"{SCHEMA_VERSION}. Upgrade groundsearch.")
        if "dim" in meta and int(meta["dim"]) != dim:
            raise StoreError(f"the store at {path.parent} holds {meta['dim']}-d vectors; open it with dim="
                             f"{meta['dim']} or use a new data directory for {dim}-d embeddings")
        if not read_only and "dim" not in meta:
            conn.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                             [("schema_version", str(SCHEMA_VERSION)), ("dim", str(dim))])
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise StoreError(f"the database at {path} cannot be opened: {exc}") from None
    except BaseException:
        conn.close()
        raise
    return conn


def _check_page(limit: int, offset: int) -> None:
    if limit < 0 or offset < 0:
        raise InvalidInput(f"limit and offset must be non-negative (got limit={limit}, offset={offset})")
