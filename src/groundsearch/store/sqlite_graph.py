"""Entity mentions and co-occurrence edges in the embedded store (the graph leg's data).

``entity_pairs`` is a maintained aggregate: ``weight`` is the number of chunks in which both entities
occur and ``last_seen`` the latest date of an item containing such a chunk. Writes adjust it
incrementally (``+1``/``-1`` per chunk) inside the caller's transaction, so the counts are exact at every
commit; ``last_seen`` is recomputed from ``mentions`` only when the removed item carried the maximum.

Reads use the aggregate when the filter cannot exclude anything, or excludes no item of a chunk mentioning a
seed (checked per read on those mentions alone), and otherwise aggregate ``mentions``
joined with the filtered items, so a filtered graph never leaks edges from drafts or other tenants.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import combinations

from ..types import EntityEdge, SearchFilter
from .sqlite_schema import date_from_ordinal, filter_is_everything, item_filter_sql

__all__ = ["add_mentions", "entity_chunks", "entity_edges", "remove_item_mentions", "top_terms"]


def chunk_pairs(entities: Iterable[str]) -> list[tuple[str, str]]:
    """Unordered entity pairs of one chunk, each as ``(smaller, larger)``; duplicates collapse."""
    return list(combinations(sorted(set(entities)), 2))


def add_mentions(
    conn: sqlite3.Connection, chunk_key: int, item_rowid: int, entities: Sequence[str], date_ord: int | None
) -> None:
    names = sorted({e for e in entities if e})
    if not names:
        return
    conn.executemany(
        "INSERT INTO mentions(chunk_key, item_rowid, entity) VALUES (?, ?, ?)",
        [(chunk_key, item_rowid, e) for e in names],
    )
    conn.executemany(
        "INSERT INTO entity_pairs(a, b, weight, last_seen) VALUES (?, ?, 1, ?) "
        "ON CONFLICT(a, b) DO UPDATE SET weight = weight + 1, "
        "last_seen = max(coalesce(last_seen, excluded.last_seen), coalesce(excluded.last_seen, last_seen))",
        [(a, b, date_ord) for a, b in chunk_pairs(names)],
    )


def remove_item_mentions(conn: sqlite3.Connection, item_rowid: int, date_ord: int | None) -> None:
    """Delete an item's mentions and take its chunks out of every pair weight (same transaction)."""
    by_chunk: dict[int, list[str]] = {}
    for key, entity in conn.execute("SELECT chunk_key, entity FROM mentions WHERE item_rowid = ?", (item_rowid,)):
        by_chunk.setdefault(key, []).append(entity)
    pairs: Counter[tuple[str, str]] = Counter()
    for names in by_chunk.values():
        pairs.update(chunk_pairs(names))
    conn.execute("DELETE FROM mentions WHERE item_rowid = ?", (item_rowid,))
    if not pairs:
        return
    conn.executemany(
        "UPDATE entity_pairs SET weight = weight - ? WHERE a = ? AND b = ?", [(n, a, b) for (a, b), n in pairs.items()]
    )
    conn.executemany("DELETE FROM entity_pairs WHERE a = ? AND b = ? AND weight <= 0", list(pairs))
    if date_ord is None:
        return
    for a, b in pairs:
        row = conn.execute("SELECT last_seen FROM entity_pairs WHERE a = ? AND b = ?", (a, b)).fetchone()
        if row is None or row[0] != date_ord:
            continue
        (latest,) = conn.execute(
            "SELECT max(i.date_ord) FROM mentions m1 JOIN mentions m2 ON m2.chunk_key = m1.chunk_key AND m2.entity = ? "
            "JOIN items i ON i.rowid = m1.item_rowid WHERE m1.entity = ?",
            (b, a),
        ).fetchone()
        conn.execute("UPDATE entity_pairs SET last_seen = ? WHERE a = ? AND b = ?", (latest, a, b))


def _admits_every_mention(conn: sqlite3.Connection, seeds: str, f: SearchFilter) -> bool:
    """Whether ``f`` admits the item of every chunk that mentions a seed. Then the maintained aggregate holds
    exactly the edges the filtered join would count (an edge of a seed is counted over chunks mentioning
    that seed), so it answers instead: the graph leg's two-hop neighbourhood on the MuSiQue store took
    182 ms instead of 402 ms (p50, load 20; BENCHMARKS.md issue 12, session 3). The check reads only the
    seeds' own mentions; ``IS NOT 1`` counts a filter that is NULL for an item (an undated item under a
    date bound) as excluding it."""
    where, params = item_filter_sql(f)
    (excluded,) = conn.execute(
        "SELECT EXISTS (SELECT 1 FROM mentions m JOIN items i ON i.rowid = m.item_rowid "
        f"WHERE m.entity IN (SELECT value FROM json_each(?)) AND ({where}) IS NOT 1)",
        [seeds, *params],
    ).fetchone()
    return not excluded


def entity_edges(conn: sqlite3.Connection, entities: Sequence[str], f: SearchFilter, limit: int) -> list[EntityEdge]:
    seeds = json.dumps(list(dict.fromkeys(entities)), ensure_ascii=False)
    if limit <= 0 or not entities:
        return []
    if filter_is_everything(f) or _admits_every_mention(conn, seeds, f):
        rows = conn.execute(
            "SELECT a, b, weight, last_seen FROM entity_pairs "
            "WHERE a IN (SELECT value FROM json_each(?1)) OR b IN (SELECT value FROM json_each(?1)) "
            "ORDER BY weight DESC, a, b LIMIT ?2",
            (seeds, limit),
        ).fetchall()
    else:
        where, params = item_filter_sql(f)
        rows = conn.execute(
            "SELECT min(m1.entity, m2.entity) AS a, max(m1.entity, m2.entity) AS b, "
            "count(DISTINCT m1.chunk_key) AS w, max(i.date_ord) "
            "FROM mentions m1 JOIN mentions m2 ON m2.chunk_key = m1.chunk_key AND m2.entity <> m1.entity "
            f"JOIN items i ON i.rowid = m1.item_rowid WHERE m1.entity IN (SELECT value FROM json_each(?)) AND {where} "
            "GROUP BY a, b ORDER BY w DESC, a, b LIMIT ?",
            [seeds, *params, limit],
        ).fetchall()
    return [EntityEdge(a, b, float(w), date_from_ordinal(d)) for a, b, w, d in rows]


def entity_chunks(
    conn: sqlite3.Connection, entities: Sequence[str], f: SearchFilter, limit: int
) -> list[tuple[int, str]]:
    if limit <= 0 or not entities:
        return []
    where, params = item_filter_sql(f)
    rows = conn.execute(
        # by chunk id, not key: a key is the order of ingest, so under the LIMIT a re-ingested file's chunks
        # would lose their place to every other file's, and a store with that history would walk unlike a fresh one
        "SELECT m.chunk_key, m.entity FROM mentions m JOIN items i ON i.rowid = m.item_rowid "
        "JOIN chunks c ON c.key = m.chunk_key "
        f"WHERE m.entity IN (SELECT value FROM json_each(?)) AND {where} ORDER BY c.id, m.entity LIMIT ?",
        [json.dumps(list(entities), ensure_ascii=False), *params, limit],
    ).fetchall()
    return [(k, e) for k, e in rows]


def top_terms(conn: sqlite3.Connection, f: SearchFilter, limit: int) -> list[tuple[str, int]]:
    """Entities by number of mentioning chunks among the items ``f`` admits.

    An unrestricted filter is a covering scan of the ``mentions_entity`` index; any other joins the items, so
    names that occur only in drafts or in another tenant's items are never counted.
    """
    if limit <= 0:
        return []
    if filter_is_everything(f):
        rows = conn.execute(
            "SELECT entity, count(*) AS n FROM mentions GROUP BY entity ORDER BY n DESC, entity LIMIT ?", (limit,)
        ).fetchall()
    else:
        # The admitted items first, then their mentions by ``mentions_item``: half the time of joining every
        # mention to its item (71 vs 150 ms on the 17k-mention MuSiQue store, /work/notes/bench-tenancy.md).
        where, params = item_filter_sql(f)
        rows = conn.execute(
            f"SELECT m.entity, count(*) AS n FROM mentions m WHERE m.item_rowid IN (SELECT i.rowid FROM items i "
            f"WHERE {where}) GROUP BY m.entity ORDER BY n DESC, m.entity LIMIT ?", [*params, limit],
        ).fetchall()
    return [(e, int(n)) for e, n in rows]
