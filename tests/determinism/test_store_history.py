"""A store's history does not show in its rankings: the same files, reached through edits, re-ingests, deletes
and reopenings, rank exactly as a fresh build of them — keyword hits, graph hits and search results, by chunk
id with bit-equal scores.

Demo answer figures are compared across stores (a fresh ``--cache-dir`` against a warm one); session 15 found
them differing (citation precision 0.2778 fresh, 0.2692 warm) because (1) tantivy's BM25 statistics counted the
documents a re-ingest deleted — the document count, each term's frequency and the total length, which after a
merge of segments holding deletions is even re-estimated from the 1-byte field norms — and (2) the graph leg
broke ties between chunks naming the same entities by chunk key, which is the order of ingest.

The corpus is built for both: chunks long enough that their field norms are lossy (over 40 terms), twins
(identical files, so equal scores everywhere), and a history in which a twin is edited and restored (its
chunks get the newest keys), files are edited and restored, one file is deleted, and enough separate
ingests run that tantivy has many segments to merge.

The vector leg's scores are bit-equal too: they moved by a float32 ulp or so with history (the in-memory
matrix's BLAS product rounds a row's dot product by where the row falls in its blocks, and a re-ingested
chunk's row moves), until ``store/vectors.py`` rescored its candidates exactly in float64 (session 17). So every
result, its order, its legs' ranks and scores and the fused score must be equal.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from groundsearch.engine import Engine
from groundsearch.models.fake import HashEmbedder
from groundsearch.query.graph import graph_hits
from groundsearch.settings import Settings
from groundsearch.types import CollectionSpec, SearchFilter, SearchRequest

QUERIES = ["zebra umbrella ledger", "tantivy keyword index segment", "Acme Corp Zeta Holdings", "release version walk"]
SEEDS = [["acme corp"], ["zeta holdings"], ["ada quill", "acme corp"]]
WORDS = ["keyword", "index", "segment", "zebra", "umbrella", "release", "notes", "version", "ledger", "walk",
         "vector", "store", "tantivy", "harbour", "copper", "meadow", "signal", "lantern"]
TWIN = ("# Twin\n\nAcme Corp and Zeta Holdings signed the zebra umbrella ledger with Ada Quill. "
        + " ".join(WORDS[i % len(WORDS)] for i in range(60)) + ".\n")


def _text(i: int, edit: str = "") -> str:
    words = [WORDS[(i * 7 + j * 3) % len(WORDS)] for j in range(45 + 11 * (i % 5))]
    more = [WORDS[(i + j * 5) % len(WORDS)] for j in range(30 + 17 * (i % 3))]
    who = ["Acme Corp", "Zeta Holdings", "Ada Quill"][i % 3]
    return (f"# Note {i}\n\n{who} keeps the {' '.join(words)}.{edit}\n\n## Part\n\n"
            f"Zeta Holdings and {who} {' '.join(more)} release version {i % 4}.\n")


def _final(docs: Path) -> None:
    """The content both stores end with."""
    for i in range(14):
        (docs / f"note{i:02d}.md").write_text(_text(i))
    (docs / "a-twin.md").write_text(TWIN)
    (docs / "b-twin.md").write_text(TWIN)


def _open(data: Path) -> Engine:
    settings = Settings(data_dir=data, embedder="hash", collections=(CollectionSpec("docs", "documents"),))
    return Engine.open(settings, embedder=HashEmbedder(dim=64))


def _ingest(engine: Engine, docs: Path) -> None:
    report = engine.ingest([docs], "docs", prune=True)
    assert report.errors == ()


def _history(docs: Path, data: Path) -> None:
    """Reach the final content the long way round."""
    _final(docs)
    (docs / "extra.md").write_text(_text(99) + "\nAcme Corp keyword zebra.\n")
    for i in range(4):
        (docs / f"note{i:02d}.md").write_text(_text(i, " A first draft of this note, since rewritten."))
    with _open(data) as engine:
        _ingest(engine, docs)
        for i in range(4):  # one ingest per edit: a segment per commit, and deletions spread over them
            (docs / f"note{i:02d}.md").write_text(_text(i))
            _ingest(engine, docs)
        (docs / "a-twin.md").write_text(TWIN + "\nAn edit.\n")
        _ingest(engine, docs)
        (docs / "a-twin.md").write_text(TWIN)  # a-twin's chunks now have the newest keys
        _ingest(engine, docs)
    with _open(data) as engine:  # reopened: tantivy's merges of the deleting segments have run
        for i in (5, 9, 12):
            (docs / f"note{i:02d}.md").write_text(_text(i, " Briefly changed."))
            _ingest(engine, docs)
            (docs / f"note{i:02d}.md").write_text(_text(i))
            _ingest(engine, docs)
        (docs / "extra.md").unlink()
        _ingest(engine, docs)


def _ranked(data: Path) -> dict[str, object]:
    with sqlite3.connect(data / "store" / "store.sqlite3") as conn:
        ids = dict(conn.execute("SELECT key, id FROM chunks"))
        chunks = sorted(conn.execute("SELECT id, text, vector FROM chunks"))
    out: dict[str, object] = {"chunks": chunks}
    with _open(data) as engine:
        for q in QUERIES:
            kw = engine.store.keyword_search(q, SearchFilter(), 100).hits
            response = engine.search(SearchRequest(query=q, limit=20))
            out[q] = ([(ids[k], s) for k, s in kw], [h.model_dump(mode="json") for h in response.results])
        for seeds in SEEDS:
            out[" ".join(seeds)] = [(ids[k], s) for k, s in graph_hits(engine.store, seeds, SearchFilter(), 10)]
    return out


def test_a_store_reached_through_edits_and_deletes_ranks_like_a_fresh_build(tmp_path: Path) -> None:
    docs = tmp_path / "docs"  # one folder for both: an item's id names its path
    docs.mkdir()
    _history(docs, tmp_path / "warm")
    with _open(tmp_path / "fresh") as engine:  # the folder as the history left it, ingested once
        _ingest(engine, docs)
    warm, fresh = _ranked(tmp_path / "warm"), _ranked(tmp_path / "fresh")

    assert warm["chunks"] == fresh["chunks"]  # the same content, so any difference below is history
    with sqlite3.connect(tmp_path / "warm" / "store" / "store.sqlite3") as conn:
        keys = dict(conn.execute("SELECT c.id, c.key FROM chunks c JOIN items i ON i.rowid = c.item_rowid "
                                 "WHERE i.source LIKE '%twin.md'"))
    a, b = sorted(keys)
    assert keys[a] > keys[b]  # the history the graph's ties are about: key order is not id order
    for q in QUERIES:
        kw, results = fresh[q]  # type: ignore[misc]
        assert kw and results, q
    for seeds in SEEDS:
        hits = fresh[" ".join(seeds)]
        assert len(hits) >= 2 and len({s for _, s in hits}) < len(hits), seeds  # ties, so order means something
    for name in fresh:
        assert warm[name] == fresh[name], name
