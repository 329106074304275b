"""Versioned, forward-only schema migrations for the Postgres store.

Migrations are the SQL files in ``store/migrations`` named ``NNNN_description.sql`` (shipped as package
data). Each applies in its own transaction together with its row in ``schema_version``, under a
transaction-level advisory lock, so several API workers starting at once apply each migration exactly once.
A database migrated by a *newer* groundsearch is refused (:class:`~groundsearch.errors.SchemaTooNew`)
rather than written with an older idea of the schema.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

import psycopg

from ..errors import SchemaTooNew, StoreError, StoreUnavailable
from .pg_connect import connect_once

__all__ = ["Migration", "apply_migrations", "check_schema", "known_migrations", "migrate"]

# Arbitrary constant shared by every groundsearch process: the advisory lock that serialises migrations.
_LOCK_KEY = 0x67726F756E64  # "ground"
_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")

_CREATE_VERSION_TABLE = """
CREATE TABLE IF NOT EXISTS schema_version (
    version    integer PRIMARY KEY,
    name       text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
)
"""

FIX_EXTENSION = "CREATE EXTENSION vector;"


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def known_migrations() -> list[Migration]:
    folder = resources.files("groundsearch.store") / "migrations"
    found = []
    for entry in folder.iterdir():
        match = _NAME.match(entry.name)
        if match:
            found.append(Migration(int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    found.sort(key=lambda m: m.version)
    versions = [m.version for m in found]
    if versions != list(range(1, len(found) + 1)):
        raise StoreError(f"migration files are not numbered 1..n without gaps: {versions}")
    return found


def latest_version() -> int:
    return known_migrations()[-1].version


def _applied(conn: psycopg.Connection) -> set[int]:
    exists = conn.execute("SELECT to_regclass('schema_version') IS NOT NULL").fetchone()
    if not exists or not exists[0]:
        return set()
    return {row[0] for row in conn.execute("SELECT version FROM schema_version")}


def _refuse_if_too_new(applied: set[int]) -> None:
    newest = max(applied, default=0)
    if newest > latest_version():
        raise SchemaTooNew(
            f"the database schema is at version {newest} but this groundsearch knows only up to "
            f"{latest_version()}; upgrade groundsearch (migrations are forward-only)",
            details={"database_version": newest, "code_version": latest_version()},
        )


def _ensure_vector_available(conn: psycopg.Connection) -> None:
    row = conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone()
    if row is None:
        raise StoreUnavailable(
            "the pgvector extension is not installed on this Postgres server; install pgvector "
            f"(most managed services ship it) and run: {FIX_EXTENSION}",
            details={"fix": FIX_EXTENSION},
        )


def apply_migrations(dsn: str) -> list[str]:
    """Apply every known migration the database lacks; returns the names applied (empty when current)."""
    applied_now: list[str] = []
    with connect_once(dsn) as conn:
        for migration in known_migrations():
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
                conn.execute(_CREATE_VERSION_TABLE)
                done = _applied(conn)
                _refuse_if_too_new(done)
                if migration.version in done:
                    continue
                if migration.version == 1:
                    _ensure_vector_available(conn)
                try:
                    conn.execute(migration.sql.encode("utf-8"))
                except psycopg.errors.InsufficientPrivilege as exc:
                    raise StoreUnavailable(
                        f"not allowed to apply migration {migration.name} ({exc.diag.message_primary}); "
                        f"ask an administrator to run: {FIX_EXTENSION} and grant CREATE on the schema",
                        details={"fix": FIX_EXTENSION},
                    ) from exc
                conn.execute(
                    "INSERT INTO schema_version (version, name) VALUES (%s, %s)", (migration.version, migration.name)
                )
                applied_now.append(migration.name)
    return applied_now


def migrate(dsn: str) -> list[str]:
    """``groundsearch migrate``: bring the database at ``dsn`` to the newest schema; names applied."""
    return apply_migrations(dsn)


def check_schema(conn: psycopg.Connection) -> None:
    """Refuse a schema newer than the code; demand migration when older; demand the vector extension."""
    applied = _applied(conn)
    _refuse_if_too_new(applied)
    if max(applied, default=0) < latest_version():
        raise StoreError(
            f"the database schema is at version {max(applied, default=0)}, this groundsearch needs "
            f"{latest_version()}: run `groundsearch migrate`",
            details={"database_version": max(applied, default=0), "code_version": latest_version()},
        )
    if conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone() is None:
        raise StoreUnavailable(
            f"the pgvector extension is not enabled in this database; run: {FIX_EXTENSION}",
            details={"fix": FIX_EXTENSION},
        )
