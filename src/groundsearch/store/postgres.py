"""``PostgresStore``: the Store protocol on Postgres + pgvector, for several stateless API workers.

Postgres is the single source of truth *and* the index: BM25 postings, HNSW vectors, field values and
entity mentions are ordinary rows written in the same transaction as their item, so a reader never sees
half an item and a crash or dropped connection mid-write leaves nothing behind. Query building lives in
pure modules (``pg_filters``, ``pg_bm25``, ``pg_vector``, ``pg_codec``); this class only runs it.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Literal, TypeVar

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from psycopg_pool import ConnectionPool, PoolTimeout

from ..errors import ConfigError, InvalidInput, StoreError
from ..types import ChunkView, EntityEdge, Item, ItemWrite, Page, PreviewHit, SearchFilter
from . import chat_citations, pg_bulk, pg_curation, pg_sentences
from .base import check_vectors, page_from
from .legacy_ids import move_squatters
from .pg_keyword import impact, keyword_top, refresh_impacts, scope_deltas, scope_of_item, term_df_deltas
from .pg_local_keyword import LocalKeywordLeg, log_changes
from .pg_claims import VectorClaims
from .pg_codec import decode_text as dec
from .pg_codec import encode_text as enc
from .pg_connect import connect_once, in_transaction, unavailable
from .pg_filters import compile_filter
from .pg_migrations import apply_migrations, check_schema, migrate
from .pg_rows import ITEM_COLUMNS, chunk_from_row, item_from_row, prepare_writes
from .pg_vector import EXACT_MAX_CANDIDATES, ann_settings, ann_sql, candidates_sql, exact_sql, hnsw_index_sql
from .sentence_rows import SentenceRow
from .text import analyze

__all__ = ["PostgresStore", "migrate"]

T = TypeVar("T")
KeywordLeg = Literal["local", "sql"]
_META_PREFIX = "meta:"  # callers' keys, apart from the store's own (e.g. "dim")
_LOCK_DIM = 0x67726F756E65  # advisory lock for fixing the store's dimension and building its HNSW index
_ITEMS = ", ".join(f"i.{c}" for c in ITEM_COLUMNS)
_CHUNK_COLS = "c.id, c.item_id, c.position, c.body, c.heading_path, c.entities"


class PostgresStore:
    """Store protocol on Postgres. Thread-safe: every call borrows a pooled connection."""

    def __init__(self, dsn: str, dim: int, pool: ConnectionPool, keyword_leg: KeywordLeg = "local",
                 keyword_dir: Path | None = None) -> None:
        self.dim = dim
        self._dsn = dsn
        self._pool = pool
        # "local": a tantivy index in this process, derived from the change log (pg_local_keyword.py);
        # "sql": BM25 over the postings tables inside Postgres (pg_keyword.py)
        self.keyword_leg = keyword_leg
        self.local_keyword = LocalKeywordLeg(self._run, dsn, keyword_dir) if keyword_leg == "local" else None
        self.hnsw_ef: int | None = None  # the floor of hnsw.ef_search (retrieval.hnsw_ef); open() sets it

    # ---- lifecycle ------------------------------------------------------------------------------
    @classmethod
    def open(cls, dsn: str, dim: int, *, pool_size: int = 4, migrate: bool = True, keyword_leg: KeywordLeg = "local",
             keyword_dir: Path | None = None, hnsw_ef: int | None = None) -> PostgresStore:
        """Connect, migrate (unless ``migrate=False``), check the schema and the vector dimension.
        ``keyword_leg`` picks the BM25 implementation; ``keyword_dir`` holds the local one's index (default: a
        fresh temporary directory, removed on close); ``hnsw_ef`` is the floor of every ANN query's
        ``hnsw.ef_search`` (None: the rows asked for, at least 40; pgvector caps it at 1000)."""
        if dim <= 0:
            raise ConfigError(f"vector dimension must be positive, got {dim}")
        if keyword_leg not in ("local", "sql"):
            raise ConfigError(f"keyword_leg must be 'local' or 'sql', got {keyword_leg!r}")
        if migrate:
            apply_migrations(dsn)
        with connect_once(dsn) as conn:
            check_schema(conn)
            _fix_dimension(conn, dim)
        pg_bulk.finish_interrupted(dsn, dim)
        pool = ConnectionPool(
            dsn, min_size=1, max_size=max(1, pool_size), open=False, configure=register_vector,
            check=ConnectionPool.check_connection, kwargs={"connect_timeout": 5}, name="groundsearch",
        )
        try:
            pool.open(wait=True, timeout=15)
        except PoolTimeout as exc:
            pool.close()
            raise unavailable(dsn, exc) from exc
        store = cls(dsn, dim, pool, keyword_leg, keyword_dir)
        store.hnsw_ef = hnsw_ef
        if migrate:
            move_squatters(store)
        return store

    def bulk_import(self, stats: dict[str, Any] | None = None) -> AbstractContextManager[None]:
        """A block whose upserts skip the postings' and HNSW index upkeep; the indexes are built once when it
        ends (``store/pg_bulk.py``). For a first import: searches meanwhile are correct but slow."""
        return pg_bulk.bulk_import(self._dsn, self.dim, stats)

    def close(self) -> None:
        if self.local_keyword is not None:
            self.local_keyword.close()
        self._pool.close()

    def _run(self, work: Callable[[psycopg.Connection], T]) -> T:
        """Run ``work`` in one transaction on a pooled connection, retrying the whole of it if transient."""
        return in_transaction(self._pool, self._dsn, work)

    # ---- writes ---------------------------------------------------------------------------------
    def upsert(self, writes: Sequence[ItemWrite]) -> None:
        batch = prepare_writes(writes, self.dim)  # validates everything before any I/O
        if not batch.items:
            return

        def work(conn: psycopg.Connection) -> None:
            ids = [row[0] for row in batch.items]
            with conn.cursor() as cur:
                # Items first, sorted: their row locks serialise concurrent writers of the same ids
                # (no deadlock) before any chunk of them is touched.
                cur.executemany(_UPSERT_ITEM, batch.items)
                removed, removed_terms = _delete_chunks(cur, ids)
                cur.execute("DELETE FROM item_fields WHERE item_id = ANY(%s)", (ids,))
                pks = [r[0] for r in cur.execute(
                    "SELECT nextval('chunks_pk_seq') FROM generate_series(1, %s)", (len(batch.chunks),)
                ).fetchall()]
                _copy(cur, "item_fields (item_id, name, value)", batch.fields)
                scope_of = {row[0]: scope_of_item(row[7], row[8]) for row in batch.items}
                _copy(cur, "chunks (pk, id, item_id, position, body, heading_path, entities, n_terms, norm_terms,"
                      " scope_tenant, scope_visibility)",
                      [(pk, *row, *scope_of[row[1]]) for pk, row in zip(pks, batch.chunks)])
                ref = _impact_ref(cur, batch)
                _copy_postings(cur, batch, pks, ref)
                _apply_df(cur, term_df_deltas([t for _, t, _ in batch.postings], [t for t, _ in removed_terms]))
                _apply_scope_stats(cur, [(scope_of[batch.chunks[i][1]], t) for i, t, _ in batch.postings],
                                   [(scope_of[c[1]], c[-2]) for c in batch.chunks], removed, removed_terms)
                _copy(cur, "mentions (entity, chunk_pk)", [(e, pks[i]) for i, e in batch.mentions])
                if batch.vectors:
                    with cur.copy("COPY chunk_vectors (chunk_pk, embedding) FROM STDIN WITH (FORMAT BINARY)") as cp:
                        cp.set_types(["int8", "vector"])
                        for i, vec in batch.vectors:
                            cp.write_row((pks[i], vec))
                added = sum(row[-2] for row in batch.chunks)
                seq = cur.execute(
                    "UPDATE corpus_stats SET n_chunks = n_chunks + %s, n_terms = n_terms + %s,"
                    " impact_avglen = COALESCE(impact_avglen, %s), impact_ref_min = LEAST(impact_ref_min, %s),"
                    " log_seq = log_seq + 1 RETURNING log_seq",
                    (len(batch.chunks) - len(removed), added - sum(r[1] for r in removed), ref, ref),
                ).fetchone()[0]  # type: ignore[index]
                log_changes(cur, seq, [r[0] for r in removed] + pks)
                # the passages stored conversations quoted that the new versions no longer hold, erased
                chat_citations.pg_scrub(cur, rewritten={w.item.id: [c.text for c in w.chunks] for w in writes})

        self._run(work)

    def delete(self, item_ids: Sequence[str]) -> int:
        ids = sorted({enc(i) for i in item_ids})
        if not ids:
            return 0

        def work(conn: psycopg.Connection) -> int:
            with conn.cursor() as cur:
                cur.execute("SELECT id FROM items WHERE id = ANY(%s) ORDER BY id FOR UPDATE", (ids,))
                removed, removed_terms = _delete_chunks(cur, ids)
                _apply_df(cur, term_df_deltas((), [t for t, _ in removed_terms]))
                _apply_scope_stats(cur, [], [], removed, removed_terms)
                gone = cur.execute("DELETE FROM items WHERE id = ANY(%s) RETURNING id", (ids,)).fetchall()
                chat_citations.pg_scrub(cur, [r[0] for r in gone])  # what stored conversations quoted, erased
                if removed:
                    seq = cur.execute(
                        "UPDATE corpus_stats SET n_chunks = n_chunks - %s, n_terms = n_terms - %s,"
                        " log_seq = log_seq + 1 RETURNING log_seq",
                        (len(removed), sum(r[1] for r in removed)),
                    ).fetchone()[0]  # type: ignore[index]
                    log_changes(cur, seq, [r[0] for r in removed])
                return len(gone)

        return self._run(work)

    # ---- reads ----------------------------------------------------------------------------------
    def get(self, item_id: str) -> Item | None:
        return self.get_many([item_id]).get(item_id)

    def get_many(self, item_ids: Sequence[str]) -> dict[str, Item]:
        rows = self._fetch(f"SELECT {_ITEMS} FROM items i WHERE i.id = ANY(%(ids)s)", {"ids": [enc(i) for i in item_ids]})
        return {item.id: item for item in map(item_from_row, rows)}

    def chunks(self, chunk_ids: Sequence[str]) -> dict[str, ChunkView]:
        return {v.chunk.id: v for v in self._views("c.id = ANY(%(v)s::text[])", [enc(c) for c in chunk_ids]).values()}

    def hydrate(self, keys: Sequence[int]) -> dict[int, ChunkView]:
        return self._views("c.pk = ANY(%(v)s::bigint[])", [int(k) for k in keys]) if keys else {}

    def _views(self, where: str, values: list[str] | list[int]) -> dict[int, ChunkView]:
        """Chunks with their items, by chunk key, matching ``where`` (ours, never user text) with ``%(v)s`` = values."""
        rows = self._fetch(
            f"SELECT c.pk, {_CHUNK_COLS}, {_ITEMS} FROM chunks c JOIN items i ON i.id = c.item_id WHERE {where}",
            {"v": values},
        )
        return {int(r[0]): ChunkView(chunk=chunk_from_row(r[1:7]), item=item_from_row(r[7:])) for r in rows}

    def item_chunks(self, item_id: str) -> list[ChunkView]:
        rows = self._fetch(
            f"SELECT {_CHUNK_COLS}, {_ITEMS} FROM chunks c JOIN items i ON i.id = c.item_id"
            " WHERE c.item_id = %(id)s ORDER BY c.position, c.id",
            {"id": enc(item_id)},
        )
        return [ChunkView(chunk=chunk_from_row(r[:6]), item=item_from_row(r[6:])) for r in rows]

    def item_vectors(self, item_id: str) -> np.ndarray:
        rows = self._fetch(
            "SELECT v.embedding FROM chunk_vectors v JOIN chunks c ON c.pk = v.chunk_pk"
            " WHERE c.item_id = %(id)s ORDER BY c.position, c.id",
            {"id": enc(item_id)},
        )
        if not rows:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([np.asarray(r[0].to_numpy(), dtype=np.float32) for r in rows])

    def find_by_hash(self, content_hash: str, filter: SearchFilter | None = None) -> list[Item]:
        where = compile_filter(filter)
        rows = self._fetch(
            f"SELECT {_ITEMS} FROM items i WHERE i.content_hash = %(h)s AND {where.sql} ORDER BY i.id",
            {"h": enc(content_hash), **where.params},
        )
        return [item_from_row(r) for r in rows]

    def source_hashes(self, sources: Sequence[str], collection: str, tenant: str) -> dict[str, dict[str, str]]:
        rows = self._fetch(
            "SELECT source, id, content_hash FROM items WHERE source = ANY(%(s)s) AND collection = %(c)s "
            "AND tenant = %(t)s", {"s": [enc(s) for s in sources], "c": enc(collection), "t": enc(tenant)}
        )
        out: dict[str, dict[str, str]] = {}
        for source, item_id, content_hash in rows:
            out.setdefault(dec(source), {})[dec(item_id)] = dec(content_hash)
        return out

    def sources_under(self, prefix: str, collection: str, tenant: str = "") -> list[str]:
        rows = self._fetch(  # starts_with: a literal prefix test (LIKE would treat "%" and "_" in paths as wildcards)
            "SELECT DISTINCT source FROM items WHERE collection = %(c)s AND tenant = %(t)s AND source IS NOT NULL "
            "AND starts_with(source, %(p)s) ORDER BY source",
            {"c": enc(collection), "t": enc(tenant), "p": enc(prefix)})
        return [dec(r[0]) for r in rows]

    def count(self, filter: SearchFilter | None = None) -> int:
        where = compile_filter(filter)
        return int(self._fetch(f"SELECT count(*) FROM items i WHERE {where.sql}", where.params)[0][0])

    def count_chunks(self) -> int:
        return int(self._fetch("SELECT count(*) FROM chunks", {})[0][0])

    # ---- vectors filled in after the text ------------------------------------------------------------
    def pending_vectors(self, after: int = 0, limit: int = 1000, *, tenant: str | None = None) -> list[int]:
        # chunks.scope_tenant is the item's (encoded) tenant, kept with the chunk for the keyword scopes
        rows = self._fetch(
            "SELECT c.pk FROM chunks c WHERE c.pk > %(a)s AND (%(t)s::text IS NULL OR c.scope_tenant = %(t)s::text) "
            "AND NOT EXISTS (SELECT 1 FROM chunk_vectors v WHERE v.chunk_pk = c.pk) ORDER BY c.pk LIMIT %(n)s",
            {"a": int(after), "n": int(limit), "t": None if tenant is None else enc(tenant)})
        return [int(r[0]) for r in rows]

    def pending_vector_tenants(self, after: int = 0) -> list[str]:
        rows = self._fetch(
            "SELECT DISTINCT c.scope_tenant FROM chunks c WHERE c.pk > %(a)s AND NOT EXISTS "
            "(SELECT 1 FROM chunk_vectors v WHERE v.chunk_pk = c.pk)", {"a": int(after)})
        return sorted(dec(r[0]) for r in rows)

    def vector_claims(self) -> VectorClaims:
        """For an embedder sharing this database with others: claim pending chunks before embedding them."""
        return VectorClaims(self._dsn)

    def count_pending_vectors(self, filter: SearchFilter | None = None) -> int:
        # two index-only counts, not an anti-join over every chunk: search diagnostics ask on every request; the
        # filtered anti-join runs only while some chunk is waiting (an ingest in flight)
        total = int(self._fetch("SELECT (SELECT count(*) FROM chunks) - (SELECT count(*) FROM chunk_vectors)",
                                {})[0][0])
        if filter is None or total <= 0:
            return total
        where = compile_filter(filter)
        return int(self._fetch(
            f"SELECT count(*) FROM chunks c JOIN items i ON i.id = c.item_id WHERE {where.sql} AND NOT EXISTS "
            "(SELECT 1 FROM chunk_vectors v WHERE v.chunk_pk = c.pk)", where.params)[0][0])

    def set_vectors(self, keys: Sequence[int], vectors: np.ndarray) -> int:
        vecs = check_vectors(vectors, len(keys), self.dim)
        if not len(keys):
            return 0

        def work(conn: psycopg.Connection) -> int:
            with conn.cursor() as cur:
                cur.execute("CREATE TEMP TABLE gs_new_vectors (chunk_pk bigint, embedding vector) ON COMMIT DROP")
                with cur.copy("COPY gs_new_vectors (chunk_pk, embedding) FROM STDIN WITH (FORMAT BINARY)") as cp:
                    cp.set_types(["int8", "vector"])
                    for k, v in zip(keys, vecs):
                        cp.write_row((int(k), v))
                # the join skips chunks deleted meanwhile; FOR KEY SHARE holds them until the insert commits
                cur.execute(
                    "INSERT INTO chunk_vectors (chunk_pk, embedding) SELECT n.chunk_pk, n.embedding "
                    "FROM gs_new_vectors n WHERE n.chunk_pk IN (SELECT c.pk FROM chunks c "
                    "WHERE c.pk IN (SELECT chunk_pk FROM gs_new_vectors) FOR KEY SHARE) "
                    "ON CONFLICT (chunk_pk) DO NOTHING")
                return int(cur.rowcount)

        return self._run(work)

    # ---- sentence vectors of extractive answers (store/sentence_rows.py) -------------------------------
    def pending_sentences(self, model: str, after: int = 0, limit: int = 1000) -> list[int]:
        return self._run(lambda conn: pg_sentences.pending(conn, model, after, limit))

    def set_sentences(self, model: str, rows: Sequence[SentenceRow]) -> int:
        return self._run(lambda conn: pg_sentences.write(conn, model, rows, self.dim)) if rows else 0

    def sentence_vectors(self, model: str, chunk_ids: Sequence[str]) -> dict[str, dict[str, np.ndarray]]:
        return self._run(lambda conn: pg_sentences.read(conn, model, chunk_ids, self.dim)) if chunk_ids else {}

    def _fetch(self, sql: str, params: dict[str, Any]) -> list[tuple[Any, ...]]:
        return self._run(lambda conn: conn.execute(sql.encode(), params).fetchall())

    # ---- metadata -------------------------------------------------------------------------------
    def meta_get(self, key: str) -> str | None:
        rows = self._fetch("SELECT value FROM store_meta WHERE key = %(k)s", {"k": _META_PREFIX + enc(key)})
        return dec(rows[0][0]) if rows else None

    def meta_set(self, key: str, value: str) -> None:
        self._run(lambda conn: conn.execute(
            "INSERT INTO store_meta (key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            (_META_PREFIX + enc(key), enc(value)),
        ))

    # ---- retrieval ------------------------------------------------------------------------------
    def keyword_search(self, query: str, filter: SearchFilter, limit: int, offset: int = 0) -> Page:
        _check_page(limit, offset)
        terms = list(dict.fromkeys(analyze(query)))  # distinct, as the embedded index ORs distinct term queries
        if not terms:
            return Page(hits=(), offset=offset, has_more=False)
        if self.local_keyword is not None:
            narrowed = self._resolve_review(filter)
            if narrowed is None:
                return Page(hits=(), offset=offset, has_more=False)
            return page_from(self.local_keyword.search(terms, narrowed, limit + 1, offset), offset, limit)
        where = compile_filter(filter)
        rows = self._run(lambda conn: keyword_top(conn, terms, where, offset + limit + 1))
        return page_from(rows[offset:], offset, limit)

    def _resolve_review(self, f: SearchFilter) -> SearchFilter | None:
        """``f`` with its review-cadence parts turned into the item ids they admit, for the local index, which
        holds field values as exact terms and cannot compare dates (as the embedded store does it); ``None``
        when no item passes."""
        if not f.review_statuses and f.review_due_before is None:
            return f
        only = compile_filter(SearchFilter(item_ids=f.item_ids, review_statuses=f.review_statuses,
                                           review_due_before=f.review_due_before,
                                           statuses=("draft", "published", "archived"), include_superseded=True))
        ids = tuple(dec(r[0]) for r in self._fetch(f"SELECT i.id FROM items i WHERE {only.sql}", only.params))
        return dataclasses.replace(f, item_ids=ids, review_statuses=(), review_due_before=None) if ids else None

    def refresh_keyword_impacts(self) -> dict[str, float]:
        """See :func:`~groundsearch.store.pg_keyword.refresh_impacts`."""
        return self._run(refresh_impacts)

    def vector_search(self, vector: np.ndarray, filter: SearchFilter, limit: int, offset: int = 0) -> Page:
        _check_page(limit, offset)
        q = np.asarray(vector, dtype=np.float32).reshape(-1)
        if q.shape != (self.dim,) or not np.all(np.isfinite(q)):
            raise InvalidInput(
                f"query vector must be {self.dim} finite floats, got shape {tuple(np.shape(vector))}",
                details={"expected_dim": self.dim},
            )
        where = compile_filter(filter)
        n = offset + limit + 1

        def work(conn: psycopg.Connection) -> list[tuple[Any, ...]]:
            params = {"q": q, "lim": limit + 1, "off": offset, "n": n, **where.params}
            probe = conn.execute(candidates_sql(where).encode(), {**params, "cap": EXACT_MAX_CANDIDATES + 1})
            candidates = probe.fetchone()[0]  # type: ignore[index]
            if candidates <= EXACT_MAX_CANDIDATES or n > EXACT_MAX_CANDIDATES:
                return conn.execute(exact_sql(where).encode(), params).fetchall()
            for name, value in ann_settings(n, self.hnsw_ef):
                conn.execute("SELECT set_config(%s, %s, true)", (name, value))
            return conn.execute(ann_sql(where, self.dim).encode(), params).fetchall()

        rows = self._run(work)
        return page_from([(int(k), float(score)) for k, score in rows], offset, limit)

    def preview(self, prefix: str, filter: SearchFilter, limit: int) -> list[PreviewHit]:
        """Titles starting with the prefix, then titles with a word starting with it (both ``title_match``),
        then titles merely containing it; the same tiers and order as the embedded store. The needle is
        bound and LIKE-escaped, so ``%``, ``_`` and ``\\`` match literally."""
        needle = prefix.strip().casefold()
        if not needle or limit <= 0:
            return []
        esc = enc(needle).replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        where = compile_filter(filter)
        rows = self._fetch(
            f"""
SELECT i.id, i.collection, i.title, i.url,
       CASE WHEN lower(i.title) LIKE %(start)s ESCAPE '\\' THEN 0
            WHEN lower(i.title) LIKE %(word)s ESCAPE '\\' THEN 1 ELSE 2 END AS tier
FROM items i
WHERE lower(i.title) LIKE %(sub)s ESCAPE '\\' AND {where.sql}
ORDER BY tier, length(i.title), i.title, i.id
LIMIT %(lim)s""",
            {"start": esc + "%", "word": "% " + esc + "%", "sub": "%" + esc + "%", "lim": limit, **where.params},
        )
        return [PreviewHit(dec(r[0]), dec(r[1]), dec(r[2]), dec(r[3]) if r[3] is not None else None, r[4] < 2)
                for r in rows]

    def entity_edges(self, entities: Sequence[str], filter: SearchFilter, limit: int) -> list[EntityEdge]:
        """Edge weights are counted from live mentions at query time, so they are exact after any
        replace or delete and honour the filter (edges among visible chunks only)."""
        _check_page(limit, 0)
        where = compile_filter(filter)
        rows = self._fetch(
            f"""
SELECT m1.entity, m2.entity, count(*) AS weight, max(i.item_date)
FROM mentions m1
JOIN mentions m2 ON m2.chunk_pk = m1.chunk_pk AND m2.entity <> m1.entity
JOIN chunks c ON c.pk = m1.chunk_pk
JOIN items i ON i.id = c.item_id
WHERE m1.entity = ANY(%(ents)s) AND (m2.entity <> ALL(%(ents)s) OR m1.entity < m2.entity) AND {where.sql}
GROUP BY m1.entity, m2.entity
ORDER BY weight DESC, m1.entity, m2.entity
LIMIT %(lim)s""",
            {"ents": [enc(e) for e in entities], "lim": limit, **where.params},
        )
        return [EntityEdge(dec(a), dec(b), float(w), d) for a, b, w, d in rows]

    def entity_chunks(self, entities: Sequence[str], filter: SearchFilter, limit: int) -> list[tuple[int, str]]:
        _check_page(limit, 0)
        where = compile_filter(filter)
        rows = self._fetch(
            f"""
SELECT c.pk, m.entity FROM mentions m
JOIN chunks c ON c.pk = m.chunk_pk JOIN items i ON i.id = c.item_id
WHERE m.entity = ANY(%(ents)s) AND {where.sql}
ORDER BY c.pk, m.entity LIMIT %(lim)s""",
            {"ents": [enc(e) for e in entities], "lim": limit, **where.params},
        )
        return [(int(k), dec(e)) for k, e in rows]

    def top_terms(self, filter: SearchFilter, limit: int) -> list[tuple[str, int]]:
        _check_page(limit, 0)
        where = compile_filter(filter)  # joined, so drafts' and other tenants' names are never counted
        rows = self._fetch(
            "SELECT m.entity, count(*) AS n FROM mentions m JOIN chunks c ON c.pk = m.chunk_pk "
            f"JOIN items i ON i.id = c.item_id WHERE {where.sql} "
            "GROUP BY m.entity ORDER BY n DESC, m.entity LIMIT %(lim)s",
            {"lim": limit, **where.params},
        )
        return [(dec(e), int(n)) for e, n in rows]

    def dated_mentions(self, filter: SearchFilter) -> list[tuple[str, str, dt.date]]:
        return pg_curation.dated_mentions(self._fetch, filter)

    def browse_rows(self, filter: SearchFilter) -> list[tuple[str, dt.date | None, str | None, str | None]]:
        return pg_curation.browse_rows(self._fetch, filter)


_UPSERT_ITEM = """
INSERT INTO items (id, collection, title, body, url, item_date, fields, tenant, status, superseded_by,
                   content_hash, source, created_at, updated_at)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, COALESCE(%s, now()), COALESCE(%s, now()))
ON CONFLICT (id) DO UPDATE SET
    collection = EXCLUDED.collection, title = EXCLUDED.title, body = EXCLUDED.body, url = EXCLUDED.url,
    item_date = EXCLUDED.item_date, fields = EXCLUDED.fields, tenant = EXCLUDED.tenant, status = EXCLUDED.status,
    superseded_by = EXCLUDED.superseded_by, content_hash = EXCLUDED.content_hash, source = EXCLUDED.source,
    created_at = items.created_at, updated_at = EXCLUDED.updated_at
"""


def refresh_keyword_impacts(dsn: str) -> dict[str, float]:
    """``groundsearch migrate --refresh-keyword-impacts``: no vector dimension needed, so no store is opened."""
    with connect_once(dsn) as conn:
        check_schema(conn)
        with conn.transaction():
            return refresh_impacts(conn)


def _delete_chunks(cur: psycopg.Cursor,
                   item_ids: list[str]) -> tuple[list[tuple[int, int, str, str]], list[tuple[str, int]]]:
    """Delete the items' chunks with their postings and mentions (no FK cascades there); returns
    ``(pk, n_terms, scope tenant, scope visibility)`` per chunk removed and ``(term, chunk_pk)`` of every
    posting removed (for ``term_stats`` and ``scope_term_stats``). A chunk carries the scope it was counted
    under, so an upsert that moves its item to another tenant or status takes it out of the right one."""
    removed = cur.execute("DELETE FROM chunks WHERE item_id = ANY(%s) RETURNING pk, n_terms, scope_tenant,"
                          " scope_visibility", (item_ids,)).fetchall()
    terms: list[tuple[str, int]] = []
    if removed:
        pks = [r[0] for r in removed]
        terms = cur.execute("DELETE FROM postings WHERE chunk_pk = ANY(%s) RETURNING term, chunk_pk", (pks,)).fetchall()
        cur.execute("DELETE FROM mentions WHERE chunk_pk = ANY(%s)", (pks,))
    return removed, terms


def _apply_scope_stats(cur: psycopg.Cursor, added_terms: list[tuple[tuple[str, str], str]],
                       added_chunks: list[tuple[tuple[str, str], int]], removed: list[tuple[int, int, str, str]],
                       removed_terms: list[tuple[str, int]]) -> None:
    """Move ``scope_stats`` and ``scope_term_stats`` by what this transaction added and removed (same
    transaction as the chunks, so the statistics always equal a recount; rows locked in key order)."""
    chunk_scope = {pk: (tenant, vis) for pk, _, tenant, vis in removed}
    chunks, df = scope_deltas(added_terms, added_chunks,
                              [(chunk_scope[pk], t) for t, pk in removed_terms],
                              [(chunk_scope[pk], n) for pk, n, _, _ in removed])
    if df:
        cur.execute(
            "INSERT INTO scope_term_stats (tenant, visibility, term, df)"
            " SELECT * FROM unnest(%s::text[], %s::text[], %s::text[], %s::bigint[]) AS x(t, v, term, d)"
            " ORDER BY 1, 2, 3 ON CONFLICT (tenant, visibility, term)"
            " DO UPDATE SET df = scope_term_stats.df + EXCLUDED.df",
            [list(col) for col in zip(*((t, v, term, d) for (t, v, term), d in df))],
        )
    if chunks:
        cur.execute(
            "INSERT INTO scope_stats (tenant, visibility, n_chunks, n_terms)"
            " SELECT * FROM unnest(%s::text[], %s::text[], %s::bigint[], %s::bigint[]) AS x(t, v, n, l)"
            " ORDER BY 1, 2 ON CONFLICT (tenant, visibility) DO UPDATE SET n_chunks = scope_stats.n_chunks"
            " + EXCLUDED.n_chunks, n_terms = scope_stats.n_terms + EXCLUDED.n_terms",
            [list(col) for col in zip(*((t, v, n, length) for (t, v), (n, length) in chunks))],
        )


def _impact_ref(cur: psycopg.Cursor, batch: Any) -> float:
    """The mean length new postings' impacts are computed with: the corpus's recorded one, or — for the first
    write into an empty corpus — the batch's own. Read without a lock: a concurrent refresh may change it,
    which is why the writer also lowers ``impact_ref_min`` to the value it used (the bound stays valid)."""
    row = cur.execute("SELECT impact_avglen FROM corpus_stats").fetchone()
    if row is not None and row[0] is not None:
        return float(row[0])
    lengths = [c[-2] for c in batch.chunks]
    return max(sum(lengths) / len(lengths), 1.0) if lengths else 1.0


def _apply_df(cur: psycopg.Cursor, deltas: list[tuple[str, int]]) -> None:
    if deltas:
        cur.execute(
            "INSERT INTO term_stats (term, df) SELECT t, d FROM unnest(%s::text[], %s::bigint[]) AS x(t, d)"
            " ORDER BY t ON CONFLICT (term) DO UPDATE SET df = term_stats.df + EXCLUDED.df",
            ([t for t, _ in deltas], [d for _, d in deltas]),
        )


_COPY_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _copy_postings(cur: psycopg.Cursor, batch: Any, pks: list[int], ref: float) -> None:
    """COPY the batch's postings as one text payload. Per-row ``write_row`` took ~12 µs a posting in Python
    (a third of an upsert's client time at ~60 postings a chunk); an impact depends only on (tf, length)."""
    if not batch.postings:
        return
    impacts: dict[tuple[int, int], str] = {}
    terms: dict[str, str] = {}
    lines = []
    for i, term, tf in batch.postings:
        norm = batch.chunks[i][-1]
        imp = impacts.get((tf, norm))
        if imp is None:  # str(float) is what psycopg sends for a float, and float8 reads it back exactly
            imp = impacts[(tf, norm)] = str(impact(tf, norm, ref))
        t = terms.get(term)
        if t is None:
            t = terms[term] = term.translate(_COPY_ESCAPES)
        lines.append(f"{t}\t{pks[i]}\t{tf}\t{norm}\t{imp}\n")
    with cur.copy("COPY postings (term, chunk_pk, tf, norm_terms, impact) FROM STDIN") as cp:
        cp.write("".join(lines).encode())


def _copy(cur: psycopg.Cursor, target: str, rows: Sequence[tuple[Any, ...]]) -> None:
    if not rows:
        return
    with cur.copy(f"COPY {target} FROM STDIN") as cp:
        for row in rows:
            cp.write_row(row)


def _check_page(limit: int, offset: int) -> None:
    if limit < 1 or offset < 0:
        raise InvalidInput(f"limit must be >= 1 and offset >= 0, got limit={limit} offset={offset}")


def _fix_dimension(conn: psycopg.Connection, dim: int) -> None:
    """First open fixes the store's dimension and builds its HNSW index; later opens must agree."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_DIM,))
        row = conn.execute("SELECT value FROM store_meta WHERE key = 'dim'").fetchone()
        if row is None:
            conn.execute("INSERT INTO store_meta (key, value) VALUES ('dim', %s)", (str(dim),))
            conn.execute(hnsw_index_sql(dim).encode())
        elif int(row[0]) != dim:
            raise StoreError(
                f"this database stores {row[0]}-d vectors but the embedder produces {dim}-d ones; "
                "use the embedder it was built with, or a fresh database",
                details={"stored_dim": int(row[0]), "requested_dim": dim},
            )
