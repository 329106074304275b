"""Execute a ``RetrievalPlan``: legs, fusion, rewrites, rerank, gate, horizon relaxation, merge, page.

This is the I/O half of "plan, then run": every decision was made by the pure planner and is named in
the plan; this module only carries it out, in this order, and records what happened (per-leg ranks and
scores, per-stage latency, notes):

1. each lane (one per fan-out collection, or one for the whole plan) runs its legs concurrently at depth
   ``max(k_per_leg, offset + limit, gate_depth)`` and fuses them as planned (z-scores, with the graph leg
   in two stages, RRF, or the weighted profile);
2. the gate judges the fused top ``gate_depth`` of every lane — before paging, so page 1 and page 3 of
   one query get one verdict — and, below the threshold, the plan's one reformulation is tried;
3. the plan's rewrite (keyword feedback, dense Rocchio feedback, HyDE, multi-query) and rerank re-order
   the unpaged candidates, so later pages continue page 1's order (query/refine.py);
4. a lane the plan's guessed horizon left empty is searched again without the date bound;
5. lanes merge (dedupe by item id; fused score or recency), the page is cut, and only it is hydrated.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from ..errors import EmbeddingFailed, IndexUnavailable, ModelError
from ..models.base import LLM, Embedder, Reranker
from ..scope import caller_scope
from ..settings import RetrievalSettings
from ..store.base import ChunkView, Store
from ..store.text import analyze
from ..types import CollectionSpec, Evidence, EvidenceHit, GateVerdict, Hit, Leg, LegScore, RetrievalPlan
from .fusion import Fused, reciprocal_rank_fusion, zscore_fusion, zscore_graph_fusion
from .gate import gate_meta_key, judge_legs, parse_calibration
from .graph import NameVectors, graph_hits
from .judge import MultilingualJudge
from .merge import interleave_by_recency
from .refine import Lane as _Lane
from .refine import Refiner
from .refine import Run as _Run
from .scoring import feedback_boost, signals, weighted_score

__all__ = ["Retriever", "interleave_by_recency"]

# Distinct query texts whose vectors are kept (FIFO); 384 floats each, so 512 entries are ~0.8 MB.
QUERY_VECTOR_CACHE = 512
# Entities taken from each seeding passage: its first names (title, declared fields) are its subject; more
# would spread the restart mass thin.
PASSAGE_SEED_ENTITIES = 5


def scope_of(plan: RetrievalPlan) -> str:
    """The caller scope a plan runs for (its filter's tenant): what per-caller memos are keyed by."""
    return caller_scope(plan.filter.tenant)


class Retriever(Refiner):
    """Runs plans against one store and one embedder (and the configured reranker, if any).

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
        reranker: Reranker | None = None,
        llm: LLM | None = None,
        feedback: Callable[[str | None, Sequence[str]], Mapping[str, tuple[int, int]]] | None = None,
        judge: MultilingualJudge | None = None,
    ) -> None:
        self.store = store
        self.judge = judge  # the gate's judge for requests the embedder cannot read; the planner asks for it
        self.llm = llm  # HyDE's writer; the planner plans "hyde" only when one is configured
        self.feedback = feedback  # tenant, item ids -> (useful, marks): the weighted profile's feedback boost
        self.embedder = embedder
        self.settings = settings
        self.reranker = reranker
        self.specs: Mapping[str, CollectionSpec] = {c.name: c for c in collections}
        self._today = today
        self._pool = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="groundsearch-leg")
        # Fan-out jobs wait on leg jobs; sharing one pool deadlocks once collections >= max_workers.
        self._fan_pool = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="groundsearch-fan")
        self._query_vectors: dict[tuple[str, str], np.ndarray] = {}
        self._vectors_lock = threading.Lock()  # API worker threads share one retriever
        self._names = NameVectors(embedder)
        self._gate: tuple[float | None] | None = None  # the stored calibration, read once (None: not yet read)

    def clear_cache(self) -> int:
        """Forget memoised query vectors and the stored gate threshold (for cold timings, after a calibration,
        or an operator's cache clear); returns how many vectors."""
        with self._vectors_lock:
            n = len(self._query_vectors)
            self._query_vectors.clear()
            self._gate = None
        return n

    def stored_gate_threshold(self) -> float | None:
        """The gate threshold ``Engine.calibrate_gate`` stored for this embedder, read once per process (a
        per-search metadata read would cost Postgres a round trip); ``None`` when never calibrated."""
        cached = self._gate
        if cached is None:
            try:
                text = self.store.meta_get(gate_meta_key(self.embedder.model_id))
            except Exception:  # a store that is down fails the legs, which say so; the plan falls back, uncached
                return None
            cal = parse_calibration(text, self.embedder.model_id)
            cached = self._gate = (cal.threshold if cal is not None else None,)
        return cached[0]

    def close(self) -> None:
        self._fan_pool.shutdown(wait=False, cancel_futures=True)
        self._pool.shutdown(wait=False, cancel_futures=True)

    def embed_query(self, text: str, scope: str = "") -> np.ndarray:
        """The query's vector, memoised: one request embeds the same text once per fan-out collection,
        relaxed retry and rewrite pass, and embedding is the costliest step of a search (~10–20 ms idle).

        The memo is per caller ``scope`` (``groundsearch.scope``, ``scope_of(plan)``): a vector is the text's
        alone, but the embedding time is reported (``latency_ms``), and one memo for every tenant told a tenant
        that another had searched the same text."""
        key = (scope, text)
        cached = self._query_vectors.get(key)
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
            self._query_vectors[key] = vector
        return vector

    # ---- the plan, step by step -----------------------------------------------------------------------

    def retrieve(self, plan: RetrievalPlan) -> Evidence:
        started = time.perf_counter()
        run = _Run()
        lanes = self._lanes(plan, plan.query, run)
        verdict = self._judge(plan, plan.query, lanes, run)
        if not verdict.passed and plan.reformulation:
            t = time.perf_counter()
            second = self._lanes(plan, plan.reformulation, run, prefix="gate.")
            again = dataclasses.replace(self._judge(plan, plan.reformulation, second, run),
                                        reformulated=plan.reformulation)
            run.latency["gate.reformulate"] = (time.perf_counter() - t) * 1000
            if again.passed:
                run.note(f"gate: reformulated the query as {plan.reformulation!r} "
                         f"(the original found nothing relevant)")
            if again.passed or again.best_score > verdict.best_score:
                lanes, verdict = second, again
        query = verdict.reformulated or plan.query
        if plan.rewrite != "none" or (plan.rerank and self.reranker is not None):
            t = time.perf_counter()
            lanes = self._map_lanes(plan, lanes, lambda p, lane: self._refine(p, query, lane, run))
            run.latency["rewrite"] = (time.perf_counter() - t) * 1000
        if plan.relax_horizon:
            lanes = self._relax(plan, query, lanes, run)
        hits, has_more = self._page(plan, lanes, run)
        run.latency["retrieve"] = (time.perf_counter() - started) * 1000
        return Evidence(plan=plan, hits=hits, has_more=has_more, latency_ms=run.latency,
                        degraded=tuple(run.notes), gate=verdict, legs_down=tuple(sorted(run.down)))

    def _fanned(self, plan: RetrievalPlan) -> bool:
        return plan.pattern == "agentic" and len(plan.collections) > 1

    def _lane_plan(self, plan: RetrievalPlan, name: str | None) -> RetrievalPlan:
        if name is None:
            f = plan.filter
            if plan.collections and not f.collections:
                f = dataclasses.replace(f, collections=plan.collections)
            return dataclasses.replace(plan, filter=f)
        return dataclasses.replace(plan, pattern="pipeline", collections=(name,),
                                   filter=dataclasses.replace(plan.filter, collections=(name,)))

    def _lanes(self, plan: RetrievalPlan, query: str, run: _Run, prefix: str = "") -> dict[str | None, _Lane]:
        """First-pass candidates of every lane: legs run and fused, nothing re-ordered yet."""
        if not self._fanned(plan):
            return {None: self._first_pass(self._lane_plan(plan, None), query, run, prefix)}
        if "vector" in plan.legs and plan.profile != "keyword":
            self.embed_query(query, scope_of(plan))  # once, before the collections run concurrently
        futures = {name: self._fan_pool.submit(self._first_pass, self._lane_plan(plan, name), query, run,
                                               f"{prefix}{name}.")
                   for name in plan.collections}
        return {name: fut.result() for name, fut in futures.items()}

    def _map_lanes(self, plan: RetrievalPlan, lanes: dict[str | None, _Lane], fn) -> dict[str | None, _Lane]:  # noqa: ANN001
        return {name: fn(self._lane_plan(plan, name), lane) for name, lane in lanes.items()}

    def _judge(self, plan: RetrievalPlan, query: str, lanes: Mapping[str | None, _Lane], run: _Run) -> GateVerdict:
        if plan.gate_judge == "multilingual" and plan.gate_threshold > 0:
            return self._judge_multilingual(plan, query, lanes, run)
        return judge_legs([c.legs for lane in lanes.values() for c in lane.candidates[: plan.gate_depth]],
                          plan.gate_threshold)

    def _judge_multilingual(self, plan: RetrievalPlan, query: str, lanes: Mapping[str | None, _Lane],
                            run: _Run) -> GateVerdict:
        """e5's best cosine between the request and the lanes' top candidates (``query.judge``)."""
        # the lanes' best first, in turn, up to the gate's depth: e5 costs a few queries' time per passage
        tops = [lane.candidates[: plan.gate_depth] for lane in lanes.values()]
        keys = list(dict.fromkeys(c.key for rank in range(plan.gate_depth) for top in tops if rank < len(top)
                                  for c in (top[rank],)))[: plan.gate_depth]
        unjudged = GateVerdict(best_score=0.0, threshold=plan.gate_threshold, passed=True, measured=False)
        if self.judge is None:
            run.note("gate not judged: the plan asked for the multilingual judge, which this engine lacks")
            return unjudged
        t = time.perf_counter()
        views = self._views(keys, run)
        passages = [(views[k].chunk.id, ". ".join(part for part in (views[k].item.title, " > ".join(
            views[k].chunk.heading_path), views[k].chunk.text) if part)) for k in keys if k in views]
        try:
            best = self.judge.best(query, passages)
        except (EmbeddingFailed, ModelError) as exc:  # e5 missing or failing: answer unjudged, and say so
            run.note(f"gate not judged: the multilingual judge failed ({exc.message})")
            return unjudged
        finally:
            run.latency["gate.judge"] = run.latency.get("gate.judge", 0.0) + (time.perf_counter() - t) * 1000
        if best is None:
            return GateVerdict(best_score=0.0, threshold=plan.gate_threshold, passed=False)
        return GateVerdict(best_score=best, threshold=plan.gate_threshold, passed=best >= plan.gate_threshold)

    # ---- one lane -------------------------------------------------------------------------------------

    def _depth(self, plan: RetrievalPlan) -> int:
        single = plan.profile in ("keyword", "vector") and "graph" not in plan.legs
        need = max(plan.offset + plan.limit, plan.gate_depth, plan.rerank_depth)
        return need if single else max(plan.k_per_leg, need)

    def _first_pass(self, plan: RetrievalPlan, query: str, run: _Run, prefix: str) -> _Lane:
        ranked, more = self._run_legs(plan, query, plan.legs, run, prefix)
        t = time.perf_counter()
        fused = self._fuse(plan, query, ranked)
        run.latency[f"{prefix}fuse"] = (time.perf_counter() - t) * 1000
        return _Lane(fused, any(more.values()), ranked)

    def _run_legs(self, plan: RetrievalPlan, query: str, legs: Iterable[Leg], run: _Run, prefix: str,
                  vector: np.ndarray | None = None) -> tuple[dict[Leg, list[Hit]], dict[Leg, bool]]:
        f, depth = plan.filter, self._depth(plan)

        def keyword() -> tuple[list[Hit], bool]:
            try:
                page = self.store.keyword_search(query, f, depth, 0)
            except IndexUnavailable as exc:  # damaged or rebuilding: the vector leg answers alone, and says so
                run.note(f"keyword index unavailable, vector leg only: {exc.message}")
                run.down.add("keyword")
                return [], False
            return list(page.hits), page.has_more

        def dense() -> tuple[list[Hit], bool]:
            t = time.perf_counter()
            vec = vector if vector is not None else self.embed_query(query, scope_of(plan))
            run.latency[f"{prefix}embed"] = (time.perf_counter() - t) * 1000
            try:
                page = self.store.vector_search(vec, f, depth, 0)
            except IndexUnavailable as exc:
                run.note(f"vector index unavailable, keyword leg only: {exc.message}")
                run.down.add("vector")
                return [], False
            return list(page.hits), page.has_more

        def graph() -> tuple[list[Hit], bool]:
            seeds = list(plan.graph_seeds)
            if plan.graph_passage_seeds and "vector" in futures:
                top = [key for key, _ in futures["vector"].result()[0][: plan.graph_passage_seeds]]
                views = self._views(top, run)
                seeds += [e for k in top if k in views for e in views[k].chunk.entities[:PASSAGE_SEED_ENTITIES]]
            try:
                return graph_hits(self.store, list(dict.fromkeys(seeds)), f, depth,
                                  embedder=self._names.scoped(scope_of(plan))), False
            except EmbeddingFailed:
                raise
            except Exception as exc:  # an optional leg: the others still answer
                run.note(f"graph leg failed ({type(exc).__name__}: {exc}); fused without it")
                return [], False

        jobs = {"keyword": keyword, "vector": dense, "graph": graph}
        wanted = [leg for leg in legs if not (leg == "graph" and not plan.graph_seeds)]
        if plan.profile == "keyword":
            wanted = [leg for leg in wanted if leg != "vector"]
        elif plan.profile == "vector":
            wanted = [leg for leg in wanted if leg != "keyword"]

        def timed(leg: Leg) -> tuple[list[Hit], bool]:
            t = time.perf_counter()
            out = jobs[leg]()
            run.latency[f"{prefix}{leg}"] = (time.perf_counter() - t) * 1000
            return out

        futures: dict[Leg, Future] = {}
        for leg in sorted(wanted, key=lambda leg: leg == "graph"):  # the graph job may wait on the vector leg's
            futures[leg] = self._pool.submit(timed, leg)
        ranked: dict[Leg, list[Hit]] = {}
        more: dict[Leg, bool] = {}
        for leg, fut in futures.items():
            ranked[leg], more[leg] = fut.result()
        return ranked, more

    def _fuse(self, plan: RetrievalPlan, query: str, ranked: Mapping[Leg, list[Hit]]) -> list[Fused]:
        if len(ranked) == 1 and plan.profile in ("keyword", "vector"):
            ((leg, hits),) = ranked.items()
            return [Fused(key, score, (LegScore(leg, i + 1, score),)) for i, (key, score) in enumerate(hits)]
        if plan.fusion == "zscore" and plan.profile == "rrf":
            if ranked.get("graph"):
                return zscore_graph_fusion(ranked, k=plan.rrf_k, graph_weight=plan.graph_weight)
            return zscore_fusion({leg: hits for leg, hits in ranked.items() if leg != "graph"})
        fused = reciprocal_rank_fusion(ranked, k=plan.rrf_k)
        if plan.profile == "weighted":
            fused = self._weighted(plan, query, ranked, fused)
        return fused

    def _relax(self, plan: RetrievalPlan, query: str, lanes: dict[str | None, _Lane], run: _Run) -> dict[str | None, _Lane]:
        """A horizon the intent guessed ("latest") must not empty a collection the user asked for: such a
        lane is searched again without the date bound, and the answer says so."""
        out = dict(lanes)
        for name, lane in lanes.items():
            if lane.candidates:
                continue
            lane_plan = self._lane_plan(plan, name)
            relaxed_plan = dataclasses.replace(lane_plan, filter=dataclasses.replace(lane_plan.filter, date_from=None))
            relaxed = self._first_pass(relaxed_plan, query, run, "relaxed.")
            if relaxed.candidates:
                where = name or ", ".join(plan.collections) or "any collection"
                run.note(f"retrieve: nothing in {where} since {plan.filter.date_from.isoformat()}; "  # type: ignore[union-attr]
                         f"showing its best matches from any date")
                out[name] = relaxed
        return out

    # ---- merge and page ---------------------------------------------------------------------------------

    def _page(self, plan: RetrievalPlan, lanes: Mapping[str | None, _Lane], run: _Run) -> tuple[tuple[EvidenceHit, ...], bool]:
        end = plan.offset + plan.limit
        more = any(lane.more for lane in lanes.values())
        if None in lanes:
            cands = lanes[None].candidates
            hits = self._hits(cands[plan.offset:end], run)
            return tuple(hits), more or len(cands) > end
        merged: dict[str, EvidenceHit] = {}
        for lane in lanes.values():  # de-duplicate by canonical item id, keeping the best-scored hit
            for hit in self._hits(lane.candidates[:end], run):
                kept = merged.get(hit.item.id)
                if kept is None or hit.score > kept.score:
                    merged[hit.item.id] = hit
        if plan.merge == "recency":
            order = interleave_by_recency(plan.collections, merged.values())
        else:
            order = sorted(merged.values(), key=lambda h: (-h.score, h.chunk.id))
        more = more or any(len(lane.candidates) > end for lane in lanes.values())
        return tuple(order[plan.offset:end]), more or len(order) > end

    def _views(self, keys: Sequence[int], run: _Run) -> dict[int, ChunkView]:
        missing = [k for k in keys if k not in run.views]
        if missing:
            t = time.perf_counter()
            fetched = self.store.hydrate(missing)
            with run.lock:
                run.views.update(fetched)
                run.latency["hydrate"] = run.latency.get("hydrate", 0.0) + (time.perf_counter() - t) * 1000
        return {k: run.views[k] for k in keys if k in run.views}

    def _hits(self, fused: Sequence[Fused], run: _Run) -> list[EvidenceHit]:
        """Hydrated hits; a key whose chunk was deleted meanwhile is absent from ``hydrate`` and skipped."""
        views = self._views([x.key for x in fused], run)
        return [EvidenceHit(chunk=views[x.key].chunk, item=views[x.key].item, score=x.score, legs=x.legs)
                for x in fused if x.key in views]

    def _chunk_vector(self, hit: EvidenceHit) -> np.ndarray | None:
        vectors = self.store.item_vectors(hit.item.id)
        return vectors[hit.chunk.position] if hit.chunk.position < len(vectors) else None

    def _weighted(self, plan: RetrievalPlan, query: str, ranked: Mapping[Leg, list[Hit]], fused: list[Fused]) -> list[Fused]:
        """Re-score the union of both legs' candidates with the weighted profile.

        A keyword-only candidate's cosine is unknown without fetching its vector; it is estimated as the
        lowest cosine the vector leg returned, an upper bound on its true cosine (it ranked below all of
        them), which keeps such candidates honest without an extra round trip per hit.
        """
        cosines = dict(ranked.get("vector", []))
        floor = min(cosines.values()) if cosines else 0.0
        views = self.store.hydrate([x.key for x in fused])
        query_terms = frozenset(analyze(query))
        today = self._today or dt.date.today()
        profile = self.settings.weighted
        marks = self._marks(plan, [v.item.id for v in views.values()])
        rescored = []
        for x in fused:
            view = views.get(x.key)
            if view is None:
                continue
            s = signals(query_terms, view.item, cosines.get(x.key, floor), self.specs.get(view.item.collection),
                        today, profile)
            boost = feedback_boost(*marks.get(view.item.id, (0, 0)), profile)
            rescored.append(dataclasses.replace(x, score=weighted_score(s, profile) * boost))
        rescored.sort(key=lambda x: -x.score)  # stable: equal scores keep RRF's backend-independent order
        return rescored


    def _marks(self, plan: RetrievalPlan, item_ids: Sequence[str]) -> Mapping[str, tuple[int, int]]:
        """The caller's tenant's feedback on these items; none (no boost) when telemetry is off or fails."""
        if self.feedback is None or not self.settings.weighted.feedback or not item_ids:
            return {}
        try:
            return self.feedback(plan.filter.tenant, list(dict.fromkeys(item_ids)))
        except Exception:  # feedback only ever lifts; without it the weighted ranking is the plain one
            return {}
