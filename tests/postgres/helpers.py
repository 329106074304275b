"""Shared builders for the Postgres tests (real server, real stores)."""

from __future__ import annotations

import numpy as np

from groundsearch.types import Chunk, Item, ItemWrite


def make_write(item_id: str, n_chunks: int, dim: int, rng: np.random.Generator, words: list[str],
               collection: str = "docs") -> ItemWrite:
    """An item whose ``fields['n_chunks']`` says how many chunks it must have (readers check it)."""
    chunks = tuple(
        Chunk(id=f"{item_id}#{i}", item_id=item_id, position=i,
              text=" ".join(rng.choice(words, size=12)), heading_path=("H", str(i)),
              entities=(f"ent{rng.integers(0, 20)}", f"ent{rng.integers(0, 20)}"))
        for i in range(n_chunks)
    )
    vectors = rng.standard_normal((n_chunks, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    item = Item(id=item_id, collection=collection, title=f"title {item_id}", text="\n".join(c.text for c in chunks),
                fields={"n_chunks": n_chunks}, content_hash=f"h-{item_id}")
    return ItemWrite(item=item, chunks=chunks, vectors=vectors)


WORDS = [f"w{i}" for i in range(200)] + ["graph", "vector", "search", "postgres", "index"]


def integrity_problems(dsn: str) -> list[str]:
    """Rows that would betray a partial write; empty when the database is consistent."""
    import psycopg

    checks = {
        "items without all their chunks": """
            SELECT i.id FROM items i LEFT JOIN chunks c ON c.item_id = i.id
            GROUP BY i.id, i.fields HAVING count(c.pk) <> (i.fields::jsonb ->> 'n_chunks')::int""",
        "chunks without a vector": """
            SELECT c.id FROM chunks c LEFT JOIN chunk_vectors v ON v.chunk_pk = c.pk WHERE v.chunk_pk IS NULL""",
        "chunks without postings": """
            SELECT c.id FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM postings p WHERE p.chunk_pk = c.pk)""",
        "corpus stats out of step": """
            SELECT 1 FROM corpus_stats s WHERE s.n_chunks <> (SELECT count(*) FROM chunks)
               OR s.n_terms <> (SELECT coalesce(sum(n_terms), 0) FROM chunks)""",
        # the per-tenant BM25 statistics (migration 0009) against a recount, both ways round
        "scope stats out of step": """
            SELECT * FROM (SELECT tenant, visibility, n_chunks, n_terms FROM scope_stats WHERE n_chunks <> 0 OR n_terms <> 0
                           EXCEPT SELECT scope_tenant, scope_visibility, count(*), sum(n_terms) FROM chunks GROUP BY 1, 2) a
            UNION ALL
            SELECT * FROM (SELECT scope_tenant, scope_visibility, count(*), sum(n_terms) FROM chunks GROUP BY 1, 2
                           EXCEPT SELECT tenant, visibility, n_chunks, n_terms FROM scope_stats) b""",
        "scope term stats out of step": """
            SELECT * FROM (SELECT tenant, visibility, term, df FROM scope_term_stats WHERE df <> 0
                           EXCEPT SELECT c.scope_tenant, c.scope_visibility, p.term, count(*)
                           FROM postings p JOIN chunks c ON c.pk = p.chunk_pk GROUP BY 1, 2, 3) a
            UNION ALL
            SELECT * FROM (SELECT c.scope_tenant, c.scope_visibility, p.term, count(*)
                           FROM postings p JOIN chunks c ON c.pk = p.chunk_pk GROUP BY 1, 2, 3
                           EXCEPT SELECT tenant, visibility, term, df FROM scope_term_stats) b""",
        "chunks counted under another scope than their item's": """
            SELECT c.id FROM chunks c JOIN items i ON i.id = c.item_id WHERE c.scope_tenant <> i.tenant
               OR c.scope_visibility <> CASE WHEN i.status = 'draft' THEN 'draft' ELSE 'public' END""",
    }
    problems = []
    with psycopg.connect(dsn) as conn:
        for name, sql in checks.items():
            rows = conn.execute(sql).fetchall()
            if rows:
                problems.append(f"{name}: {rows[:5]}")
    return problems
