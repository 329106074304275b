"""``ConversationStore`` on SQLite: two tables in the embedded store's own database file.

The tables are created here (``CREATE TABLE IF NOT EXISTS``), not in the item schema, so conversations add
nothing to the item store's schema version. A connection of its own: chat writes are tiny and must not wait
on the item store's lock; SQLite's WAL serialises the two writers, and ``timeout`` rides out an ingest commit.
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
from .chat_base import Conversation, StoredTurn, turns_query

__all__ = ["SQLiteConversationStore", "CHAT_DDL"]

CHAT_DDL = """
CREATE TABLE IF NOT EXISTS conversations (
    tenant TEXT NOT NULL,
    id TEXT NOT NULL,
    assistant TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (tenant, id)
);
CREATE TABLE IF NOT EXISTS conversation_turns (
    tenant TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    user_text TEXT NOT NULL,
    reply TEXT NOT NULL,
    assistant TEXT NOT NULL,
    dossier TEXT NOT NULL DEFAULT '{}',
    audit TEXT NOT NULL DEFAULT '{}',
    tools TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL,
    PRIMARY KEY (tenant, conversation_id, seq)
);
"""


def _now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def _dumps(value: Any) -> str:
    return json.dumps(value, default=str, separators=(",", ":"), sort_keys=True)


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
            conn.executescript(CHAT_DDL)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"the conversation tables in {db_path} cannot be opened: {exc}") from None
        return cls(conn)

    def close(self) -> None:
        self._conn.close()

    def load(self, tenant: str, conversation_id: str) -> Conversation | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT id, tenant, assistant, state, created_at, updated_at FROM conversations "
                "WHERE tenant = ? AND id = ?", (tenant, conversation_id)).fetchone()
        if row is None:
            return None
        return Conversation(id=row[0], tenant=row[1], assistant=row[2], state=json.loads(row[3]),
                            created_at=dt.datetime.fromisoformat(row[4]), updated_at=dt.datetime.fromisoformat(row[5]))

    def turns(self, tenant: str, conversation_id: str, limit: int | None = None) -> list[StoredTurn]:
        sql, params = turns_query("?", tenant, conversation_id, limit)
        with self._lock:
            rows = self._conn.execute(sql, params).fetchall()
        return [StoredTurn(seq=r[0], user=r[1], reply=r[2], assistant=r[3], dossier=json.loads(r[4]),
                           audit=json.loads(r[5]), tools=tuple(json.loads(r[6])),
                           created_at=dt.datetime.fromisoformat(r[7])) for r in reversed(rows)]

    def append_turn(self, tenant: str, conversation_id: str, assistant: str, state: Mapping[str, Any],
                    turn: StoredTurn, keep_turns: int) -> Conversation:
        now = _now().isoformat()
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.execute(
                    "INSERT INTO conversations(tenant, id, assistant, state, created_at, updated_at) "
                    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(tenant, id) DO UPDATE SET "
                    "assistant = excluded.assistant, state = excluded.state, updated_at = excluded.updated_at",
                    (tenant, conversation_id, assistant, _dumps(dict(state)), now, now))
                (last,) = self._conn.execute(
                    "SELECT COALESCE(MAX(seq), 0) FROM conversation_turns WHERE tenant = ? AND conversation_id = ?",
                    (tenant, conversation_id)).fetchone()
                seq = int(last) + 1
                self._conn.execute(
                    "INSERT INTO conversation_turns(tenant, conversation_id, seq, user_text, reply, assistant, "
                    "dossier, audit, tools, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (tenant, conversation_id, seq, turn.user, turn.reply, turn.assistant, _dumps(dict(turn.dossier)),
                     _dumps(dict(turn.audit)), _dumps(list(turn.tools)), now))
                self._conn.execute(
                    "DELETE FROM conversation_turns WHERE tenant = ? AND conversation_id = ? AND seq <= ?",
                    (tenant, conversation_id, seq - max(1, keep_turns)))
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
        conversation = self.load(tenant, conversation_id)
        assert conversation is not None
        return conversation

    def delete(self, tenant: str, conversation_id: str) -> bool:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.execute("DELETE FROM conversation_turns WHERE tenant = ? AND conversation_id = ?",
                                   (tenant, conversation_id))
                gone = self._conn.execute("DELETE FROM conversations WHERE tenant = ? AND id = ?",
                                          (tenant, conversation_id)).rowcount
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
        return gone > 0
