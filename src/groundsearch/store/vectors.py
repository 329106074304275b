"""The derived vector index of the embedded store: exact numpy search, plus HNSW above a measured size.

Why exact by default: vectors are L2-normalised float32, so cosine is one matrix-vector product. On this
2-core machine that costs ~15 ms at 100k × 384 and ~25 ms at 200k (``bench_store.bench_vector_leg``), has
perfect recall, and a filter is just a boolean row mask — filtered pages are always full with no
oversampling games. Above ``exact_max`` live rows a ``usearch`` HNSW graph answers instead; filtered queries
then scan the filtered rows exactly when few rows pass, and otherwise oversample the graph and keep
doubling until the page is full (falling back to an exact masked scan), so a filtered page is still full
whenever matches exist. Every returned score is recomputed exactly from the float32 matrix.

Returned scores are exact: the float32 product (BLAS sgemv) only picks candidates, and the chosen rows are
rescored in float64 (``_rescored``): each product of two float32 values is exact there, and a row's 384 products
are summed by numpy's own row reduction, the same sequence of additions wherever the row sits, so the score
depends on the row's values alone. sgemv rounds a row's dot product by where the row falls in its blocks (a row
in the last, partial block, or in a gathered few, scores apart from the same row in a full block: 3,974 of 5,000
rows alone against the full product), so a re-ingested chunk, whose row moves, scored an ulp or so apart from a
fresh build of the same files (tests/determinism/test_store_history.py, tests/store/test_vector_scores.py).

Per-row metadata (item, collection, status, superseded, tenant, date) lives in parallel numpy arrays so
turning a filter into a mask is a handful of vectorised comparisons, never a Python loop over rows.
Field and item-id filters arrive as sets of item rowids computed in SQL by the caller.

Rows are appended in chunk-key order (keys come from an ``AUTOINCREMENT`` column), so ``keys`` stays
sorted and key → row is a binary search instead of a million-entry dict.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from usearch.index import Index as HNSW

from ..types import STATUSES, SearchFilter

__all__ = ["NO_DATE", "VectorIndex", "VectorRows", "exact_search", "search_ef"]

log = logging.getLogger("groundsearch.store")

NO_DATE = np.iinfo(np.int32).min  # undated rows never satisfy a date bound
_STATUS_CODE = {s: i for i, s in enumerate(STATUSES)}
# 2: applied.json carries the graph file's size and SHA-256. A graph without them (format 1) cannot be
# checked before usearch parses it — and usearch handed damaged bytes can SIGSEGV — so it is rebuilt.
_FORMAT = 2
# HNSW knobs, measured on 10k 384-d vectors on this machine: the graph stores int8
# vectors (5× faster to build than f32 at ef_construction=64 vs 128, ¼ of the memory) and only proposes
# candidates — every candidate is re-scored exactly from the float32 matrix, and at least _MIN_CANDIDATES
# are fetched. Recall@10 of the top 100 re-scored: 0.92 (i8) vs 0.95 (f32) on clustered vectors; on purely
# random unit vectors every graph index does poorly (~0.5), which is why exact search is used up to
# ``exact_max``.
_DTYPE = "i8"
# Build knobs for new graphs (usearch keeps connectivity in the file, so a graph built with older knobs keeps
# its own). At 1M real-derived MiniLM vectors connectivity 16 / expansion_add 64 topped out at recall@10 0.88
# whatever the ef; 32 / 200 reach 0.951 at ef 512 and 0.968 at ef 1024, for ~3.4x the build CPU
# (BENCHMARKS.md issue 15, docs/scaling.md).
_CONNECTIVITY = 32
_EXPANSION_ADD = 200
# The search beam grows with the graph: one slot per _ROWS_PER_EF live rows, rounded up to a power of two
# and held in [_EXPANSION_SEARCH, _MAX_EF] (1M rows -> 1024, the measured 0.968; 200k -> 256).
_EXPANSION_SEARCH = 128
_ROWS_PER_EF = 1_000
_MAX_EF = 4_096
_MIN_CANDIDATES = 100
_SAVE_EVERY = 20_000  # unsaved HNSW changes before a checkpoint; a crash replays at most this from the log


@dataclass(frozen=True, slots=True)
class VectorRows:
    """A batch of chunk vectors with the item metadata filters need, in ascending key order within the batch."""

    keys: np.ndarray  # int64
    vectors: np.ndarray  # float32 (n, dim)
    item_rowids: np.ndarray  # int64
    collections: Sequence[str]
    statuses: Sequence[str]
    superseded: np.ndarray  # bool
    tenants: Sequence[str]
    date_ords: np.ndarray  # int32, NO_DATE when undated


class VectorIndex:
    """Chunk vectors in memory (the truth is SQLite), with an optional persisted HNSW graph."""

    def __init__(self, dim: int, exact_max: int, directory: Path | None, ef: int | None = None) -> None:
        self.dim = dim
        self.exact_max = exact_max
        self.ef = ef  # the graph's search beam; None grows it with the live rows (search_ef)
        self.directory = directory
        self.applied_seq = 0
        self._saved_seq: int | None = None  # seq of the graph file on disk, if there is one
        self.repair: str | None = None  # why the saved graph was not used and was rebuilt (for health)
        self.clear()

    def clear(self) -> None:
        """Forget every row (before reloading from SQLite)."""
        dim = self.dim
        self._n = 0
        self._dead = 0
        self._matrix = np.zeros((0, dim), dtype=np.float32)
        self._keys = np.zeros(0, dtype=np.int64)
        self._item = np.zeros(0, dtype=np.int64)
        self._coll = np.zeros(0, dtype=np.int32)
        self._status = np.zeros(0, dtype=np.int8)
        self._superseded = np.zeros(0, dtype=bool)
        self._tenant = np.zeros(0, dtype=np.int32)
        self._date = np.zeros(0, dtype=np.int32)
        self._alive = np.zeros(0, dtype=bool)
        self._coll_codes: dict[str, int] = {}
        self._tenant_codes: dict[str, int] = {}
        self._hnsw: HNSW | None = None  # usearch is imported only when a graph is built or restored
        self._ef = 0  # the beam last given to the graph
        self._unsaved = 0
        # Rows are in key order until a vector arrives for an older chunk (the background embedder filling a
        # pending one); key look-ups then go through a sorted permutation, rebuilt after each such batch
        # instead of moving the matrix.
        self._in_key_order = True
        self._order: tuple[np.ndarray, np.ndarray] | None = None  # (rows by key, keys sorted)

    # ---------------------------------------------------------------------------------------- size

    @property
    def live(self) -> int:
        return self._n - self._dead

    @property
    def durable_seq(self) -> int:
        """The oldest change a reopened index would need replayed (the saved graph's seq, if any)."""
        return self.applied_seq if self._saved_seq is None else self._saved_seq

    @property
    def uses_hnsw(self) -> bool:
        return self._hnsw is not None and self.live > self.exact_max

    # ---------------------------------------------------------------------------------------- writes

    def append(self, rows: VectorRows) -> None:
        """Add rows (ascending keys within the batch; keys not held already), and to the graph if one exists.
        Crossing ``exact_max`` never builds a
        graph here: the caller calls :meth:`ensure_graph` (or :meth:`attach_hnsw` when loading) once after its
        batch, so a bulk load builds or restores one graph instead of growing one batch by batch — at 1M
        chunks, a reopen that grew a graph only to replace it with the saved one took 917 s."""
        m = len(rows.keys)
        if m == 0:
            return
        if self._n and int(rows.keys[0]) <= int(self._keys[self._n - 1]):
            self._in_key_order = False
        self._order = None
        self._reserve(self._n + m)
        sl = slice(self._n, self._n + m)
        self._matrix[sl] = rows.vectors
        self._keys[sl] = rows.keys
        self._item[sl] = rows.item_rowids
        self._coll[sl] = [self._coll_codes.setdefault(c, len(self._coll_codes)) for c in rows.collections]
        self._status[sl] = [_STATUS_CODE.get(s, -1) for s in rows.statuses]
        self._superseded[sl] = rows.superseded
        self._tenant[sl] = [self._tenant_codes.setdefault(t, len(self._tenant_codes)) for t in rows.tenants]
        self._date[sl] = rows.date_ords
        self._alive[sl] = True
        self._n += m
        if self._hnsw is not None:
            self._hnsw.add(rows.keys.astype(np.uint64), rows.vectors, threads=0)
            self._unsaved += m
            self._set_ef(self._hnsw, fresh=False)

    def remove(self, keys: Sequence[int]) -> None:
        rows = self._rows_of(np.asarray(keys, dtype=np.int64))
        rows = rows[self._alive[rows]]
        if len(rows) == 0:
            return
        self._alive[rows] = False
        self._dead += len(rows)
        if self._hnsw is not None:
            self._hnsw.remove(self._keys[rows].astype(np.uint64))
            self._unsaved += len(rows)
            self._set_ef(self._hnsw, fresh=False)
        if self._dead > 1024 and self._dead * 4 > self._n:
            self._compact()

    def _rows_of(self, keys: np.ndarray) -> np.ndarray:
        """Rows currently holding ``keys`` (absent keys are skipped)."""
        if self._in_key_order:
            return _exact_rows(self._keys[: self._n], keys)
        if self._order is None:
            order = np.argsort(self._keys[: self._n], kind="stable")
            self._order = (order, self._keys[: self._n][order])
        order, sorted_keys = self._order
        return order[_exact_rows(sorted_keys, keys)]

    def _reserve(self, size: int) -> None:
        if size <= len(self._keys):
            return
        cap = max(size, 2 * len(self._keys), 1024)

        def grow(a: np.ndarray) -> np.ndarray:
            out = np.zeros((cap,) + a.shape[1:], dtype=a.dtype)
            out[: self._n] = a[: self._n]
            return out

        self._matrix = grow(self._matrix)
        self._keys, self._item, self._coll = grow(self._keys), grow(self._item), grow(self._coll)
        self._status, self._superseded = grow(self._status), grow(self._superseded)
        self._tenant, self._date, self._alive = grow(self._tenant), grow(self._date), grow(self._alive)

    def _compact(self) -> None:
        keep = np.flatnonzero(self._alive[: self._n])
        for name in ("_matrix", "_keys", "_item", "_coll", "_status", "_superseded", "_tenant", "_date", "_alive"):
            setattr(self, name, getattr(self, name)[keep].copy())
        self._n, self._dead = len(keep), 0
        self._order = None

    # ---------------------------------------------------------------------------------------- HNSW

    def _build_hnsw(self) -> None:
        live = np.flatnonzero(self._alive[: self._n])
        graph = _hnsw_class()(
            ndim=self.dim, metric="ip", dtype=_DTYPE, connectivity=_CONNECTIVITY,
            expansion_add=_EXPANSION_ADD, expansion_search=_EXPANSION_SEARCH,
        )
        if len(live):
            graph.add(self._keys[live].astype(np.uint64), self._matrix[live], threads=0)
        self._set_ef(graph)
        self._hnsw = graph
        self._unsaved = len(live)

    def ensure_graph(self) -> None:
        """Build the graph in one go once the index is over ``exact_max`` (after appending a batch)."""
        if self._hnsw is None and self.directory is not None and self.live > self.exact_max:
            self._build_hnsw()

    def attach_hnsw(self, changed_since: Callable[[int], Sequence[int]], log_covers: Callable[[int], bool]) -> None:
        """After loading rows from SQLite: load the saved graph and replay the change log into it.

        ``changed_since(seq)`` returns chunk keys touched after ``seq``; each is removed from the graph
        and re-added if it is live now, which is idempotent whatever state the crash left. A graph the
        log cannot bring up to date (newer than the database, or older than the trimmed log) is rebuilt.
        """
        if self.directory is None or self.live <= self.exact_max:
            return
        path = self.directory / "hnsw.usearch"
        graph = None
        state = _read_state(self.directory)
        if path.exists() and state.get("format") != _FORMAT:
            why = "has no readable checksum record" if not state else "was saved without a checksum (older format)"
            self.repair = f"the HNSW graph {path} {why}; rebuilt it from the vectors in SQLite"
            log.warning("vector index: %s", self.repair)
        for _ in range(3):  # a reader can see the writer's new graph beside the old state: look again
            state = _read_state(self.directory)
            if state.get("format") != _FORMAT or state.get("dim") != self.dim or not path.exists():
                break
            saved = int(state.get("seq", 0))
            if saved > self.applied_seq or not log_covers(saved):
                break
            graph, problem = _restore_verified(path, state, self.dim)
            if problem is None or _read_state(self.directory) == state:
                if problem is not None:
                    self.repair = f"the HNSW graph {path} {problem}; rebuilt it from the vectors in SQLite"
                    log.warning("vector index: %s", self.repair)
                    self._saved_seq = None
                else:
                    self._saved_seq = saved
                break
        if graph is None:
            self._build_hnsw()
            return
        keys = np.asarray(sorted(set(changed_since(int(state["seq"])))), dtype=np.int64)
        if len(keys):
            graph.remove(keys.astype(np.uint64))
            rows = self._rows_of(keys)
            rows = rows[self._alive[rows]]
            if len(rows):
                graph.add(self._keys[rows].astype(np.uint64), self._matrix[rows], threads=0)
        self._set_ef(graph)
        self._hnsw = graph
        if len(graph) != self.live:  # a graph that disagrees with the truth is rebuilt, never trusted
            self._build_hnsw()
        self._unsaved = len(keys)

    def checkpoint(self, force: bool = False) -> None:
        """Persist the HNSW graph with the seq it reflects (only when it is worth the write)."""
        if self._hnsw is None or self.directory is None or (not force and self._unsaved < _SAVE_EVERY):
            return
        if self._unsaved == 0:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        tmp = self.directory / "hnsw.usearch.tmp"
        data = bytes(self._hnsw.save())
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())  # the checksum recorded next must describe bytes that are on disk
        os.replace(tmp, self.directory / "hnsw.usearch")
        _write_state(self.directory, {"format": _FORMAT, "dim": self.dim, "seq": self.applied_seq,
                                      "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()})
        self._saved_seq = self.applied_seq
        self._unsaved = 0

    def _set_ef(self, graph: HNSW, *, fresh: bool = True) -> None:
        """Give ``graph`` the beam for the current size; on a write only when the size crossed a step, so a
        beam set on purpose (a bench sweeping ef) stays until the default itself changes."""
        ef = self.ef or search_ef(self.live)
        if fresh or ef != self._ef:
            graph.expansion_search = ef
        self._ef = ef

    # ---------------------------------------------------------------------------------------- reads

    def mask(
        self,
        f: SearchFilter,
        allowed_items: np.ndarray | None = None,
        excluded_items: np.ndarray | None = None,
    ) -> np.ndarray:
        """Boolean row mask of live rows passing ``f``; ``allowed_items``/``excluded_items`` are item rowids."""
        n = self._n
        m = self._alive[:n].copy()
        codes = [_STATUS_CODE[s] for s in f.statuses if s in _STATUS_CODE]
        m &= _in_codes(self._status[:n], codes)
        if f.collections:
            m &= _in_codes(self._coll[:n], [self._coll_codes[c] for c in f.collections if c in self._coll_codes])
        if f.date_from is not None:
            m &= self._date[:n] >= f.date_from.toordinal()
        if f.date_to is not None:
            m &= (self._date[:n] <= f.date_to.toordinal()) & (self._date[:n] != NO_DATE)
        if not f.include_superseded:
            m &= ~self._superseded[:n]
        if f.tenant is not None:
            code = self._tenant_codes.get(f.tenant)
            m &= self._tenant[:n] == (-1 if code is None else code)
        if allowed_items is not None:
            m &= np.isin(self._item[:n], allowed_items)
        if excluded_items is not None and len(excluded_items):
            m &= ~np.isin(self._item[:n], excluded_items)
        return m

    def graph_applies(self, mask: np.ndarray) -> bool:
        """Whether :meth:`search` would consult the HNSW graph (else it is an exact scan of a snapshot)."""
        return self.uses_hnsw and int(mask.sum()) > self.exact_max

    def snapshot(self) -> tuple[np.ndarray, np.ndarray]:
        """``(matrix, keys)`` views of the rows as they are now, safe to scan without the caller's lock.

        Rows below ``_n`` are never written in place: appends go past them and compaction builds new
        arrays, so a view taken under the lock stays valid after it is released.
        """
        return self._matrix[: self._n], self._keys[: self._n]

    def search(self, query: np.ndarray, mask: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Top ``k`` live rows passing ``mask``: ``(chunk keys, cosine scores)``, best first."""
        allowed = int(mask.sum())
        if min(k, allowed) > 0 and self.uses_hnsw and allowed > self.exact_max:
            found = self._search_hnsw(query, mask, min(k, allowed), allowed)
            if found is not None:
                return found
        matrix, keys = self.snapshot()
        return exact_search(matrix, keys, query, mask, k)

    def _search_hnsw(self, query: np.ndarray, mask: np.ndarray, k: int, allowed: int) -> tuple[np.ndarray, np.ndarray] | None:
        assert self._hnsw is not None
        want = max(int(k * min(self.live / allowed, 64) * 1.5) + 16, _MIN_CANDIDATES)
        while want <= 8 * (k + 512):
            found = self._hnsw.search(query, min(want, self.live), threads=1)
            rows = self._rows_of(np.asarray(found.keys, dtype=np.int64))
            rows = rows[mask[rows]]
            if len(rows) >= k:
                top, scores = _rescored(self._matrix, rows, self._matrix[rows] @ query, query, k)
                return self._keys[top].copy(), scores
            if want >= self.live:
                break
            want *= 2
        # Too selective for the graph, or asking for more rows than the graph's beam reaches: the caller
        # scans the masked rows exactly, so the page is still full.
        return None


def exact_search(
    matrix: np.ndarray, keys: np.ndarray, query: np.ndarray, mask: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Exact top ``k`` of ``matrix @ query`` over rows where ``mask`` holds: ``(keys, scores)``, best first.

    A selective mask gathers its rows (cheap when few pass); otherwise one full matrix-vector product with
    the rejected rows set to −inf beats gathering most of the matrix.
    """
    allowed = int(mask.sum())
    k = min(k, allowed)
    if k <= 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    if allowed * 4 < len(mask):
        rows = np.flatnonzero(mask)
        top, scores = _rescored(matrix, rows, matrix[rows] @ query, query, k)
        return keys[top].copy(), scores
    scores = matrix @ query
    scores[~mask] = -np.inf
    top, exact = _rescored(matrix, None, scores, query, k)
    return keys[top].copy(), exact


def _rescored(matrix: np.ndarray, rows: np.ndarray | None, approx: np.ndarray, query: np.ndarray, k: int
              ) -> tuple[np.ndarray, np.ndarray]:
    """The top ``k`` of ``rows`` (every row when ``None``) by their exact scores, best first: ``(matrix rows,
    float32 scores)``. ``approx`` holds their float32 scores, which only choose the candidates to rescore.

    A float32 dot product of ``d`` terms is off by at most ``d·ε·Σ|aᵢqᵢ|`` ≤ ``d·ε·‖q‖`` for unit rows, so every
    row whose approximate score is within twice that of the ``k``-th one is rescored: the exact top ``k`` is among
    them whatever the rounding, and a page fetched with a larger ``k`` still extends a smaller one. A candidate's
    exact score is the float64 sum of its float64 products (each exact), rounded to float32: ~1e-16 off the true
    dot product, and the same bits for the same row in any matrix, at any place.
    """
    top = _top_k(approx, k)
    if len(top) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    slack = 2.0 * matrix.shape[1] * float(np.finfo(np.float32).eps) * max(1.0, float(np.linalg.norm(query)))
    near = np.flatnonzero(approx >= approx[top[-1]] - slack)  # in position order: _top_k's ties stay by position
    where = near if rows is None else rows[near]
    # an elementwise product and a sum along each row, not a matrix product: BLAS dgemv would block rows again.
    # In place: one temporary fewer was 1.1 ms instead of 13.7 ms for 1,005 rows beside the 100k-row product
    exact = matrix[where].astype(np.float64)
    exact *= query.astype(np.float64)
    exact = exact.sum(axis=1)
    best = _top_k(exact, k)
    return where[best], exact[best].astype(np.float32)


def _in_codes(values: np.ndarray, codes: Sequence[int]) -> np.ndarray:
    """``np.isin(values, codes)`` for a handful of codes. isin sorts: 24 ms per query over 1M rows under load,
    most of the vector leg's time above the graph search, against ~0.1 ms per code for a comparison."""
    if len(codes) > 8:
        return np.isin(values, codes)
    out = np.zeros(len(values), dtype=bool)
    for code in codes:
        out |= values == code
    return out


def _top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` largest scores, best first.

    Ties are broken by position, including at the cut-off (argpartition alone picks arbitrary members of
    a tie there), so a page fetched with a larger ``k`` always extends a smaller one.
    """
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    if k < len(scores):
        kth = scores[np.argpartition(-scores, k - 1)[k - 1]]
        above = np.flatnonzero(scores > kth)
        part = np.concatenate([above, np.flatnonzero(scores == kth)[: k - len(above)]])
    else:
        part = np.arange(len(scores))
    order = np.lexsort((part, -scores[part]))
    return part[order]


def _exact_rows(sorted_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    pos = np.searchsorted(sorted_keys, keys)
    ok = pos < len(sorted_keys)
    pos, keys = pos[ok], keys[ok]
    return pos[sorted_keys[pos] == keys]


def _restore_verified(path: Path, state: dict, dim: int) -> tuple[HNSW | None, str | None]:
    """The saved graph, or ``(None, what is wrong with it)``. usearch only ever sees bytes whose size and
    SHA-256 match what :meth:`VectorIndex.checkpoint` recorded: it trusts its input, and random bytes in a
    graph file crash the interpreter (SIGSEGV) or quietly change the candidates a search proposes.
    Hashing costs ~1 s per GB read; see /work/notes/bench-corruption.md for the figure at 100k chunks."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror})"
    if len(data) != state.get("bytes") or hashlib.sha256(data).hexdigest() != state.get("sha256"):
        return None, "failed its checksum (damaged or changed since it was written)"
    try:
        graph = _hnsw_class().restore(data, view=False)
    except (ValueError, RuntimeError, OSError) as exc:
        return None, f"could not be loaded ({exc})"
    if graph is None or graph.ndim != dim:
        return None, "holds a graph of another shape"
    # the saved file keeps the graph, not these two knobs: restored as is, usearch's defaults (search 64,
    # add 128) would replace the store's in every reopened process (the caller sets the search beam for its size)
    graph.expansion_search, graph.expansion_add = _EXPANSION_SEARCH, _EXPANSION_ADD
    return graph, None


def search_ef(live: int) -> int:
    """The default search beam for a graph over ``live`` rows (see ``_ROWS_PER_EF``)."""
    want = max(1, -(-live // _ROWS_PER_EF))
    return min(_MAX_EF, max(_EXPANSION_SEARCH, 1 << (want - 1).bit_length()))


def _read_state(directory: Path) -> dict:
    try:
        state = json.loads((directory / "applied.json").read_text())
    except (OSError, ValueError):
        return {}
    ints = ("format", "dim", "seq", "bytes")
    if not isinstance(state, dict) or any(not isinstance(state.get(k, 0), int) for k in ints):
        return {}  # damaged but still JSON: treated as no saved graph, so it is rebuilt
    return state


def _write_state(directory: Path, state: dict[str, int]) -> None:
    tmp = directory / "applied.json.tmp"
    tmp.write_text(json.dumps(state))
    os.replace(tmp, directory / "applied.json")


def _hnsw_class() -> type[HNSW]:
    """usearch's index class, imported on first use rather than with the store.

    onnxruntime is imported first on purpose: with onnxruntime 1.31.1 and usearch 2.26.6, importing
    onnxruntime *after* ``usearch.index`` kills the interpreter with SIGSEGV, and the embedder may load
    onnxruntime later in the same process. Stores under the exact-search size never import usearch at all.
    """
    import onnxruntime  # noqa: F401

    from usearch.index import Index

    return Index
