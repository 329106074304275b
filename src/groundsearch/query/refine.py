"""The plan's rewrite and rerank over one lane's unpaged candidates: the third step of ``Retriever.retrieve``.

Keyword feedback (PRF), dense feedback (Rocchio), HyDE and multi-query each re-run a leg or the whole
first pass and fuse again; the reranker then re-orders the fused head. Every one of them is decided by
the planner and named in the plan; here they are only carried out. ``Refiner`` is mixed into
``query.retrieve.Retriever``, whose legs, fusion and hydration it uses.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from ..models import metering
from ..scope import caller_scope
from ..store.base import ChunkView
from ..types import Hit, Leg, RetrievalPlan
from .fusion import Fused, fuse_runs
from .hyde import hyde_passage, hyde_vector
from .rewrite import PRF_DOCS, ROCCHIO_DOCS, prf_terms, rocchio

__all__ = ["Lane", "Refiner", "Run"]


@dataclass
class Lane:
    candidates: list[Fused]  # fused, unpaged, best first
    more: bool  # a leg had more than it returned
    ranked: dict[Leg, list[Hit]] = field(default_factory=dict)  # the legs' own rankings behind them


@dataclass
class Run:
    """Per-request bookkeeping, shared by the lanes of one request (never between requests)."""

    latency: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    views: dict[int, ChunkView] = field(default_factory=dict)  # hydrated once per request
    down: set[str] = field(default_factory=set)  # legs whose index was unavailable in this request
    lock: threading.Lock = field(default_factory=threading.Lock)

    def note(self, text: str) -> None:
        with self.lock:
            self.notes.append(text)


class Refiner:
    """Rewrites and rerank, for a class that has ``_run_legs``, ``_fuse``, ``_hits``, ``_views``,
    ``_chunk_vector``, ``embed_query`` and the attributes ``llm``, ``embedder`` and ``reranker``."""

    def _refine(self, plan: RetrievalPlan, query: str, lane: Lane, run: Run) -> Lane:
        """The plan's rewrite, then its rerank, over one lane's unpaged candidates."""
        fused = lane.candidates
        if plan.rewrite == "prf" and fused:
            terms = prf_terms(query, self._hits(fused[:PRF_DOCS], run))
            if terms:
                ranked, _ = self._run_legs(plan, f"{query} {' '.join(terms)}", ("keyword",), run, "prf.")
                fused = fuse_runs([fused, self._fuse(dataclasses.replace(plan, profile="keyword"), query, ranked)],
                                  k=plan.rrf_k)
        elif plan.rewrite == "rocchio" and fused and "keyword" in run.down:
            # feedback was planned for both text legs; with the keyword index down the vector leg answers alone,
            # exactly as a vector-only plan would (which never moves its own query)
            run.note("rewrite rocchio skipped: the keyword leg did not run")
        elif plan.rewrite == "rocchio" and fused:
            top = self._hits(fused[:ROCCHIO_DOCS], run)
            vectors = [v for v in (self._chunk_vector(h) for h in top) if v is not None]
            if vectors:
                moved = rocchio(self.embed_query(query, caller_scope(plan.filter.tenant)), np.stack(vectors))
                ranked, _ = self._run_legs(plan, query, ("vector",), run, "rocchio.", vector=moved)
                fused = self._fuse(plan, query, {**lane.ranked, **ranked})  # the moved vector leg replaces the first
        elif plan.rewrite == "hyde" and self.llm is not None:
            fused = self._hyde(plan, query, lane, run)
        elif plan.rewrite == "multi_query":
            runs = [fused]
            for sub in plan.sub_queries:
                ranked, _ = self._run_legs(plan, sub, plan.legs, run, "multi.")
                runs.append(self._fuse(plan, sub, ranked))
            fused = fuse_runs(runs, k=plan.rrf_k)
        if plan.rerank and self.reranker is not None and fused:
            fused = self._rerank(plan, query, fused, run)
        return Lane(fused, lane.more, lane.ranked)

    def _hyde(self, plan: RetrievalPlan, query: str, lane: Lane, run: Run) -> list[Fused]:
        """The vector leg again from the query's and a hypothetical answer's mean vector; the keyword leg
        keeps the query's own ranking. A failed or empty generation keeps the first pass, and says so."""
        assert self.llm is not None
        t = time.perf_counter()
        try:
            with metering.stage("rewrite"):
                passage = hyde_passage(self.llm, query)
        except Exception as exc:  # an optional stage: the first pass still answers
            run.note(f"hyde: the LLM failed ({type(exc).__name__}: {exc}); kept the first pass")
            return lane.candidates
        finally:
            run.latency["hyde.generate"] = (time.perf_counter() - t) * 1000
        if not passage:
            run.note("hyde: the LLM wrote nothing; kept the first pass")
            return lane.candidates
        moved = hyde_vector(self.embed_query(query, caller_scope(plan.filter.tenant)),
                            self.embedder.embed_passages([passage])[0])
        ranked, _ = self._run_legs(plan, query, ("vector",), run, "hyde.", vector=moved)
        return self._fuse(plan, query, {**lane.ranked, **ranked})

    def _rerank(self, plan: RetrievalPlan, query: str, fused: list[Fused], run: Run) -> list[Fused]:
        """Re-order the top ``rerank_depth`` by the reranker's scores; the tail keeps its fused order."""
        assert self.reranker is not None
        t = time.perf_counter()
        head = fused[: plan.rerank_depth]
        views = self._views([x.key for x in head], run)
        head = [x for x in head if x.key in views]
        passages = [_passage(views[x.key]) for x in head]
        try:
            with metering.stage("rerank"):
                scores = self.reranker.rerank(query, passages)
        except Exception as exc:  # an optional stage: the fused order still answers
            run.note(f"rerank failed ({type(exc).__name__}: {exc}); kept the fused order")
            return fused
        order = sorted(range(len(head)), key=lambda i: (-scores[i], i))
        reranked = [dataclasses.replace(head[i], score=float(scores[i])) for i in order]
        run.latency["rerank"] = (time.perf_counter() - t) * 1000
        return reranked + fused[plan.rerank_depth:]


def _passage(view: ChunkView) -> str:
    title = view.item.title.strip()
    return f"{title}\n{view.chunk.text}" if title and not view.chunk.text.startswith(title) else view.chunk.text
