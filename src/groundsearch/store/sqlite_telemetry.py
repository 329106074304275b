"""``SQLiteTelemetry``: the telemetry store in its own SQLite file beside the embedded store.

Its own file because records are written on every search by every process serving the store: sharing the
store's file would make each search queue behind an ingest's write transaction. WAL and a busy timeout let
several API processes append at once; each write is one short transaction.
"""

from __future__ import annotations

import datetime as dt
import json
import secrets
import sqlite3
import threading
import uuid
from collections.abc import Sequence
from pathlib import Path

from ..telemetry.record import RequestRecord, ShadowRecord
from .telemetry_base import Feedback
from .telemetry_rows import REQUEST_COLUMNS, record_from_row, record_row

__all__ = ["SQLiteTelemetry"]

FILE_NAME = "telemetry.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS telemetry_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS request_log (
    id TEXT PRIMARY KEY, tenant TEXT NOT NULL, created_at REAL NOT NULL, surface TEXT NOT NULL,
    status TEXT NOT NULL, query_hash TEXT NOT NULL, query_terms TEXT NOT NULL, query_text TEXT,
    query_chars INTEGER NOT NULL, tier TEXT, confidence REAL, format TEXT, domains TEXT NOT NULL,
    complexity TEXT, cache_hit INTEGER NOT NULL, model TEXT, prompt_version TEXT, latency_ms TEXT NOT NULL,
    total_ms REAL, degraded TEXT NOT NULL, prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL,
    cost_usd REAL NOT NULL, usage TEXT NOT NULL, result_ids TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS request_log_created ON request_log (created_at);
CREATE INDEX IF NOT EXISTS request_log_tenant ON request_log (tenant, created_at);
CREATE TABLE IF NOT EXISTS request_shadow (
    created_at REAL NOT NULL, query_hash TEXT NOT NULL, winner_tier TEXT NOT NULL, agreed INTEGER,
    fields TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS request_shadow_created ON request_shadow (created_at);
"""
_FEEDBACK_DDL = """
CREATE TABLE IF NOT EXISTS feedback (
    id TEXT PRIMARY KEY, tenant TEXT NOT NULL, request_id TEXT NOT NULL, item_id TEXT NOT NULL,
    useful INTEGER NOT NULL, created_at REAL NOT NULL, owner TEXT NOT NULL DEFAULT '',
    UNIQUE (tenant, owner, request_id, item_id)
);
CREATE INDEX IF NOT EXISTS feedback_item ON feedback (tenant, item_id);
"""


def _ts(value: dt.datetime) -> float:
    return value.timestamp()


def _dt(value: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(value, dt.UTC)


class SQLiteTelemetry:
    """Thread-safe (one connection behind a lock); several processes may share the file."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._lock = threading.Lock()

    @classmethod
    def open(cls, path: Path) -> SQLiteTelemetry:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, timeout=10, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        _add_feedback_owner(conn)
        conn.executescript(_SCHEMA + _FEEDBACK_DDL)
        return cls(conn)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def _write(self, sql: str, params: Sequence[object] = ()) -> sqlite3.Cursor:
        with self._lock:
            return self._conn.execute(sql, params)

    def _read(self, sql: str, params: Sequence[object] = ()) -> list[tuple]:
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    def secret(self) -> bytes:
        # INSERT OR IGNORE then read: two processes starting at once agree on whichever key landed first.
        self._write("INSERT OR IGNORE INTO telemetry_meta VALUES ('hmac_key', ?)", (secrets.token_hex(32),))
        return bytes.fromhex(self._read("SELECT value FROM telemetry_meta WHERE key = 'hmac_key'")[0][0])

    def record(self, rec: RequestRecord) -> None:
        marks = ", ".join("?" * len(REQUEST_COLUMNS))
        self._write(f"INSERT OR REPLACE INTO request_log ({', '.join(REQUEST_COLUMNS)}) VALUES ({marks})",
                    record_row(rec, epoch=True))

    def record_shadow(self, rec: ShadowRecord) -> None:
        agreed = None if rec.agreed is None else int(rec.agreed)
        self._write("INSERT INTO request_shadow VALUES (?, ?, ?, ?, ?)",
                    (_ts(rec.created_at), rec.query_hash, rec.winner_tier, agreed, json.dumps(list(rec.fields))))

    def requests(self, since: dt.datetime, until: dt.datetime | None = None,
                 tenant: str | None = None) -> list[RequestRecord]:
        sql = f"SELECT {', '.join(REQUEST_COLUMNS)} FROM request_log WHERE created_at >= ? AND created_at < ?"
        params: list[object] = [_ts(since), _ts(until) if until else 1e18]
        if tenant is not None:
            sql += " AND tenant = ?"
            params.append(tenant)
        return [record_from_row(r) for r in self._read(sql + " ORDER BY created_at, id", params)]

    def shadows(self, since: dt.datetime, until: dt.datetime | None = None) -> list[ShadowRecord]:
        rows = self._read("SELECT created_at, query_hash, winner_tier, agreed, fields FROM request_shadow "
                          "WHERE created_at >= ? AND created_at < ? ORDER BY created_at",
                          (_ts(since), _ts(until) if until else 1e18))
        return [ShadowRecord(_dt(c), h, w, None if a is None else bool(a), tuple(json.loads(f)))
                for c, h, w, a, f in rows]

    def request_results(self, tenant: str, request_id: str) -> tuple[str, ...] | None:
        rows = self._read("SELECT result_ids FROM request_log WHERE id = ? AND tenant = ?", (request_id, tenant))
        return tuple(json.loads(rows[0][0])) if rows else None

    def purge(self, before: dt.datetime) -> int:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            n = self._conn.execute("DELETE FROM request_log WHERE created_at < ?", (_ts(before),)).rowcount
            n += self._conn.execute("DELETE FROM request_shadow WHERE created_at < ?", (_ts(before),)).rowcount
            self._conn.execute("COMMIT")
        return n

    def term_counts(self, tenant: str, since: dt.datetime, limit: int) -> list[tuple[str, int]]:
        rows = self._read("SELECT t.value, count(*) AS n FROM request_log r, json_each(r.query_terms) t "
                          "WHERE r.tenant = ? AND r.created_at >= ? GROUP BY t.value ORDER BY n DESC, t.value "
                          "LIMIT ?", (tenant, _ts(since), limit))
        return [(t, int(n)) for t, n in rows]

    def put_feedback(self, tenant: str, request_id: str, item_id: str, useful: bool, *, owner: str) -> Feedback:
        now = dt.datetime.now(dt.UTC)
        key = (tenant, owner, request_id, item_id)
        with self._lock:
            self._conn.execute(
                "INSERT INTO feedback (id, tenant, owner, request_id, item_id, useful, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tenant, owner, request_id, item_id) "
                "DO UPDATE SET useful = excluded.useful, created_at = excluded.created_at",
                (uuid.uuid4().hex, *key, int(useful), _ts(now)))
            (fid,) = self._conn.execute("SELECT id FROM feedback WHERE tenant = ? AND owner = ? AND request_id = ? "
                                        "AND item_id = ?", key).fetchone()
        return Feedback(fid, tenant, request_id, item_id, useful, now, owner)

    def delete_feedback(self, tenant: str, feedback_id: str, *, owner: str) -> bool:
        return self._write("DELETE FROM feedback WHERE id = ? AND tenant = ? AND owner = ?",
                           (feedback_id, tenant, owner)).rowcount > 0

    def feedback_owners(self) -> list[tuple[str, str, int]]:
        rows = self._read("SELECT tenant, owner, count(*) FROM feedback GROUP BY tenant, owner ORDER BY tenant, owner")
        return [(t, o, int(n)) for t, o, n in rows]

    def delete_owner_feedback(self, tenant: str, owner: str) -> int:
        return self._write("DELETE FROM feedback WHERE tenant = ? AND owner = ?", (tenant, owner)).rowcount

    def feedback_stats(self, tenant: str, item_ids: Sequence[str]) -> dict[str, tuple[int, int]]:
        if not item_ids:
            return {}
        rows = self._read("SELECT item_id, sum(useful), count(*) FROM (SELECT item_id, useful, owner, row_number() OVER "
                          "(PARTITION BY item_id, owner ORDER BY created_at DESC, rowid DESC) AS nth FROM feedback "
                          "WHERE tenant = ? AND item_id IN (SELECT value FROM json_each(?))) "
                          "WHERE nth = 1 OR owner = '' GROUP BY item_id", (tenant, json.dumps(list(item_ids))))
        return {i: (int(u), int(n)) for i, u, n in rows}


def _add_feedback_owner(conn: sqlite3.Connection) -> None:
    """Rebuild a feedback table of the layout before owners (unique per tenant, request, item), once, under the
    write lock; its rows get owner '' (no tenant key's), as in Postgres migration 0008."""
    def has_owner() -> bool | None:
        cols = [r[1] for r in conn.execute("PRAGMA table_info(feedback)")]
        return None if not cols else "owner" in cols

    if has_owner() is not False:
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        if has_owner() is False:  # another process may have rebuilt it while this one waited for the lock
            conn.execute("ALTER TABLE feedback RENAME TO feedback_before_owner")
            conn.execute("DROP INDEX IF EXISTS feedback_item")
            for statement in _FEEDBACK_DDL.split(";")[:2]:  # executescript would commit the open transaction
                conn.execute(statement)
            conn.execute("INSERT INTO feedback (id, tenant, owner, request_id, item_id, useful, created_at) "
                         "SELECT id, tenant, '', request_id, item_id, useful, created_at FROM feedback_before_owner")
            conn.execute("DROP TABLE feedback_before_owner")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
