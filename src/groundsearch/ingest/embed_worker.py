"""Fill in the vectors of chunks stored without one: ingest writes text first, this embeds it afterwards.

Why deferred: embedding is ~50× slower than everything else ingest does, so an ingest that waited for it
kept its items unsearchable for minutes. Now the text is written (and keyword-searchable) at once and the
vectors follow, from ``groundsearch embed``, from the tail of a CLI ingest, or from the background thread
inside ``groundsearch serve`` (:class:`BackgroundEmbedder`).

Crash safety needs no bookkeeping of its own: "pending" *is* the stored state (a chunk without a vector),
each window's vectors are one store transaction, and a chunk deleted or replaced meanwhile is skipped by
the store. A process killed mid-way loses at most the window in flight, and the next run resumes from the
chunks still pending.

Throughput: a window of ``window`` pending chunks goes to the embedder in one call, and the embedder sorts
it by token length and pads each batch only to its longest member (length buckets); a bigger window buys
tighter buckets for a little memory. Texts that break the model are retried one by one so a single bad
chunk costs only itself; it is reported and skipped for the rest of the run.

After the chunk vectors, the same run embeds each chunk's quotable sentences for extractive answers
(:func:`embed_sentences`; why: :mod:`groundsearch.store.sentence_rows`), so an answer reads them from
the store instead of embedding on first sight. The chunk vectors go first: search needs them, answers
only get faster with the sentences.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..answer.sentences import embed_text, quotable
from ..errors import EmbeddingFailed
from ..models.base import Embedder
from ..store.base import Store
from .pipeline import embedding_text

__all__ = ["BackgroundEmbedder", "EmbedProgress", "EmbedReport", "embed_pending", "embed_sentences"]

log = logging.getLogger("groundsearch.embed")

WINDOW = 256  # pending chunks per embedder call and per store transaction


@dataclass(frozen=True, slots=True)
class EmbedProgress:
    embedded: int  # chunks given vectors so far in this run
    pending: int  # chunks still without a vector when the run last looked
    failed: int
    seconds: float


@dataclass(frozen=True, slots=True)
class EmbedReport:
    embedded: int
    remaining: int  # chunks still pending at the end (failures, or chunks written meanwhile)
    failed: tuple[tuple[int, str], ...]  # (chunk key, why)
    seconds: float
    sentence_chunks: int = 0  # chunks whose quotable sentences were embedded and stored in this run
    sentences_after: int = 0  # the last chunk key the sentence pass looked at (the next run's cursor)


def embed_pending(store: Store, embedder: Embedder, kinds: Mapping[str, str], *, window: int = WINDOW,
                  progress: Callable[[EmbedProgress], None] | None = None,
                  stop: Callable[[], bool] = lambda: False, skip: set[int] | None = None,
                  sentences_after: int = 0) -> EmbedReport:
    """Embed every chunk pending when the run reaches it; ``kinds`` maps a collection to its kind (what
    :func:`~groundsearch.ingest.pipeline.embedding_text` puts in front of the chunk). ``skip``: keys that
    failed before (the background thread keeps them across runs), extended with this run's failures.
    ``sentences_after``: where the sentence pass resumes (the background thread passes the last run's
    ``sentences_after``, so a serving process does not re-scan every chunk each second; new chunks get
    higher keys)."""
    started = time.perf_counter()
    skip = set() if skip is None else skip
    failed: list[tuple[int, str]] = []
    embedded = 0
    pending = store.count_pending_vectors()
    # A store other processes embed into too (Postgres behind several workers) hands out claims, so each
    # chunk is embedded by one of them; the chunks another embedder holds are its work, not a failure here.
    claims = _LazyClaims(store) if hasattr(store, "vector_claims") else None
    try:
        for keys in _turns(store, window, stop) if pending else ():
            keys = [k for k in keys if k not in skip]
            if claims is not None:
                keys = claims.acquire(keys)
            try:
                embedded += _embed_window(store, embedder, kinds, keys, failed, skip)
            finally:
                if claims is not None:
                    claims.release(keys)
            if progress is not None:
                progress(EmbedProgress(embedded, max(0, pending - embedded), len(failed),
                                       time.perf_counter() - started))
        # the sentences after every chunk vector: search needs those, answers only get faster with these;
        # under the same claims, so two workers do not embed one chunk's sentences twice either
        sentence_chunks, sentences_after = embed_sentences(store, embedder, window=window, stop=stop,
                                                           after=sentences_after, claims=claims)
    finally:
        if claims is not None:
            claims.close()
    return EmbedReport(embedded=embedded, remaining=store.count_pending_vectors(), failed=tuple(failed),
                       seconds=time.perf_counter() - started, sentence_chunks=sentence_chunks,
                       sentences_after=sentences_after)


def _turns(store: Store, window: int, stop: Callable[[], bool]) -> Iterator[list[int]]:
    """The pending chunks' keys, a window at a time, taking turns between tenants: the next window is the
    tenant's with chunks waiting whose last turn is longest ago (never, for one that just uploaded), its lowest
    keys first — the ingest queue's rule (``interfaces/api/routes_jobs.py``). In plain key order one tenant's
    backlog held back every other tenant's vectors (tests/security/test_embed_turns.py). Each tenant keeps a
    cursor, so a key yielded once (embedded, failed or claimed by another worker) is not yielded again."""
    first = store.pending_vectors(0, 1)
    if not first:
        return
    floor = first[0] - 1  # nothing below the lowest pending key is waiting: every query starts above it
    cursors: dict[str, int] = {}
    last: dict[str, int] = {}
    for turn in itertools.count():
        if stop():
            return
        for tenant in sorted(store.pending_vector_tenants(floor), key=lambda t: (last.get(t, -1), t)):
            keys = store.pending_vectors(cursors.get(tenant, floor), window, tenant=tenant)
            if keys:
                break
        else:
            return  # what still waits is below its tenant's cursor: failed, or another worker's claim
        cursors[tenant], last[tenant] = keys[-1], turn
        yield keys


def embed_sentences(store: Store, embedder: Embedder, *, window: int = WINDOW,
                    stop: Callable[[], bool] = lambda: False, after: int = 0,
                    claims: Any = None) -> tuple[int, int]:
    """Embed and store the quotable sentences of every chunk above key ``after`` that has none stored for
    this embedder; returns how many chunks got their row and the last key looked at. A chunk whose
    sentences break the model gets an empty row (logged): its answers embed on first sight, as every
    answer did before, instead of retrying forever. ``claims``: the store's chunk claims
    (``store/pg_claims.py``) when other processes embed into it too; a chunk another one holds is left to it."""
    model = embedder.model_id
    done = 0
    while not stop():
        keys = store.pending_sentences(model, after, window)
        if not keys:
            break
        after = keys[-1]
        if claims is not None:
            keys = claims.acquire_sentences(keys, model)
        try:
            done += _embed_sentence_window(store, embedder, model, keys)
        finally:
            if claims is not None:
                claims.release_sentences(keys)
    return done, after


def _embed_sentence_window(store: Store, embedder: Embedder, model: str, keys: list[int]) -> int:
    if not keys:
        return 0
    views = store.hydrate(keys)
    texts = {k: [embed_text(s) for s in quotable(views[k].item, views[k].chunk)] for k in keys if k in views}
    flat = [t for ts in texts.values() for t in ts]
    none = np.zeros((0, embedder.dim), np.float32)
    rows = []
    try:
        vectors = embedder.embed_passages(flat) if flat else none
        start = 0
        for k, ts in texts.items():
            rows.append((k, ts, vectors[start:start + len(ts)]))
            start += len(ts)
    except EmbeddingFailed:
        rows = []
        for k, ts in texts.items():
            try:
                rows.append((k, ts, embedder.embed_passages(ts) if ts else none))
            except EmbeddingFailed as exc:
                log.warning("the sentences of chunk %d cannot be embedded: %s", k, exc.message)
                rows.append((k, [], none))
    return store.set_sentences(model, rows)


class _LazyClaims:
    """The store's claims, connected only on first use: the background thread polls every second, and most
    polls find nothing pending."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._claims: Any = None

    def __getattr__(self, name: str) -> Any:
        if self._claims is None:
            self._claims = self._store.vector_claims()  # type: ignore[attr-defined]
        return getattr(self._claims, name)

    def close(self) -> None:
        if self._claims is not None:
            self._claims.close()


def _embed_window(store: Store, embedder: Embedder, kinds: Mapping[str, str], keys: list[int],
                  failed: list[tuple[int, str]], skip: set[int]) -> int:
    views = store.hydrate(keys)
    keys = [k for k in keys if k in views]  # deleted since it was listed
    if not keys:
        return 0
    texts = [embedding_text(views[k].item, views[k].chunk, kinds.get(views[k].item.collection, "documents"))
             for k in keys]
    try:
        vectors = embedder.embed_passages(texts)
    except EmbeddingFailed:
        keys, vectors = _one_by_one(embedder, keys, texts, failed)
        skip.update(k for k, _ in failed)
        if not keys:
            return 0
    return store.set_vectors(keys, vectors)


def _one_by_one(embedder: Embedder, keys: list[int], texts: list[str],
                failed: list[tuple[int, str]]) -> tuple[list[int], object]:
    ok, rows = [], []
    for key, text in zip(keys, texts):
        try:
            rows.append(embedder.embed_passages([text])[0])
            ok.append(key)
        except EmbeddingFailed as exc:
            failed.append((key, exc.message))
            log.warning("chunk %d cannot be embedded: %s", key, exc.message)
    return ok, (np.stack(rows) if rows else np.zeros((0, embedder.dim), np.float32))


@dataclass
class EmbedStatus:
    running: bool = False
    embedded: int = 0
    failed: int = 0
    last_error: str | None = None
    runs: int = 0


class BackgroundEmbedder:
    """The thread inside ``serve``: every ``interval`` seconds (or at once after :meth:`wake`) it picks up
    other processes' commits (a CLI ingest beside the server) and embeds whatever is pending."""

    def __init__(self, store: Store, embedder: Embedder, kinds: Mapping[str, str], *, interval: float = 1.0,
                 window: int = WINDOW) -> None:
        self._store, self._embedder, self._kinds = store, embedder, dict(kinds)
        self._interval, self._window = interval, window
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._skip: set[int] = set()
        self._sentences_after = 0
        self._thread: threading.Thread | None = None
        self.status = EmbedStatus()

    def start(self) -> BackgroundEmbedder:
        self._thread = threading.Thread(target=self._loop, name="groundsearch-embed", daemon=True)
        self._thread.start()
        return self

    def wake(self) -> None:
        self._wake.set()

    def stop(self, timeout: float = 30.0) -> None:
        """Stop after the window in flight (its vectors are stored; nothing else is pending on us)."""
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _loop(self) -> None:
        while not self._stopping.is_set():
            try:
                refresh = getattr(self._store, "refresh", None)  # the embedded store: index others' commits
                if refresh is not None:
                    refresh()
                self.status.running = True
                report = embed_pending(self._store, self._embedder, self._kinds, window=self._window,
                                       stop=self._stopping.is_set, skip=self._skip,
                                       sentences_after=self._sentences_after)
                self._sentences_after = report.sentences_after
                self.status.embedded += report.embedded
                self.status.failed = len(self._skip)
                self.status.runs += 1
                if report.embedded:
                    log.info("embedded %d pending chunks in %.1f s", report.embedded, report.seconds)
            except Exception as exc:  # noqa: BLE001 — a background thread has no caller; keep serving, say why
                self.status.last_error = f"{type(exc).__name__}: {exc}"
                log.error("background embedding failed: %s", exc)
            finally:
                self.status.running = False
            self._wake.wait(self._interval)
            self._wake.clear()
