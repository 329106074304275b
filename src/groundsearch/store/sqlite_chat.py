"""``ConversationStore`` on SQLite: two tables in the embedded store's own database file.

The tables are created here (``CREATE TABLE IF NOT EXISTS``), not in the item schema, so conversations add
nothing to the item store's schema version. A connection of its own: chat writes are tiny and must not wait
on the item store's lock; SQLite's WAL serialises the two writers, and ``timeout`` rides out an ingest commit.

Tables from before owners (keyed ``(tenant, id)``) are rebuilt at open by :func:`_add_owners` (see there).
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import StoreError
from .chat_citations import dumps as _dumps
from ..assistant.redaction import redact_turn
from .chat_citations import sqlite_ensure, sqlite_gone
from .chat_base import (
    ALL_TENANTS_SCOPE, KEEP_CONVERSATIONS, OWNERS_SQL, Conversation, StoredTurn, overflow_query, turns_query,
)

__all__ = ["SQLiteConversationStore", "CHAT_DDL"]

CHAT_DDL = """
CREATE TABLE IF NOT EXISTS conversations (
    tenant TEXT NOT NULL,
    owner TEXT NOT NULL DEFAULT '',
    id TEXT NOT NULL,
    assistant TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (tenant, owner, id)
);
CREATE TABLE IF NOT EXISTS conversation_turns (
    tenant TEXT NOT NULL,
    owner TEXT NOT NULL DEFAULT '',
    conversation_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    user_text TEXT NOT NULL,
    reply TEXT NOT NULL,
    assistant TEXT NOT NULL,
    dossier TEXT NOT NULL DEFAULT '{}',
    audit TEXT NOT NULL DEFAULT '{}',
    tools TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL,
    PRIMARY KEY (tenant, owner, conversation_id, seq)
);
"""


def _now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


class SQLiteConversationStore:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._lock = threading.Lock()

    @classmethod
    def open(cls, db_path: Path) -> SQLiteConversationStore:
        db_path.parent.mkdir(parents=True, exist_ok=True)
        try:
            conn = sqlite3.connect(str(db_path), isolation_level=None, check_same_thread=False, timeout=30.0)
            conn.execute("PRAGMA journal_mode=WAL")
            _add_owners(conn)
            conn.executescript(CHAT_DDL)
            _add_citations(conn)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"the conversation tables in {db_path} cannot be opened: {exc}") from None
        return cls(conn)

    def close(self) -> None:
        self._conn.close()

    def load(self, tenant: str, conversation_id: str, *, owner: str = "") -> Conversation | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT id, tenant, assistant, state, created_at, updated_at FROM conversations "
                "WHERE tenant = ? AND owner = ? AND id = ?", (tenant, owner, conversation_id)).fetchone()
        if row is None:
            return None
        return Conversation(id=row[0], tenant=row[1], assistant=row[2], state=json.loads(row[3]),
                            created_at=dt.datetime.fromisoformat(row[4]), updated_at=dt.datetime.fromisoformat(row[5]))

    def turns(self, tenant: str, conversation_id: str, limit: int | None = None, *,
              owner: str = "") -> list[StoredTurn]:
        sql, params = turns_query("?", tenant, owner, conversation_id, limit)
        with self._lock:
            rows = self._conn.execute(sql, params).fetchall()
        return [StoredTurn(seq=r[0], user=r[1], reply=r[2], assistant=r[3], dossier=json.loads(r[4]),
                           audit=json.loads(r[5]), tools=tuple(json.loads(r[6])),
                           created_at=dt.datetime.fromisoformat(r[7])) for r in reversed(rows)]

    def append_turn(self, tenant: str, conversation_id: str, assistant: str, state: Mapping[str, Any],
                    turn: StoredTurn, keep_turns: int, *, owner: str = "",
                    keep_conversations: int = KEEP_CONVERSATIONS) -> Conversation:
        now = _now().isoformat()
        key = (tenant, owner, conversation_id)
        overflow, overflow_params = overflow_query("?", tenant, owner, conversation_id, keep_conversations)
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.execute(
                    "INSERT INTO conversations(tenant, owner, id, assistant, state, created_at, updated_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(tenant, owner, id) DO UPDATE SET "
                    "assistant = excluded.assistant, state = excluded.state, updated_at = excluded.updated_at",
                    (*key, assistant, _dumps(dict(state)), now, now))
                (last,) = self._conn.execute(
                    "SELECT COALESCE(MAX(seq), 0) FROM conversation_turns "
                    "WHERE tenant = ? AND owner = ? AND conversation_id = ?", key).fetchone()
                seq = int(last) + 1
                # a source deleted while this turn was answered: the turn is written as the delete would leave it
                # (the trigger of store/chat_citations.py indexes what is written)
                turn = redact_turn(turn, sqlite_gone(self._conn, turn.dossier))
                self._conn.execute(
                    "INSERT INTO conversation_turns(tenant, owner, conversation_id, seq, user_text, reply, assistant, "
                    "dossier, audit, tools, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (*key, seq, turn.user, turn.reply, turn.assistant, _dumps(dict(turn.dossier)),
                     _dumps(dict(turn.audit)), _dumps(list(turn.tools)), now))
                self._conn.execute(
                    "DELETE FROM conversation_turns WHERE tenant = ? AND owner = ? AND conversation_id = ? "
                    "AND seq <= ?",
                    (*key, seq - max(1, keep_turns)))
                # no foreign key between the tables here: the dropped conversations' turns go first
                self._conn.execute("DELETE FROM conversation_turns WHERE tenant = ? AND owner = ? AND "
                                   f"conversation_id IN ({overflow})", (tenant, owner, *overflow_params))
                self._conn.execute(f"DELETE FROM conversations WHERE tenant = ? AND owner = ? AND id IN ({overflow})",
                                   (tenant, owner, *overflow_params))
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
        conversation = self.load(tenant, conversation_id, owner=owner)
        assert conversation is not None
        return conversation

    def delete(self, tenant: str, conversation_id: str, *, owner: str = "") -> bool:
        key = (tenant, owner, conversation_id)
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.execute("DELETE FROM conversation_turns WHERE tenant = ? AND owner = ? AND "
                                   "conversation_id = ?", key)
                gone = self._conn.execute("DELETE FROM conversations WHERE tenant = ? AND owner = ? AND id = ?",
                                          key).rowcount
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
        return gone > 0

    def owners(self) -> list[tuple[str, str, int]]:
        with self._lock:
            return [(r[0], r[1], int(r[2])) for r in self._conn.execute(OWNERS_SQL).fetchall()]

    def delete_owner(self, tenant: str, owner: str) -> int:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.execute("DELETE FROM conversation_turns WHERE tenant = ? AND owner = ?", (tenant, owner))
                gone = self._conn.execute("DELETE FROM conversations WHERE tenant = ? AND owner = ?",
                                          (tenant, owner)).rowcount
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
        return gone


def _add_citations(conn: sqlite3.Connection) -> None:
    """Create and build the index of cited items (``store/chat_citations.py``) once, under the write lock."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        sqlite_ensure(conn)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


# A row of the old layout under ``''`` may be a local-mode conversation from before the reserved scope existed,
# holding every tenant's text: it moves to that scope (unless the scope already has the id, in which case it
# stays under ``''`` with owner ``''``, which no caller of the default tenant is). Old rows of other tenants get
# owner ``''`` too: their author is unknown, so no key reaches them (only callers of the reserved scope use ``''``).
_MOVE = (f"CASE WHEN tenant = '' AND {{id}} NOT IN (SELECT id FROM conversations_v0 "
         f"WHERE tenant = '{ALL_TENANTS_SCOPE}') THEN '{ALL_TENANTS_SCOPE}' ELSE tenant END")
_MIGRATE = f"""
ALTER TABLE conversations RENAME TO conversations_v0;
ALTER TABLE conversation_turns RENAME TO conversation_turns_v0;
{CHAT_DDL}
INSERT INTO conversations (tenant, owner, id, assistant, state, created_at, updated_at)
    SELECT {_MOVE.format(id="id")}, '', id, assistant, state, created_at, updated_at FROM conversations_v0;
INSERT INTO conversation_turns (tenant, owner, conversation_id, seq, user_text, reply, assistant, dossier, audit,
                                tools, created_at)
    SELECT {_MOVE.format(id="conversation_id")}, '', conversation_id, seq, user_text, reply, assistant, dossier,
           audit, tools, created_at FROM conversation_turns_v0;
DROP TABLE conversation_turns_v0;
DROP TABLE conversations_v0;
"""


def _columns(conn: sqlite3.Connection) -> set[str]:
    return {row[1] for row in conn.execute("PRAGMA table_info(conversations)")}


def _add_owners(conn: sqlite3.Connection) -> None:
    """Rebuild conversation tables of the layout before owners, once, under the write lock (another process
    opening at the same moment finds the work done when it gets the lock)."""
    if not _columns(conn) or "owner" in _columns(conn):
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        if "owner" not in _columns(conn):
            for statement in _MIGRATE.split(";"):
                if statement.strip():
                    conn.execute(statement)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
