"""The ``ConversationStore`` protocol: chat turns, signals, dossiers and audit traces, per tenant.

Kept apart from the item ``Store``: a conversation is not searchable content, and a backend joins by
implementing these few calls (``store/sqlite_chat.py``, ``store/pg_chat.py``); ``tests/store/test_chat_contract.py``
runs unchanged against both.

Semantics every backend honours:

* Every call takes the caller's ``tenant`` and ``owner`` (the key that started the conversation; ``''`` for
  callers without a key of their own: local mode, the CLI, MCP, and every operator key, which share the reserved
  scope). A conversation is keyed by ``(tenant, owner, id)``: another tenant's or another key's conversation
  reads exactly like one that does not exist (``None`` / ``False``), and a turn sent with its id starts the
  caller's own conversation, so an id can never be probed, read or overwritten across keys.
* ``append_turn`` is atomic: the conversation's state, the new turn, the trimming of turns beyond
  ``keep_turns`` and of the owner's conversations beyond ``keep_conversations`` (its least recently continued,
  with their turns) commit together or not at all. The bound is the owner's: no owner's turn drops another's.
* ``delete`` removes every trace: the conversation row and all its turns (dossiers and audit traces live in them).
* ``owners`` and ``delete_owner`` serve the operator's purge of conversations no key reaches any more
  (``assistant/purge.py``): they see every tenant and never a conversation's content.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..scope import ALL_TENANTS_SCOPE  # conversations that searched every tenant are kept under it
from ..settings import ChatSettings

__all__ = ["ALL_TENANTS_SCOPE", "KEEP_CONVERSATIONS", "OWNERS_SQL", "Conversation", "ConversationStore", "StoredTurn",
           "overflow_query", "turns_query"]

KEEP_CONVERSATIONS = ChatSettings().keep_conversations  # a bound even for a caller that passes none


@dataclass(frozen=True, slots=True)
class StoredTurn:
    """One exchange: what the user said and what the assistant answered, with the dossier and the audit trace."""

    seq: int
    user: str
    reply: str
    assistant: str
    dossier: Mapping[str, Any] = field(default_factory=dict)
    audit: Mapping[str, Any] = field(default_factory=dict)
    tools: tuple[Mapping[str, Any], ...] = ()  # the tool calls of the turn, in order
    created_at: dt.datetime | None = None


@dataclass(frozen=True, slots=True)
class Conversation:
    id: str
    tenant: str
    assistant: str  # the assistant now answering (a handoff changes it)
    state: Mapping[str, Any]  # signals, retrieval entities, asked questions, handoffs
    created_at: dt.datetime
    updated_at: dt.datetime


@runtime_checkable
class ConversationStore(Protocol):
    def load(self, tenant: str, conversation_id: str, *, owner: str = "") -> Conversation | None: ...

    def turns(self, tenant: str, conversation_id: str, limit: int | None = None, *,
              owner: str = "") -> list[StoredTurn]:
        """The stored turns, oldest first; with ``limit`` only the newest ``limit`` of them."""
        ...

    def append_turn(self, tenant: str, conversation_id: str, assistant: str, state: Mapping[str, Any],
                    turn: StoredTurn, keep_turns: int, *, owner: str = "",
                    keep_conversations: int = KEEP_CONVERSATIONS) -> Conversation:
        """Create the conversation if new, replace its state, add ``turn`` (its ``seq`` is assigned here), drop
        the oldest turns beyond ``keep_turns`` and this owner's least recently updated conversations beyond
        ``keep_conversations`` (never this one), all in one transaction."""
        ...

    def delete(self, tenant: str, conversation_id: str, *, owner: str = "") -> bool:
        """Remove the conversation and every turn; ``False`` when this owner has no such conversation."""
        ...

    def owners(self) -> list[tuple[str, str, int]]:
        """``(tenant, owner, conversations)`` for every owner holding a conversation or a stray turn."""
        ...

    def delete_owner(self, tenant: str, owner: str) -> int:
        """Remove every conversation (and turn) of ``owner`` in ``tenant``; how many conversations went."""
        ...

    def close(self) -> None: ...


# Stray turns (a row without its conversation) count too, so a purge leaves nothing of an owner behind.
OWNERS_SQL = ("SELECT tenant, owner, COUNT(DISTINCT id) FROM ("
              "SELECT tenant, owner, id FROM conversations UNION ALL "
              "SELECT tenant, owner, NULL FROM conversation_turns) AS held "
              "GROUP BY tenant, owner ORDER BY tenant, owner")


def overflow_query(mark: str, tenant: str, owner: str, conversation_id: str,
                   keep_conversations: int) -> tuple[str, tuple[Any, ...]]:
    """``(sql, params)`` selecting the ids of ``owner``'s conversations past its newest ``keep_conversations``
    (least recently updated first to go; ties by id), never ``conversation_id``, the one being written: both
    backends delete what it selects. The primary key ``(tenant, owner, id)`` bounds the scan to the owner's rows."""
    sql = ("SELECT id FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY updated_at DESC, id DESC) AS newness "
           f"FROM conversations WHERE tenant = {mark} AND owner = {mark} AND id <> {mark}) AS held "
           f"WHERE newness >= {mark}")  # SQLite has no OFFSET without LIMIT, Postgres no negative LIMIT
    return sql, (tenant, owner, conversation_id, max(1, int(keep_conversations)))


def turns_query(mark: str, tenant: str, owner: str, conversation_id: str,
                limit: int | None) -> tuple[str, tuple[Any, ...]]:
    """``(sql, params)`` reading a conversation's turns newest first (both backends; ``mark`` is the driver's
    placeholder, ``?`` or ``%s``). The caller reverses the rows to oldest first."""
    sql = ("SELECT seq, user_text, reply, assistant, dossier, audit, tools, created_at FROM conversation_turns "
           f"WHERE tenant = {mark} AND owner = {mark} AND conversation_id = {mark} ORDER BY seq DESC")
    params: tuple[Any, ...] = (tenant, owner, conversation_id)
    if limit is not None:
        sql += f" LIMIT {mark}"
        params += (max(0, int(limit)),)
    return sql, params
