"""``ConversationStore`` on Postgres: the tables of migrations 0003 and 0006, on a small pool of its own.

The item store applies the migrations when it opens; this class checks nothing but the tables it uses. Every
statement is keyed by ``(tenant, owner, id)``, and turns go with their conversation through ``ON DELETE CASCADE``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, TypeVar

import psycopg
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool, PoolTimeout

from ..assistant.redaction import redact_turn
from .chat_citations import pg_gone
from .chat_base import KEEP_CONVERSATIONS, OWNERS_SQL, Conversation, StoredTurn, overflow_query, turns_query
from .pg_connect import in_transaction, unavailable

__all__ = ["PgConversationStore"]

T = TypeVar("T")


class PgConversationStore:
    def __init__(self, dsn: str, pool: ConnectionPool) -> None:
        self._dsn = dsn
        self._pool = pool

    @classmethod
    def open(cls, dsn: str, *, pool_size: int = 2) -> PgConversationStore:
        pool = ConnectionPool(dsn, min_size=1, max_size=max(1, pool_size), open=False)
        try:
            pool.open(wait=True, timeout=15)
        except PoolTimeout as exc:
            pool.close()
            raise unavailable(dsn, exc) from exc
        return cls(dsn, pool)

    def close(self) -> None:
        self._pool.close()

    def _run(self, work: Callable[[psycopg.Connection], T]) -> T:
        return in_transaction(self._pool, self._dsn, work)

    def load(self, tenant: str, conversation_id: str, *, owner: str = "") -> Conversation | None:
        row = self._run(lambda conn: conn.execute(
            "SELECT id, tenant, assistant, state, created_at, updated_at FROM conversations "
            "WHERE tenant = %s AND owner = %s AND id = %s", (tenant, owner, conversation_id)).fetchone())
        if row is None:
            return None
        return Conversation(id=row[0], tenant=row[1], assistant=row[2], state=row[3], created_at=row[4],
                            updated_at=row[5])

    def turns(self, tenant: str, conversation_id: str, limit: int | None = None, *,
              owner: str = "") -> list[StoredTurn]:
        sql, params = turns_query("%s", tenant, owner, conversation_id, limit)
        rows = self._run(lambda conn: conn.execute(sql, params).fetchall())
        return [StoredTurn(seq=r[0], user=r[1], reply=r[2], assistant=r[3], dossier=r[4], audit=r[5],
                           tools=tuple(r[6]), created_at=r[7]) for r in reversed(rows)]

    def append_turn(self, tenant: str, conversation_id: str, assistant: str, state: Mapping[str, Any],
                    turn: StoredTurn, keep_turns: int, *, owner: str = "",
                    keep_conversations: int = KEEP_CONVERSATIONS) -> Conversation:
        key = (tenant, owner, conversation_id)
        overflow, overflow_params = overflow_query("%s", tenant, owner, conversation_id, keep_conversations)

        def work(conn: psycopg.Connection) -> None:
            conn.execute(
                "INSERT INTO conversations (tenant, owner, id, assistant, state) VALUES (%s, %s, %s, %s, %s) "
                "ON CONFLICT (tenant, owner, id) DO UPDATE SET assistant = excluded.assistant, "
                "state = excluded.state, updated_at = now()", (*key, assistant, Jsonb(dict(state))))
            # The conversation row is locked by the upsert above, so concurrent turns of one conversation
            # take their sequence numbers one after the other.
            (last,) = conn.execute(
                "SELECT COALESCE(MAX(seq), 0) FROM conversation_turns "
                "WHERE tenant = %s AND owner = %s AND conversation_id = %s", key).fetchone()
            seq = int(last) + 1
            # A source deleted while this turn was answered: the turn is written as the delete would leave it
            # (migration 0011's trigger indexes what is written). The items are locked after the conversation
            # row, before the turn, as before: a delete locks items, then the turns citing them.
            plain = replace(turn, dossier=_plain(turn.dossier), audit=_plain(turn.audit),
                            tools=_plain(list(turn.tools)))
            written = redact_turn(plain, pg_gone(conn, plain.dossier))
            conn.execute(
                "INSERT INTO conversation_turns (tenant, owner, conversation_id, seq, user_text, reply, assistant, "
                "dossier, audit, tools) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (*key, seq, written.user, written.reply, written.assistant,
                 Jsonb(dict(written.dossier)), Jsonb(dict(written.audit)), Jsonb(list(written.tools))))
            conn.execute("DELETE FROM conversation_turns WHERE tenant = %s AND owner = %s AND conversation_id = %s "
                         "AND seq <= %s", (*key, seq - max(1, keep_turns)))
            # their turns go with them (ON DELETE CASCADE)
            conn.execute(f"DELETE FROM conversations WHERE tenant = %s AND owner = %s AND id IN ({overflow})",
                         (tenant, owner, *overflow_params))

        self._run(work)
        conversation = self.load(tenant, conversation_id, owner=owner)
        assert conversation is not None
        return conversation

    def delete(self, tenant: str, conversation_id: str, *, owner: str = "") -> bool:
        return bool(self._run(lambda conn: conn.execute(
            "DELETE FROM conversations WHERE tenant = %s AND owner = %s AND id = %s",
            (tenant, owner, conversation_id)).rowcount))

    def owners(self) -> list[tuple[str, str, int]]:
        rows = self._run(lambda conn: conn.execute(OWNERS_SQL).fetchall())
        return [(r[0], r[1], int(r[2])) for r in rows]

    def delete_owner(self, tenant: str, owner: str) -> int:
        def work(conn: psycopg.Connection) -> int:
            conn.execute("DELETE FROM conversation_turns WHERE tenant = %s AND owner = %s", (tenant, owner))
            return int(conn.execute("DELETE FROM conversations WHERE tenant = %s AND owner = %s",
                                    (tenant, owner)).rowcount)

        return self._run(work)


def _plain(value: Any) -> Any:
    """JSON-safe copy (dates and other values as text), the form SQLite stores too."""
    import json

    return json.loads(json.dumps(value, default=str))
