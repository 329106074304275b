"""``PgTelemetry``: the telemetry store in the Postgres database the store uses (tables of migration 0004).

A pool of its own, small, so a burst of record writes never takes connections the search legs need.
"""

from __future__ import annotations

import datetime as dt
import json
import secrets
import uuid
from collections.abc import Sequence

from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from ..telemetry.record import RequestRecord, ShadowRecord
from .pg_migrations import apply_migrations
from .telemetry_base import Feedback
from .telemetry_rows import REQUEST_COLUMNS, record_from_row, record_row

__all__ = ["PgTelemetry"]

_FAR = dt.datetime(9999, 1, 1, tzinfo=dt.UTC)
_JSON_COLUMNS = {"query_terms", "domains", "latency_ms", "degraded", "usage", "result_ids"}


class PgTelemetry:
    def __init__(self, pool: ConnectionPool) -> None:
        self._pool = pool

    @classmethod
    def open(cls, dsn: str, *, pool_size: int = 2) -> PgTelemetry:
        apply_migrations(dsn)  # idempotent; the store applies them too, whichever opens first wins the lock
        pool = ConnectionPool(dsn, min_size=1, max_size=pool_size, open=False, kwargs={"connect_timeout": 5},
                              name="groundsearch-telemetry")
        pool.open(wait=True, timeout=15)
        return cls(pool)

    def close(self) -> None:
        self._pool.close()

    def _rows(self, sql: str, params: Sequence[object] = ()) -> list[tuple]:
        with self._pool.connection(timeout=15) as conn:
            cur = conn.execute(sql, params)
            return cur.fetchall() if cur.description else []

    def _count(self, sql: str, params: Sequence[object] = ()) -> int:
        with self._pool.connection(timeout=15) as conn:
            return conn.execute(sql, params).rowcount

    def secret(self) -> bytes:
        self._rows("INSERT INTO telemetry_meta VALUES ('hmac_key', %s) ON CONFLICT DO NOTHING",
                   (secrets.token_hex(32),))
        return bytes.fromhex(self._rows("SELECT value FROM telemetry_meta WHERE key = 'hmac_key'")[0][0])

    def record(self, rec: RequestRecord) -> None:
        values = [Jsonb(json.loads(v)) if c in _JSON_COLUMNS else v
                  for c, v in zip(REQUEST_COLUMNS, record_row(rec, epoch=False))]
        marks = ", ".join(["%s"] * len(REQUEST_COLUMNS))
        self._rows(f"INSERT INTO request_log ({', '.join(REQUEST_COLUMNS)}) VALUES ({marks}) "
                   "ON CONFLICT (id) DO NOTHING", values)

    def record_shadow(self, rec: ShadowRecord) -> None:
        self._rows("INSERT INTO request_shadow VALUES (%s, %s, %s, %s, %s)",
                   (rec.created_at, rec.query_hash, rec.winner_tier, rec.agreed, Jsonb(list(rec.fields))))

    def requests(self, since: dt.datetime, until: dt.datetime | None = None,
                 tenant: str | None = None) -> list[RequestRecord]:
        sql = f"SELECT {', '.join(REQUEST_COLUMNS)} FROM request_log WHERE created_at >= %s AND created_at < %s"
        params: list[object] = [since, until or _FAR]
        if tenant is not None:
            sql += " AND tenant = %s"
            params.append(tenant)
        return [record_from_row(r) for r in self._rows(sql + " ORDER BY created_at, id", params)]

    def shadows(self, since: dt.datetime, until: dt.datetime | None = None) -> list[ShadowRecord]:
        rows = self._rows("SELECT created_at, query_hash, winner_tier, agreed, fields FROM request_shadow "
                          "WHERE created_at >= %s AND created_at < %s ORDER BY created_at", (since, until or _FAR))
        return [ShadowRecord(c, h, w, a, tuple(f)) for c, h, w, a, f in rows]

    def request_results(self, tenant: str, request_id: str) -> tuple[str, ...] | None:
        rows = self._rows("SELECT result_ids FROM request_log WHERE id = %s AND tenant = %s", (request_id, tenant))
        return tuple(rows[0][0]) if rows else None

    def purge(self, before: dt.datetime) -> int:
        with self._pool.connection(timeout=15) as conn, conn.transaction():
            n = conn.execute("DELETE FROM request_log WHERE created_at < %s", (before,)).rowcount
            n += conn.execute("DELETE FROM request_shadow WHERE created_at < %s", (before,)).rowcount
        return n

    def term_counts(self, tenant: str, since: dt.datetime, limit: int) -> list[tuple[str, int]]:
        rows = self._rows("SELECT t, count(*) AS n FROM request_log r, jsonb_array_elements_text(r.query_terms) t "
                          "WHERE r.tenant = %s AND r.created_at >= %s GROUP BY t ORDER BY n DESC, t LIMIT %s",
                          (tenant, since, limit))
        return [(t, int(n)) for t, n in rows]

    def put_feedback(self, tenant: str, request_id: str, item_id: str, useful: bool, *, owner: str) -> Feedback:
        now = dt.datetime.now(dt.UTC)
        rows = self._rows("INSERT INTO feedback (id, tenant, owner, request_id, item_id, useful, created_at) "
                          "VALUES (%s, %s, %s, %s, %s, %s, %s) "
                          "ON CONFLICT (tenant, owner, request_id, item_id) DO UPDATE SET useful = EXCLUDED.useful, "
                          "created_at = EXCLUDED.created_at RETURNING id",
                          (uuid.uuid4().hex, tenant, owner, request_id, item_id, useful, now))
        return Feedback(rows[0][0], tenant, request_id, item_id, useful, now, owner)

    def delete_feedback(self, tenant: str, feedback_id: str, *, owner: str) -> bool:
        return self._count("DELETE FROM feedback WHERE id = %s AND tenant = %s AND owner = %s",
                           (feedback_id, tenant, owner)) > 0

    def feedback_owners(self) -> list[tuple[str, str, int]]:
        rows = self._rows("SELECT tenant, owner, count(*) FROM feedback GROUP BY tenant, owner ORDER BY tenant, owner")
        return [(t, o, int(n)) for t, o, n in rows]

    def delete_owner_feedback(self, tenant: str, owner: str) -> int:
        return self._count("DELETE FROM feedback WHERE tenant = %s AND owner = %s", (tenant, owner))

    def feedback_stats(self, tenant: str, item_ids: Sequence[str]) -> dict[str, tuple[int, int]]:
        if not item_ids:
            return {}
        rows = self._rows("SELECT item_id, count(*) FILTER (WHERE useful), count(*) FROM (SELECT item_id, useful, owner, "
                          "row_number() OVER (PARTITION BY item_id, owner ORDER BY created_at DESC, id) AS nth "
                          "FROM feedback WHERE tenant = %s AND item_id = ANY(%s)) AS marks "
                          "WHERE nth = 1 OR owner = '' GROUP BY item_id", (tenant, list(item_ids)))
        return {i: (int(u), int(n)) for i, u, n in rows}
