"""The derived keyword index of the embedded store: tantivy BM25 over pre-analysed chunk terms.

Why tantivy: on this machine it answered SciFact-style queries over 100k chunks ~50× faster than
SQLite FTS5 ``bm25()`` and with a tighter tail than bm25s (issue 2), and it keeps the index on disk with
block-max WAND top-k. Why pre-analysed terms: every backend must index exactly
:func:`groundsearch.store.text.keyword_terms`, so the text is analysed in Python and tantivy only splits
on whitespace (its built-in ``whitespace`` tokenizer, which neither lowercases nor filters). Terms never
contain whitespace because the shared analyser keeps only letters and digits.

Queries are built programmatically (``term_query`` per analysed term, OR-ed) — never ``parse_query`` —
so no character of user text can become syntax. Filters are compiled into the same query as ``MUST`` /
``MUST_NOT`` clauses on raw fields, wrapped in a zero-score ``const_score_query`` so they restrict the match
set without changing BM25.

Partitions: one tantivy index per tenant and visibility class, so BM25 counts only what a caller may see
(``keyword_scope.py``); the default tenant's public chunks are the index in ``path`` itself.

The index is derived: it records the last change-log ``seq`` it applied in ``applied.json`` (written
after tantivy's commit, so a crash in between only causes an idempotent re-apply: every apply deletes
the keys it is about to add first).

Damage: tantivy does not check its files' checksums when it opens or reads them, and random bytes in a
segment panic inside Rust (``pyo3_runtime.PanicException``, a ``BaseException``) or silently change scores.
So :func:`verify_files` checks every segment file's CRC-32 footer before the index is opened (measured in
/work/notes/bench-corruption.md), the store compares the document count with SQLite's chunk count, and a
failure during a search marks the index ``damaged`` (the store rebuilds it from SQLite) instead of escaping.

Single writer: tantivy holds a lock file while an ``IndexWriter`` lives; a second writer fails with
:class:`~groundsearch.errors.StoreError`. Read-only instances reload automatically on commit.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import tantivy

from ..errors import IndexUnavailable, StoreError
from ..types import SearchFilter
from .index_check import is_panic, verify_files
from .keyword_query import (FIELD_SEP, SCHEMA, build_schema, compile_filter, compile_query, field_term,
                            inert_clauses)
from .keyword_scope import PREFIX, ROOT, idf_boosts, partition_of, wanted_partitions

__all__ = [
    "FIELD_SEP", "KeywordDoc", "KeywordIndex", "build_schema", "compile_filter", "compile_query", "field_term",
    "inert_clauses",
]

# bump when the tantivy schema or layout changes: an index of another format is rebuilt from SQLite. 2: one
# tantivy index per tenant and visibility class (keyword_scope.py); a format-1 index mixed every tenant's chunks.
# 3: no partition holds deleted documents (_expunge); a format-2 index may hold them, or segment lengths tantivy
# estimated when it merged them away, so its scores depend on its history.
FORMAT = 3
_WRITER_HEAP = 64_000_000  # bytes buffered before tantivy flushes a segment; 64 MB keeps ingest fast and RAM low


@dataclass(frozen=True, slots=True)
class KeywordDoc:
    """One chunk as the keyword index sees it: its analysed terms and the item metadata filters need."""

    key: int
    item_id: str
    collection: str
    status: str
    superseded: bool
    tenant: str
    date_ord: int | None
    field_terms: tuple[str, ...]
    terms: tuple[str, ...]


class KeywordIndex:
    """The tantivy indexes in ``path`` — one per partition (keyword_scope.py), the default tenant's public one in
    ``path`` itself — plus the change-log seq they have applied."""

    def __init__(self, path: Path, index: tantivy.Index, writer: tantivy.IndexWriter | None, applied_seq: int,
                 parts: dict[str, tantivy.Index] | None = None) -> None:
        self.path = path
        self._index = index  # the root partition
        self._parts = dict(parts or {})  # every other partition, by subdirectory name
        self._writer = writer  # the root's, held while the store is open: it is the store's writer lock
        self._schema = index.schema
        self.applied_seq = applied_seq
        self.damaged: str | None = None  # set when the index cannot serve: searches raise IndexUnavailable
        self.repair: str | None = None  # why it was last wiped and rebuilt (for health)

    @classmethod
    def open(cls, path: Path, *, writable: bool) -> KeywordIndex:
        """Open the index in ``path``. Damaged files (see :func:`verify_files`) are wiped by a writer, which
        then finds an empty index at seq 0 and rebuilds it from SQLite (``repair`` says why); a reader
        cannot rebuild, so it gets an empty in-memory index marked ``damaged`` and searches refuse to run."""
        path.mkdir(parents=True, exist_ok=True)
        if writable and _writer_lock_held(path):
            raise _busy(path)  # before any wipe below: the files may be another live writer's
        state = _read_state(path)
        repair = None
        if writable and state.get("format", FORMAT) != FORMAT:
            _wipe(path)
            state = {}
        if not writable and not tantivy.Index.exists(str(path)):
            raise StoreError(f"keyword index missing at {path}; open the store once for writing to build it")
        if not writable and state.get("format", FORMAT) != FORMAT:  # a reader cannot rebuild: it says why it won't serve
            found = cls(path, tantivy.Index(build_schema()), None, 0)
            found.damaged = (f"the keyword index at {path} is in format {state.get('format')}, this version reads "
                             f"format {FORMAT}; the writer process rebuilds it when it next opens the store")
            return found
        problem = _verify_all(path)
        index = None
        parts: dict[str, tantivy.Index] = {}
        if problem is None:
            try:
                index = tantivy.Index(build_schema(), path=str(path), reuse=True)
                parts = _open_parts(path, writable)
            except BaseException as exc:  # ValueError from tantivy, or a panic on a damaged meta.json
                if not is_panic(exc) and not isinstance(exc, (OSError, ValueError)):
                    raise
                problem = f"cannot be opened ({_first_line(exc)})"
        if problem is not None:
            if not writable:
                found = cls(path, tantivy.Index(build_schema()), None, 0)
                found.damaged = f"the keyword index at {path} is damaged: {problem}; the writer process rebuilds it"
                return found
            repair = f"the keyword index at {path} was damaged ({problem}); rebuilt it from SQLite"
            _wipe(path)
            state = {}
            index = tantivy.Index(build_schema(), path=str(path), reuse=True)
            parts = {}
        assert index is not None
        writer = None
        if writable:
            writer = _open_writer(index, path)
        else:
            index.config_reader(reload_policy="commit")
        found = cls(path, index, writer, int(state.get("seq", 0)), parts)
        found.repair = repair
        return found

    def wipe(self, why: str) -> None:
        """Drop every file and start an empty index at seq 0 (the caller then rebuilds it from SQLite).

        Searches still holding the old index keep reading their mmapped, now unlinked, files; a failure
        there is not blamed on the new index (see :meth:`search`)."""
        self._require_writer()
        self.close()
        _wipe(self.path)
        index = tantivy.Index(build_schema(), path=str(self.path), reuse=True)
        self._writer = _open_writer(index, self.path)
        self._index = index
        self._parts = {}
        self.applied_seq = 0
        self.damaged = None
        self.repair = why
        _write_state(self.path, {"format": FORMAT, "seq": 0})

    # ---------------------------------------------------------------------------------------- writes

    def apply(self, seq: int, removed_keys: Sequence[int], docs: Sequence[KeywordDoc]) -> None:
        """Make the index reflect the change log up to ``seq``: drop ``removed_keys``, (re)add ``docs``.

        Each document goes to its partition; a key is dropped from every partition holding it (an item that
        was published as a draft moves). Partitions commit one after another and the seq is recorded after the
        last: a crash in between leaves the seq behind, so the whole batch is applied again (idempotent).

        A partition this batch deletes from is written anew (:func:`_expunge`): no partition holds deleted
        documents, so BM25 scores a store as it would a fresh build of the same chunks."""
        writer = self._require_writer()
        stale = list(removed_keys) + [d.key for d in docs]
        by_part: dict[str, list[KeywordDoc]] = {}
        for d in docs:
            by_part.setdefault(partition_of(d.tenant, d.status), []).append(d)
        for name in sorted((set(self._parts) | set(by_part)) - {ROOT}):
            adds = by_part.get(name, [])
            index = self._parts.get(name)
            holds = index is not None and bool(stale) and _holds_any(index, stale)
            if not adds and not holds:
                continue
            if index is None:
                (self.path / name).mkdir(exist_ok=True)
                index = self._parts[name] = tantivy.Index(build_schema(), path=str(self.path / name), reuse=True)
            # opened per batch: a store with many tenants would otherwise hold a writer (threads, lock) for each
            part_writer = _open_writer(index, self.path / name)
            try:
                _write(part_writer, index, stale, holds, adds)
                part_writer.commit()
            finally:
                part_writer.wait_merging_threads()
            index.reload()
        holds = bool(stale) and _holds_any(self._index, stale)
        try:
            _write(writer, self._index, stale, holds, by_part.get(ROOT, ()))
            writer.commit()
        except BaseException:
            writer.rollback()  # a half-written batch (an emptied partition) must not ride on the next commit
            raise
        self._index.reload()
        self.applied_seq = seq
        _write_state(self.path, {"format": FORMAT, "seq": seq})

    def reset(self) -> None:
        """Empty the index (before a full rebuild from SQLite)."""
        writer = self._require_writer()
        writer.delete_all_documents()
        writer.commit()
        self._index.reload()
        self._parts = {}
        _remove_parts(self.path)
        self.applied_seq = 0
        _write_state(self.path, {"format": FORMAT, "seq": 0})

    def _require_writer(self) -> tantivy.IndexWriter:
        if self._writer is None:
            raise StoreError("the store was opened read-only; writes need the writer process")
        return self._writer

    # ---------------------------------------------------------------------------------------- reads

    def search(self, terms: Sequence[str], f: SearchFilter, limit: int,
               offset: int) -> tuple[list[int | None], list[float]]:
        """Chunk keys and their BM25 scores, best first, ``limit`` of them after skipping ``offset``.
        Raises :class:`~groundsearch.errors.IndexUnavailable` when the index is damaged.

        Only the partitions ``f`` may match by tenant and visibility are read (keyword_scope.py), so only their
        statistics score. Two parallel lists, as tantivy-py hands them over: the store zips them into
        ``(key, score)`` hits in one C-level pass (:func:`groundsearch.store.sqlite._hits`).
        """
        if limit <= 0:
            return [], []
        if self.damaged is not None:
            raise IndexUnavailable(self.damaged)
        root, parts = self._index, self._parts
        names = wanted_partitions(f, [ROOT, *parts])
        indexes = [root if name == ROOT else parts[name] for name in names]
        if not indexes:
            return [], []
        if len(indexes) == 1:
            return self._search_one(indexes[0], terms, f, limit, offset, None)
        distinct = list(dict.fromkeys(terms))
        try:
            searchers = [index.searcher() for index in indexes]
            # tantivy's N counts deleted but unmerged documents; every document has one "superseded" posting
            stats = [(s.doc_freq("superseded", 0) + s.doc_freq("superseded", 1),
                      [s.doc_freq("body", t) for t in distinct]) for s in searchers]
        except BaseException as exc:
            raise self._fail(indexes[0], exc) from None
        hits: list[tuple[float, int]] = []
        for index, boosts in zip(indexes, idf_boosts(stats)):
            if any(w > 0 for w in boosts):
                keys, scores = self._search_one(index, distinct, f, limit + offset, 0, boosts)
                hits.extend((s, k) for k, s in zip(keys, scores) if k is not None)
        hits.sort(key=lambda h: (-h[0], h[1]))
        page = hits[offset : offset + limit]
        return [k for _, k in page], [s for s, _ in page]

    def _search_one(self, index: tantivy.Index, terms: Sequence[str], f: SearchFilter, limit: int, offset: int,
                    boosts: Sequence[float] | None) -> tuple[list[int | None], list[float]]:
        try:
            searcher = index.searcher()
            drop = inert_clauses(searcher, f)
        except BaseException as exc:
            raise self._fail(index, exc) from None
        # from the caller's input: its errors are the caller's
        query = compile_query(self._schema, terms, f, drop, boosts)
        try:
            hits = searcher.search(query, limit, count=False, offset=offset).hits
            if not hits:
                return [], []
            scores, addresses = zip(*hits)
            keys = searcher.fast_field_values("key", list(addresses))
        except BaseException as exc:
            raise self._fail(index, exc) from None
        if None in keys:  # every document is written with a key: a missing one means a damaged fast field
            raise self._fail(index, None)
        return keys, list(scores)

    def _fail(self, index: tantivy.Index, exc: BaseException | None) -> IndexUnavailable:
        """The error for a search that failed inside tantivy (``exc``; ``None``: a document without a key).

        Only files that fail :func:`verify_files` mark the index damaged (and so rebuilt): a failure on
        sound files is this search's alone, so a query that trips a tantivy bug cannot force a rebuild per
        request. A failure of an index already replaced by a rebuild says nothing of the new one."""
        if exc is not None and not (is_panic(exc) or isinstance(exc, (OSError, ValueError))):
            raise exc
        what = "a document has lost its chunk key" if exc is None else f"tantivy failed: {_first_line(exc)}"
        current = index is self._index or any(index is p for p in self._parts.values())
        if current and self.damaged is None:
            problem = self.verify()
            if problem is None:
                return IndexUnavailable(f"a keyword search failed ({what}) though the index files verify")
            self.damaged = f"the keyword index at {self.path} is damaged: {problem} ({what})"
        return IndexUnavailable(self.damaged or what)

    def verify(self) -> str | None:
        """What is wrong with the files of any partition (``None``: all whole), see :func:`verify_files`."""
        return _verify_all(self.path)

    def reload(self) -> None:
        """See the writer's latest commit; a reader also picks up partitions created (or removed) since."""
        if self._writer is None:
            known = set(self._parts)
            found = {p.name for p in _part_dirs(self.path) if tantivy.Index.exists(str(p))}
            parts = {name: index for name, index in self._parts.items() if name in found}
            for name in sorted(found - known):
                parts[name] = tantivy.Index(build_schema(), path=str(self.path / name), reuse=True)
                parts[name].config_reader(reload_policy="commit")
            self._parts = parts
        self._index.reload()
        for index in self._parts.values():
            index.reload()

    def searcher(self) -> tantivy.Searcher:
        """The root partition's searcher (the default tenant's public chunks)."""
        return self._index.searcher()

    @property
    def num_docs(self) -> int:
        """Live documents over every partition."""
        return self._index.searcher().num_docs + sum(p.searcher().num_docs for p in self._parts.values())

    @property
    def partitions(self) -> list[str]:
        """Names of the partitions besides the root (subdirectories), sorted."""
        return sorted(self._parts)

    @property
    def schema(self) -> tantivy.Schema:
        return self._schema

    def close(self) -> None:
        if self._writer is not None:
            try:
                self._writer.wait_merging_threads()  # consumes the writer and releases the lock file
            except BaseException as exc:  # merging a damaged segment can panic; the lock goes with the writer
                if not is_panic(exc) and not isinstance(exc, ValueError):
                    raise
            finally:
                self._writer = None


def _part_dirs(path: Path) -> list[Path]:
    try:
        return sorted(p for p in path.iterdir() if p.is_dir() and p.name.startswith(PREFIX))
    except OSError:
        return []


def _open_parts(path: Path, writable: bool) -> dict[str, tantivy.Index]:
    """The non-root partitions on disk (a reader skips one the writer has not committed yet)."""
    parts = {}
    for child in _part_dirs(path):
        if writable or tantivy.Index.exists(str(child)):
            parts[child.name] = tantivy.Index(build_schema(), path=str(child), reuse=True)
            if not writable:
                parts[child.name].config_reader(reload_policy="commit")
    return parts


def _verify_all(path: Path) -> str | None:
    problem = verify_files(path)
    for child in _part_dirs(path):
        if problem is not None:
            break
        if (found := verify_files(child)) is not None:
            problem = f"partition {child.name}: {found}"
    return problem


def _holds_any(index: tantivy.Index, keys: Sequence[int]) -> bool:
    hits = index.searcher().search(tantivy.Query.term_set_query(SCHEMA, "key", list(keys)), 1, count=True)
    return bool(hits.count)


def _write(writer: tantivy.IndexWriter, index: tantivy.Index, stale: Sequence[int], holds: bool,
           adds: Sequence[KeywordDoc]) -> None:
    """Queue one partition's share of a batch on its ``writer`` (``holds``: the partition has ``stale`` keys)."""
    if holds:
        _expunge(writer, index, stale)
    elif stale:  # keys it does not hold (the batch's new chunks): a no-op, kept so a re-applied batch is one too
        writer.delete_documents_by_query(tantivy.Query.term_set_query(SCHEMA, "key", list(stale)))
    for d in adds:
        writer.add_document(_document(d))


def _expunge(writer: tantivy.IndexWriter, index: tantivy.Index, stale: Sequence[int]) -> None:
    """Empty the partition and queue its documents again from their stored fields, all but ``stale`` (the
    caller adds the batch's own).

    Why: tantivy scores BM25 with statistics that count deleted documents until a merge drops them — the
    document count, each term's document frequency and the total length behind the mean length — and a merge
    of a segment holding deletions re-estimates that total from the 1-byte field norms
    (``merger.rs: estimate_total_num_tokens``), lossy past 40 terms. Either way a store whose files were
    re-ingested or deleted scored every chunk unlike a fresh build of the same files (13.7779 against 13.7964
    on the demo), and near-ties flipped. tantivy-py can neither be handed statistics nor told to merge, but
    ``delete_all_documents`` drops every segment (and voids the merges under way, whose segments are gone). A
    partition written anew holds only live documents, in segments that never held a deletion, so its
    statistics are those of its content whatever its history. The cost: a rewrite of the partition per batch
    that deletes from it (a first ingest deletes nothing)."""
    searcher = index.searcher()
    gone = set(stale)
    kept: list[tantivy.Document] = []
    if searcher.num_docs:
        addresses = [a for _, a in searcher.search(tantivy.Query.all_query(), searcher.num_docs, count=False).hits]
        keys = searcher.fast_field_values("key", addresses)
        kept = [searcher.doc(a) for a, k in zip(addresses, keys) if k not in gone]
    writer.delete_all_documents()
    for doc in kept:  # read back whole (every field is stored), so added again as it was first written
        writer.add_document(doc)


def _remove_parts(path: Path) -> None:
    for child in _part_dirs(path):
        shutil.rmtree(child, ignore_errors=True)


def _open_writer(index: tantivy.Index, path: Path) -> tantivy.IndexWriter:
    try:
        return index.writer(heap_size=_WRITER_HEAP, num_threads=1)
    except ValueError as exc:
        if "LockBusy" in str(exc):
            raise _busy(path) from None
        raise StoreError(f"keyword index at {path} cannot be written: {exc}") from None


def _busy(path: Path) -> StoreError:
    return StoreError(
        f"another process has the store at {path.parent} open for writing (a `groundsearch serve`, or an "
        "ingest or embed still running); only one writer at a time — stop the other one or wait for it to "
        "finish (the CLI's search, ingest and embed work beside a running server)",
        details={"reason": "writer_busy"},
    )


def _writer_lock_held(path: Path) -> bool:
    """Whether a live ``IndexWriter`` (tantivy takes ``flock`` on this file) holds the index, probed without
    taking it: a damaged-looking index must not be wiped under a writer that is mid-commit."""
    import fcntl

    try:
        with open(path / ".tantivy-writer.lock", "a") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(f, fcntl.LOCK_UN)
    except OSError:
        return False  # cannot probe (read-only folder): tantivy's own lock still refuses a second writer
    return False


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:300]


def _document(d: KeywordDoc) -> tantivy.Document:
    doc = tantivy.Document()
    doc.add_unsigned("key", d.key)
    doc.add_text("body", " ".join(d.terms))
    doc.add_text("item_id", d.item_id)
    doc.add_text("collection", d.collection)
    doc.add_text("status", d.status)
    doc.add_text("tenant", d.tenant)
    doc.add_unsigned("superseded", int(d.superseded))
    if d.date_ord is not None:
        doc.add_integer("date", d.date_ord)
    for term in d.field_terms:
        doc.add_text("fv", term)
    return doc


def _read_state(path: Path) -> dict[str, int]:
    try:
        state = json.loads((path / "applied.json").read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(state, dict) or any(not isinstance(state.get(k, 0), int) for k in ("format", "seq")):
        return {}  # damaged but still JSON: seq 0, so the index is rebuilt from every chunk
    return state


def _write_state(path: Path, state: dict[str, int]) -> None:
    tmp = path / "applied.json.tmp"
    tmp.write_text(json.dumps(state))
    os.replace(tmp, path / "applied.json")


def _wipe(path: Path) -> None:
    for child in path.iterdir():
        if child.is_file():
            child.unlink()
    _remove_parts(path)
