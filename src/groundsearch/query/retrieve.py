"""Execute a ``RetrievalPlan``: run the legs concurrently, fuse, hydrate, merge collections.

This is the I/O half of "plan, then run": the plan is decided elsewhere (pure), this module only
carries it out and records what happened (per-leg ranks and scores, per-stage latency).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from ..errors import EmbeddingFailed, IndexUnavailable
from ..models.base import Embedder
from ..settings import RetrievalSettings
from ..store.base import Store
from ..store.text import analyze
from ..types import CollectionSpec, Evidence, EvidenceHit, Hit, Leg, LegScore, RetrievalPlan
from .fusion import Fused, reciprocal_rank_fusion
from .graph import graph_hits
from .scoring import signals, weighted_score

__all__ = ["Retriever", "interleave_by_recency"]

# Distinct query texts whose vectors are kept (FIFO); 384 floats each, so 512 entries are ~0.8 MB.
QUERY_VECTOR_CACHE = 512


class Retriever:
    """Runs plans against one store and one embedder. Holds a small thread pool for the legs.

    The keyword leg (tantivy / SQL) and the vector leg (query embedding + numpy / pgvector) release the
    GIL for most of their work, so threads give real overlap on two cores.
    """

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        settings: RetrievalSettings,
        collections: Sequence[CollectionSpec],
        *,
        today: dt.date | None = None,
        max_workers: int = 4,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings
        self.specs: Mapping[str, CollectionSpec] = {c.name: c for c in collections}
        self._today = today
        self._pool = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="groundsearch-leg")
        # Fan-out jobs wait on leg jobs; sharing one pool deadlocks once collections >= max_workers.
        self._query_vectors: dict[str, np.ndarray] = {}
        self._vectors_lock = threading.Lock()  # API worker threads share one retriever
        self._fan_pool = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="groundsearch-fan")

    def clear_cache(self) -> int:
        """Forget memoised query vectors (for cold timings, or an operator's cache clear); returns how many."""
        with self._vectors_lock:
            n = len(self._query_vectors)
            self._query_vectors.clear()
        return n

    def close(self) -> None:
        self._fan_pool.shutdown(wait=False, cancel_futures=True)
        self._pool.shutdown(wait=False, cancel_futures=True)

    # ---------------------------------------------------------------------------------------------

    def embed_query(self, text: str) -> np.ndarray:
        """The query's vector, memoised: one request embeds the same text once per fan-out collection,
        relaxed retry and rewrite pass, and embedding is the costliest step of a search (~10–20 ms idle)."""
        cached = self._query_vectors.get(text)
        if cached is not None:
            return cached
        try:
            vector = self.embedder.embed_queries([text])[0]
        except EmbeddingFailed:
            raise
        except Exception as exc:  # the embedder can't run: the caller must know (HTTP 503), no partial results
            raise EmbeddingFailed(f"the embedder could not embed the query: {exc}") from exc
        with self._vectors_lock:
            if len(self._query_vectors) >= QUERY_VECTOR_CACHE:
                self._query_vectors.pop(next(iter(self._query_vectors)), None)
            self._query_vectors[text] = vector
        return vector

    def retrieve(self, plan: RetrievalPlan) -> Evidence:
        """Carry out ``plan``. Fan-out plans (several collections, pattern "agentic") run one hybrid
        retrieval per collection concurrently and merge by ``plan.merge``; others run once."""
        if plan.pattern == "agentic" and len(plan.collections) > 1:
            return self._fan_out(plan)
        return self._retrieve_one(plan)

    # ---------------------------------------------------------------------------------------------

    def _retrieve_one(self, plan: RetrievalPlan) -> Evidence:
        started = time.perf_counter()
        latency: dict[str, float] = {}
        f = plan.filter
        if plan.collections and not f.collections:
            f = dataclasses.replace(f, collections=plan.collections)
        depth = max(plan.k_per_leg, plan.offset + plan.limit)
        single_leg = plan.profile in ("keyword", "vector")
        # single-leg profiles page in the store itself; fused profiles fuse the top `depth` of each leg
        leg_offset, leg_limit = (plan.offset, plan.limit) if single_leg else (0, depth)

        futures: dict[Leg, Future] = {}
        wants_keyword = "keyword" in plan.legs and plan.profile != "vector"
        wants_vector = "vector" in plan.legs and plan.profile != "keyword"
        wants_graph = "graph" in plan.legs and not single_leg and bool(plan.graph_seeds)

        degraded: list[str] = []

        def keyword() -> tuple[list[Hit], bool, float]:
            t = time.perf_counter()
            try:
                page = self.store.keyword_search(plan.query, f, leg_limit, leg_offset)
            except IndexUnavailable as exc:  # damaged or rebuilding: the vector leg answers alone, and says so
                degraded.append(f"keyword index unavailable, vector leg only: {exc.message}")
                return [], False, (time.perf_counter() - t) * 1000
            return list(page.hits), page.has_more, (time.perf_counter() - t) * 1000

        def vector() -> tuple[list[Hit], bool, float]:
            t = time.perf_counter()
            vec = self.embed_query(plan.query)
            latency["embed"] = (time.perf_counter() - t) * 1000
            try:
                page = self.store.vector_search(vec, f, leg_limit, leg_offset)
            except IndexUnavailable as exc:
                degraded.append(f"vector index unavailable, keyword leg only: {exc.message}")
                return [], False, (time.perf_counter() - t) * 1000
            return list(page.hits), page.has_more, (time.perf_counter() - t) * 1000

        def graph() -> tuple[list[Hit], bool, float]:
            t = time.perf_counter()
            try:
                hits = graph_hits(self.store, plan.graph_seeds, f, leg_limit)
            except Exception as exc:  # an optional leg: the other two still answer
                degraded.append(f"graph leg failed ({type(exc).__name__}: {exc}); fused without it")
                hits = []
            return hits, False, (time.perf_counter() - t) * 1000

        if wants_keyword:
            futures["keyword"] = self._pool.submit(keyword)
        if wants_vector:
            futures["vector"] = self._pool.submit(vector)
        if wants_graph:
            futures["graph"] = self._pool.submit(graph)
        ranked: dict[Leg, list[Hit]] = {}
        more: dict[Leg, bool] = {}
        for leg, fut in futures.items():
            hits, has_more, ms = fut.result()
            ranked[leg], more[leg] = hits, has_more
            latency[leg] = ms

        t = time.perf_counter()
        if single_leg:
            leg = "keyword" if plan.profile == "keyword" else "vector"
            hits = ranked.get(leg, [])
            fused = [
                Fused(key, score, (LegScore(leg, plan.offset + i + 1, score),))
                for i, (key, score) in enumerate(hits)
            ]
            window, has_more = fused, more.get(leg, False)
        else:
            fused = reciprocal_rank_fusion(ranked, k=plan.rrf_k)
            if plan.profile == "weighted":
                fused = self._weighted(plan, ranked, fused)
            window = fused[plan.offset : plan.offset + plan.limit]
            has_more = len(fused) > plan.offset + plan.limit or any(more.values())
        latency["fuse"] = (time.perf_counter() - t) * 1000

        t = time.perf_counter()
        views = self.store.hydrate([x.key for x in window])
        hits_out = tuple(
            EvidenceHit(chunk=views[x.key].chunk, item=views[x.key].item, score=x.score, legs=x.legs)
            for x in window
            if x.key in views
        )
        latency["hydrate"] = (time.perf_counter() - t) * 1000
        latency["retrieve"] = (time.perf_counter() - started) * 1000
        return Evidence(plan=plan, hits=hits_out, has_more=has_more, latency_ms=latency, degraded=tuple(degraded))

    def _weighted(self, plan: RetrievalPlan, ranked: Mapping[Leg, list[Hit]], fused: list[Fused]) -> list[Fused]:
        """Re-score the union of both legs' candidates with the weighted profile.

        A keyword-only candidate's cosine is unknown without fetching its vector; it is estimated as the
        lowest cosine the vector leg returned, an upper bound on its true cosine (it ranked below all of
        them), which keeps such candidates honest without an extra round trip per hit.
        """
        vector_hits = ranked.get("vector", [])
        cosines = dict(vector_hits)
        floor = min(cosines.values()) if cosines else 0.0
        views = self.store.hydrate([x.key for x in fused])
        query_terms = frozenset(analyze(plan.query))
        today = self._today or dt.date.today()
        profile = self.settings.weighted
        rescored = []
        for x in fused:
            view = views.get(x.key)
            if view is None:
                continue
            s = signals(query_terms, view.item, cosines.get(x.key, floor), self.specs.get(view.item.collection),
                        today, profile)
            rescored.append(dataclasses.replace(x, score=weighted_score(s, profile)))
        rescored.sort(key=lambda x: -x.score)  # stable: equal scores keep RRF's backend-independent order
        return rescored

    def _fan_out(self, plan: RetrievalPlan) -> Evidence:
        started = time.perf_counter()
        if "vector" in plan.legs and plan.profile != "keyword":
            self.embed_query(plan.query)  # once, before the collections run concurrently and would each embed it
        per_collection = {
            name: self._fan_pool.submit(
                self._retrieve_one,
                dataclasses.replace(plan, pattern="pipeline", collections=(name,), offset=0,
                                    limit=plan.offset + plan.limit,
                                    filter=dataclasses.replace(plan.filter, collections=(name,))),
            )
            for name in plan.collections
        }
        results = {name: fut.result() for name, fut in per_collection.items()}
        merged: dict[str, EvidenceHit] = {}
        for name in plan.collections:  # de-duplicate by canonical item id, keeping the best-scored hit
            for hit in results[name].hits:
                kept = merged.get(hit.item.id)
                if kept is None or hit.score > kept.score:
                    merged[hit.item.id] = hit
        if plan.merge == "recency":
            order = interleave_by_recency(plan.collections, merged.values())
        else:
            order = sorted(merged.values(), key=lambda h: (-h.score, h.chunk.id))
        window = tuple(order[plan.offset : plan.offset + plan.limit])
        latency = {f"{name}.{k}": v for name, ev in results.items() for k, v in ev.latency_ms.items()}
        latency["retrieve"] = (time.perf_counter() - started) * 1000
        return Evidence(
            plan=plan,
            hits=window,
            has_more=len(order) > plan.offset + plan.limit or any(ev.has_more for ev in results.values()),
            latency_ms=latency,
            degraded=tuple(note for ev in results.values() for note in ev.degraded),
        )


def interleave_by_recency(collections: Sequence[str], hits: Iterable[EvidenceHit]) -> list[EvidenceHit]:
    """Union by recency, taken in turns: each collection's hits newest first, then round-robin.

    A single global date sort lets the collection with the newest dates starve the others (releases
    dated this year bury every paper), which defeats a fan-out the user asked for ("research *and*
    product releases"). Each collection's list is already its most relevant hits, so recency orders
    within relevance, and every collection gets an equal share of the first page.
    """
    lanes: dict[str, list[EvidenceHit]] = {name: [] for name in collections}
    for hit in hits:
        lanes.setdefault(hit.item.collection, []).append(hit)
    for lane in lanes.values():
        lane.sort(key=lambda h: (h.item.date or dt.date.min, h.score, h.chunk.id), reverse=True)
    out: list[EvidenceHit] = []
    for i in range(max((len(lane) for lane in lanes.values()), default=0)):
        out.extend(lane[i] for lane in lanes.values() if i < len(lane))
    return out
