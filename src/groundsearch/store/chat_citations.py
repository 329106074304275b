"""The per-turn index of the items a stored conversation turn cites, and the scrub an item delete runs with it.

A turn stores its dossier (each source's passage), its reply, its audit trace and its tool calls. Reading a
conversation redacts what its reader may no longer see (``assistant/withdrawn.py``), but a delete must also erase
what the rows themselves hold — backups, replicas and an operator's ``SELECT`` read them past the API. Both
backends keep ``conversation_citations (item_id, tenant, owner, conversation_id, seq)``:

* the database indexes each turn as it is inserted (a trigger: ``SQLITE_CITE_TRIGGER``, Postgres migration 0011),
  whoever inserts it — an older groundsearch still writing during an upgrade too; ``append_turn`` first checks the
  cited items are still there and writes the turn once, already redacted for those that are not (a turn whose
  dossier was made just before a delete committed, so a delete racing a turn leaves no copy either; on Postgres
  the check takes ``FOR KEY SHARE`` on the items, which the delete's ``FOR UPDATE`` waits for or is waited for by);
* a store's ``delete`` finds the turns citing the deleted items through the index and rewrites them with
  :func:`redact_for_delete` (``assistant/withdrawn.redact_turn``: the source keeps its number, marked withdrawn;
  the sentences citing only it become the visible marker) **in the delete's own transaction**: a crash leaves
  the item and its quotes both, never one without the other;
* a turn's index rows go with the turn (a trigger on SQLite, ``ON DELETE CASCADE`` on Postgres);
* the index of turns stored before it existed is built from them: Postgres migrations 0010 (every turn) and
  0011 (turns an older worker stored without rows since), and :func:`sqlite_ensure` on SQLite (when the
  conversation store opens, and inside a delete that finds the index or its trigger missing).

Only deletes erase. A draft or another tenant's item is still stored and readable by some callers, so those stay
redacted when read.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..assistant.redaction import redact_turn, source_item_id
from .chat_base import StoredTurn

__all__ = ["SQLITE_CITE_TRIGGER", "cited_item_ids", "pg_gone", "pg_scrub", "redact_for_delete", "source_item_id",
           "sqlite_ensure", "sqlite_gone", "sqlite_scrub"]

_BATCH = 500  # ids per statement: under both drivers' bound-parameter limits (store/legacy_ids.py)

SQLITE_DDL = (
    "CREATE TABLE IF NOT EXISTS conversation_citations (item_id TEXT NOT NULL, tenant TEXT NOT NULL, "
    "owner TEXT NOT NULL, conversation_id TEXT NOT NULL, seq INTEGER NOT NULL, "
    "PRIMARY KEY (item_id, tenant, owner, conversation_id, seq)) WITHOUT ROWID",
    "CREATE INDEX IF NOT EXISTS conversation_citations_turn ON conversation_citations "
    "(tenant, owner, conversation_id, seq)",
    "CREATE TRIGGER IF NOT EXISTS conversation_turns_uncite AFTER DELETE ON conversation_turns BEGIN "
    "DELETE FROM conversation_citations WHERE tenant = old.tenant AND owner = old.owner "
    "AND conversation_id = old.conversation_id AND seq = old.seq; END",
)
_TURN_COLS = "t.tenant, t.owner, t.conversation_id, t.seq, t.user_text, t.reply, t.assistant, t.dossier, t.audit, t.tools"
_JOIN = ("conversation_citations c JOIN conversation_turns t ON t.tenant = c.tenant AND t.owner = c.owner "
         "AND t.conversation_id = c.conversation_id AND t.seq = c.seq")


def dumps(value: Any) -> str:
    """The JSON text SQLite's conversation rows hold."""
    return json.dumps(value, default=str, separators=(",", ":"), sort_keys=True)


def cited_item_ids(dossier: Mapping[str, Any]) -> list[str]:
    """The distinct item ids ``dossier``'s sources quote, in order (a source erased already quotes nothing). Pure."""
    sources = dossier.get("sources") if isinstance(dossier, Mapping) else None
    ids = (source_item_id(s) for s in sources or () if isinstance(s, Mapping) and s.get("withdrawn") is not True)
    return [i for i in dict.fromkeys(ids) if i]


def redact_for_delete(reply: str, dossier: Mapping[str, Any], audit: Mapping[str, Any],
                      tools: Sequence[Mapping[str, Any]], item_ids: Iterable[str],
                      current: Mapping[str, Sequence[str]] | None = None) -> tuple[str, Any, Any, list[Any]]:
    """``(reply, dossier, audit, tools)`` of one stored turn with what it quoted of ``item_ids`` erased — the same
    redaction a reader gets (``assistant/withdrawn.redact_turn``) — and of ``current``'s items (just rewritten:
    id → the new version's chunk texts) the passages the new version no longer holds. Pure."""
    turn = StoredTurn(seq=0, user="", reply=reply, assistant="", dossier=dossier, audit=audit, tools=tuple(tools))
    done = redact_turn(turn, frozenset(item_ids), current)
    return done.reply, dict(done.dossier), dict(done.audit), list(done.tools)


def _batches(ids: Sequence[str]) -> Iterable[Sequence[str]]:
    for start in range(0, len(ids), _BATCH):
        yield ids[start:start + _BATCH]


# ---- SQLite (one database file holds the items and the conversations) ---------------------------------------


def _sqlite_has(conn: sqlite3.Connection, name: str, kind: str = "table") -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = ? AND name = ?", (kind, name)).fetchone() is not None


# cited_item_ids in SQL, over each source ``s`` of a dossier: the item_id, else the chunk id up to its last '#'
# (rtrim by the id's own characters other than '#' leaves it up to and with that '#'); a source marked withdrawn
# or not an object cites nothing. Tagged 'i' or 'c' so the outer query knows whether a final '#' is to go.
_SOURCES = ("json_each(CASE WHEN json_valid(DOSSIER) THEN CASE WHEN json_type(DOSSIER, '$.sources') = 'array' "
            "THEN DOSSIER ELSE '{}' END ELSE '{}' END, '$.sources') AS s")
_ITEM, _CHUNK = "CAST(json_extract(s.value, '$.item_id') AS TEXT)", "CAST(json_extract(s.value, '$.id') AS TEXT)"
_TAGGED = (f"CASE WHEN s.type <> 'object' THEN '' WHEN json_type(s.value, '$.withdrawn') = 'true' THEN '' "
           f"WHEN COALESCE({_ITEM}, '') <> '' THEN 'i' || {_ITEM} "
           f"WHEN instr({_CHUNK}, '#') > 0 THEN 'c' || rtrim({_CHUNK}, replace({_CHUNK}, '#', '')) ELSE '' END")


def _sqlite_index_sql(turn: str, source_from: str, where: str = "") -> str:
    """INSERT the cited item ids of each turn the FROM clause yields (``turn``: its alias, or ``new``)."""
    cols = ", ".join(f"{turn}.{c} AS {c}" for c in ("tenant", "owner", "conversation_id", "seq"))
    return ("INSERT OR IGNORE INTO conversation_citations (item_id, tenant, owner, conversation_id, seq) "
            "SELECT cited, tenant, owner, conversation_id, seq FROM (SELECT CASE substr(tagged, 1, 1) "
            "WHEN 'i' THEN substr(tagged, 2) ELSE substr(tagged, 2, length(tagged) - 2) END AS cited, tenant, owner, "
            f"conversation_id, seq FROM (SELECT {_TAGGED} AS tagged, {cols} FROM {source_from}{where})) "
            "WHERE cited <> ''")


# The database indexes every turn inserted, whoever inserts it: an older groundsearch sharing the file (a CLI
# or a server not yet upgraded) writes turns without index rows, and a delete then found nothing to erase there.
SQLITE_CITE_TRIGGER = ("CREATE TRIGGER IF NOT EXISTS conversation_turns_cite AFTER INSERT ON conversation_turns "
                       f"BEGIN {_sqlite_index_sql('new', _SOURCES.replace('DOSSIER', 'new.dossier'))}; END")
_SQLITE_CATCH_UP = _sqlite_index_sql(
    "t", "conversation_turns t, " + _SOURCES.replace("DOSSIER", "t.dossier"),
    " WHERE NOT EXISTS (SELECT 1 FROM conversation_citations x WHERE x.tenant = t.tenant AND x.owner = t.owner "
    "AND x.conversation_id = t.conversation_id AND x.seq = t.seq)")


def sqlite_ensure(conn: sqlite3.Connection) -> None:
    """Create the index, the trigger dropping a deleted turn's rows and the one indexing each inserted turn, if
    missing, and index the stored turns that have no rows (all of them when the index is new; those an older
    version wrote since, when only the indexing trigger is new). Runs inside the caller's write transaction; two
    catalogue lookups once everything exists."""
    if not _sqlite_has(conn, "conversation_turns"):
        return
    if _sqlite_has(conn, "conversation_turns_cite", "trigger") and _sqlite_has(conn, "conversation_citations"):
        return
    for statement in (*SQLITE_DDL, SQLITE_CITE_TRIGGER):
        conn.execute(statement)
    conn.execute(_SQLITE_CATCH_UP)


def sqlite_gone(conn: sqlite3.Connection, dossier: Mapping[str, Any]) -> frozenset[str]:
    """The items ``dossier`` cites that are no longer stored (``append_turn`` writes the turn with them redacted,
    inside its transaction; the trigger indexes what it writes). Without an items table (a conversation store
    alone, as in the contract suite) every cited item counts as stored."""
    ids = cited_item_ids(dossier)
    if not ids or not _sqlite_has(conn, "items"):
        return frozenset()
    stored: set[str] = set()
    for batch in _batches(ids):
        stored |= {r[0] for r in conn.execute(
            f"SELECT id FROM items WHERE id IN ({','.join('?' * len(batch))})", tuple(batch))}
    return frozenset(ids) - stored


def _by_turn(rows: Iterable[Sequence[Any]], item_id: Callable[[Any], str]
             ) -> tuple[dict[tuple[Any, ...], tuple[Any, ...]], dict[tuple[Any, ...], set[str]]]:
    """The scrub query's rows (``c.item_id, {_TURN_COLS}``, a row per citation) as each turn's columns and the ids
    it cites, by turn key (tenant, owner, conversation id, seq); ``item_id`` decodes an id as stored. Pure."""
    found: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    cites: dict[tuple[Any, ...], set[str]] = {}
    for row in rows:
        key = tuple(row[1:5])
        found[key] = tuple(row[1:])
        cites.setdefault(key, set()).add(item_id(row[0]))
    return found, cites


def _rewrite(found: Mapping[tuple[Any, ...], tuple[Any, ...]], cites: Mapping[tuple[Any, ...], set[str]],
             deleted: set[str], rewritten: Mapping[str, Sequence[str]], load: Any) -> list[tuple[Any, ...]]:
    """``(key, reply, dossier, audit, tools)`` for each found turn the erasure changes. Pure."""
    out = []
    for key, row in found.items():
        dossier = load(row[7])
        reply, new, audit, tools = redact_for_delete(
            row[5], dossier, load(row[8]), load(row[9]), cites[key] & deleted,
            {i: rewritten[i] for i in cites[key] if i in rewritten})
        if new != dossier or reply != row[5]:
            out.append((key, reply, new, audit, tools))
    return out


def sqlite_scrub(conn: sqlite3.Connection, deleted: Sequence[str] = (),
                 rewritten: Mapping[str, Sequence[str]] | None = None) -> int:
    """Erase what the turns citing ``deleted`` items quoted of them, and the passages ``rewritten`` items (id → the
    new version's chunk texts) no longer hold, inside the caller's (the write's) transaction; how many turns were
    rewritten."""
    new = dict(rewritten or {})
    ids = list(dict.fromkeys([*deleted, *new]))
    if not ids or not _sqlite_has(conn, "conversation_turns"):
        return 0
    sqlite_ensure(conn)
    rows = [row for batch in _batches(ids) for row in conn.execute(
        f"SELECT c.item_id, {_TURN_COLS} FROM {_JOIN} WHERE c.item_id IN ({','.join('?' * len(batch))})",
        tuple(batch))]
    found, cites = _by_turn(rows, str)
    changed = _rewrite(found, cites, set(deleted), new, json.loads)
    for key, reply, dossier, audit, tools in changed:
        conn.execute("UPDATE conversation_turns SET reply = ?, dossier = ?, audit = ?, tools = ? WHERE tenant = ? "
                     "AND owner = ? AND conversation_id = ? AND seq = ?",
                     (reply, dumps(dossier), dumps(audit), dumps(tools), *key))
        conn.execute("DELETE FROM conversation_citations WHERE tenant = ? AND owner = ? AND conversation_id = ? "
                     "AND seq = ?", key)
        conn.executemany("INSERT INTO conversation_citations (item_id, tenant, owner, conversation_id, seq) "
                         "VALUES (?, ?, ?, ?, ?)", [(i, *key) for i in cited_item_ids(dossier)])
    for batch in _batches(list(dict.fromkeys(deleted))):  # a deleted item is cited by no turn any more
        conn.execute(f"DELETE FROM conversation_citations WHERE item_id IN ({','.join('?' * len(batch))})",
                     tuple(batch))
    return len(changed)


# ---- Postgres (the items and the conversations are tables of one database) ----------------------------------


def pg_gone(conn: Any, dossier: Mapping[str, Any]) -> frozenset[str]:
    """:func:`sqlite_gone` on Postgres (migration 0011's trigger indexes the turn). The check takes ``FOR KEY
    SHARE`` on the items, so a concurrent delete of one of them either commits first (the item is missing here)
    or waits for this turn (and then finds its index rows)."""
    from .pg_codec import encode_text as enc

    ids = cited_item_ids(dossier)
    if not ids:
        return frozenset()
    stored = {r[0] for r in conn.execute("SELECT id FROM items WHERE id = ANY(%s) ORDER BY id FOR KEY SHARE",
                                         ([enc(i) for i in ids],)).fetchall()}
    return frozenset(i for i in ids if enc(i) not in stored)


def pg_scrub(cur: Any, deleted: Sequence[str] = (), rewritten: Mapping[str, Sequence[str]] | None = None) -> int:
    """:func:`sqlite_scrub` on Postgres, on the write's cursor (its transaction); ids as stored
    (``pg_codec.encode_text``)."""
    from psycopg.types.json import Jsonb

    from .pg_codec import decode_text as dec
    from .pg_codec import encode_text as enc

    new = dict(rewritten or {})  # the callers' ids
    ids = sorted({*deleted, *(enc(k) for k in new)})
    if not ids:
        return 0
    rows = cur.execute(f"SELECT c.item_id, {_TURN_COLS} FROM {_JOIN} WHERE c.item_id = ANY(%s) "
                       "ORDER BY t.tenant, t.owner, t.conversation_id, t.seq FOR UPDATE OF t", (ids,)).fetchall()
    found, cites = _by_turn(rows, dec)
    changed = _rewrite(found, cites, {dec(i) for i in deleted}, new, lambda v: v)
    for key, reply, dossier, audit, tools in changed:
        cur.execute("UPDATE conversation_turns SET reply = %s, dossier = %s, audit = %s, tools = %s WHERE tenant = %s "
                    "AND owner = %s AND conversation_id = %s AND seq = %s",
                    (reply, Jsonb(dossier), Jsonb(audit), Jsonb(tools), *key))
        cur.execute("DELETE FROM conversation_citations WHERE tenant = %s AND owner = %s AND conversation_id = %s "
                    "AND seq = %s", key)
        cur.executemany("INSERT INTO conversation_citations (item_id, tenant, owner, conversation_id, seq) "
                        "VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                        [(enc(i), *key) for i in cited_item_ids(dossier)])
    if deleted:  # a deleted item is cited by no turn any more
        cur.execute("DELETE FROM conversation_citations WHERE item_id = ANY(%s)", (sorted(set(deleted)),))
    return len(changed)
