"""The one orchestrator: classify → plan → retrieve → normalize → synthesize → audit, as events.

Streaming and JSON share this code path: :meth:`Orchestrator.run` yields ``Event``s as each stage
finishes, and :func:`fold` turns that sequence into the ``SearchResponse`` (so the JSON answer is, by
construction, what a streaming client saw). A stage that fails degrades the answer and says so in
``diagnostics.degraded``; only bad input (``InvalidInput``) and a failed embedder (``EmbeddingFailed``)
propagate, because the caller must know (HTTP 400 / 503) and a partial answer would mislead.

Everything retrieval does (legs, rewrites, rerank, the gate and its reformulation, horizon relaxation,
merge) is decided by the pure planner and carried out by ``query.retrieve``; this module only sequences
the stages. :meth:`Orchestrator.plan` is the same classify + plan that ``run`` does, for eval and bench.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import TypeAdapter

from .answer.audit import audit
from .answer.decompose import about
from .answer.extractive import follow_ups
from .answer.normalize import could_not_build, normalize
from .answer.repair import repair
from .answer.sentence_vectors import ScopedSentenceVectors, sentence_vectors_for
from .answer.synthesize import Synthesis, synthesize
from .errors import EmbeddingFailed, InvalidInput
from .models.base import LLM
from .models.metering import Meter, metered
from .presenters import evidence_out, plan_dict
from .query.filters import build_filter, validate_query
from .query.gate import judge
from .query.planner import PlanProfile, plan_retrieval
from .query.retrieve import Retriever
from .query.trending import asks_for_trending, trending_table
from .scope import caller_scope
from .settings import Settings
from .types import (
    Diagnostics,
    Event,
    Evidence,
    EvidenceOut,
    Hints,
    Intent,
    Prose,
    RetrievalPlan,
    SearchFilter,
    SearchRequest,
    SearchResponse,
    Sentence,
    StructuredResult,
    Tier,
)

__all__ = ["NOTHING_RELEVANT", "AnswerPipeline", "Classifier", "Orchestrator", "fold"]

_RESULT = TypeAdapter(StructuredResult)
_PASSTHROUGH = (InvalidInput, EmbeddingFailed)
FOLLOW_UPS = 2  # sub-questions of a multi-hop question retrieved again (0 turns the follow-up off)
FOLLOW_HITS = 3  # keyword hits not on the page each follow-up may add after it
NOTHING_RELEVANT = "Nothing clearly relevant to this request was found; the closest results are listed below."


class Classifier(Protocol):
    """What the pipeline needs of the intent cascade (``query.intent.cascade.IntentCascade``)."""

    def classify(self, query: str, hints: Hints | None, *, scope: str = "") -> Any:
        """Returns a value with ``intent``, ``cache_hit``, ``model``, ``latency_ms``, ``degraded``. ``scope`` is
        the caller's (``groundsearch.scope``): cached intents are per scope."""
        ...


@dataclass
class _Run:
    """Per-request bookkeeping (never shared between requests)."""

    started: float = field(default_factory=time.perf_counter)
    latency: dict[str, float] = field(default_factory=dict)
    degraded: list[str] = field(default_factory=list)
    tier: Tier | None = None
    cache_hit: bool = False
    model: str | None = None

    def lap(self, stage: str, since: float) -> None:
        self.latency[stage] = round((time.perf_counter() - since) * 1000, 3)


def _fallback_intent(hints: Hints | None) -> Intent:
    """What is known without the cascade: the caller's hints, nothing guessed."""
    if hints is None:
        return Intent(tier="hint")
    return Intent(domains=(hints.domain,) if hints.domain else (), format=hints.format or "default",
                  horizon_days=hints.horizon_days, tier="hint")


class Orchestrator:
    """Runs one request end to end. Holds only long-lived collaborators; per-request state is local."""

    def __init__(
        self,
        settings: Settings,
        retriever: Retriever,
        classifier: Classifier,
        *,
        llm: LLM | None = None,
        load_prompt: Callable[[str], str] | None = None,
        today: Callable[[], dt.date] = dt.date.today,
        trending: Callable[..., Any] | None = None,
    ) -> None:
        self.settings = settings
        self.retriever = retriever
        self.classifier = classifier
        self.llm = llm
        self.load_prompt = load_prompt
        self.today = today
        self.specs = {c.name: c for c in settings.collections}
        self.trending = trending  # curation.trending_topics bound to the store: "what's trending" asks

    # ---- stages ---------------------------------------------------------------------------------

    def _classify(self, query: str, hints: Hints | None, run: _Run, tenant: str | None) -> Intent:
        t = time.perf_counter()
        try:
            c = self.classifier.classify(query, hints, scope=caller_scope(tenant))
            intent = c.intent
            run.tier, run.cache_hit, run.model = intent.tier, bool(c.cache_hit), c.model
            run.degraded.extend(c.degraded)
            for stage, ms in dict(c.latency_ms).items():
                run.latency[f"classify.{stage}"] = ms
        except _PASSTHROUGH:
            raise
        except Exception as exc:  # the cascade failed as a whole: answer from the hints alone
            intent = _fallback_intent(hints)
            run.tier = intent.tier
            run.degraded.append(f"classify: intent cascade failed ({type(exc).__name__}: {exc}); used hints only")
        run.lap("classify", t)
        return intent

    def _retrieve(self, plan: RetrievalPlan, run: _Run, stage: str) -> Evidence:
        try:
            evidence = self.retriever.retrieve(plan)
        except _PASSTHROUGH:
            raise
        except Exception as exc:  # the store failed: an empty, clearly-labelled answer instead of a 500
            run.degraded.append(f"{stage}: retrieval failed ({type(exc).__name__}: {exc}); no results")
            return Evidence(plan=plan, hits=(), has_more=False)
        run.degraded.extend(evidence.degraded)
        return evidence

    def _follow_up(self, plan: RetrievalPlan, evidence: Evidence, run: _Run) -> Evidence:
        """A multi-hop question asked again of its bridge (``answer.decompose``): each sub-question's best
        keyword hits not on the page and about the bridge (by title) are added after it, under the plan's own
        filter, so the item a chain passes through can be quoted and cited; the rest of what the keyword leg
        finds past the page is off the question. The first page only; a failure keeps the page as it is.
        Every format: a table, chart or timeline request's prose (its downgrade's answer) is the same answer
        a plain question gets, so it follows the same hops; the shape itself is drawn from the page alone."""
        if not FOLLOW_UPS or plan.offset or not evidence.hits:
            return evidence
        t = time.perf_counter()
        try:
            vectors = ScopedSentenceVectors(sentence_vectors_for(self.retriever), caller_scope(plan.filter.tenant))
            subs = follow_ups(plan.query, evidence.hits, vectors)[:FOLLOW_UPS]
            seen = {h.id for h in evidence.hits}
            extra = []
            for sub in subs:
                more = self.retriever.retrieve(dataclasses.replace(
                    plan, query=sub.text, legs=("keyword",), limit=len(seen) + FOLLOW_HITS, offset=0, rewrite="none", rerank=False,
                    sub_queries=(), graph_seeds=(), reformulation=None, gate_threshold=0.0, relax_horizon=False))
                new = [hit for hit in more.hits if hit.id not in seen and about(hit.item.title, sub.bridge)][:FOLLOW_HITS]
                seen.update(hit.id for hit in new)
                extra.extend(new)
        except _PASSTHROUGH:
            raise
        except Exception as exc:
            run.degraded.append(f"retrieve: the multi-hop follow-up failed ({type(exc).__name__}: {exc})")
            return evidence
        run.lap("retrieve.follow_up", t)
        return dataclasses.replace(evidence, hits=(*evidence.hits, *extra)) if extra else evidence

    def plan(self, request: SearchRequest, *, tenant: str | None = None,
             profile: PlanProfile | None = None) -> tuple[Intent, RetrievalPlan]:
        """Classify and plan one request exactly as :meth:`run` does (``profile``: a named eval retriever)."""
        query = validate_query(request.query)
        intent = self._classify(query, request.hints, _Run(), tenant)
        return intent, self._plan(intent, request, tenant, profile)

    def _plan(self, intent: Intent, request: SearchRequest, tenant: str | None,
              profile: PlanProfile | None = None) -> RetrievalPlan:
        return plan_retrieval(intent, request, self.settings, tenant=tenant, today=self.today(),
                              embedder_id=self.retriever.embedder.model_id, profile=profile,
                              stored_gate=self.retriever.stored_gate_threshold(), has_llm=self.retriever.llm is not None,
                              judge_id=self.retriever.judge.name if self.retriever.judge is not None else "")

    def _trending(self, intent: Intent, plan: RetrievalPlan, run: _Run) -> list[StructuredResult]:
        """The trending table for a "what's trending" request, over the plan's collections and governance (not
        its date filter: the baseline windows reach back before the horizon); the cascade's horizon is the
        window, and a failure only drops the table."""
        f = SearchFilter(collections=plan.collections, statuses=plan.filter.statuses,
                         include_superseded=plan.filter.include_superseded, tenant=plan.filter.tenant)
        try:
            kwargs = {"horizon_days": intent.horizon_days} if intent.horizon_days else {}
            result = self.trending(f, today=self.today(), **kwargs)  # type: ignore[misc]
        except Exception as exc:
            run.degraded.append(f"trending: failed ({type(exc).__name__}: {exc}); no trending table")
            return []
        return [trending_table(result)] if result.topics else []

    # ---- the orchestrator -----------------------------------------------------------------------

    def run(self, request: SearchRequest, *, tenant: str | None = None,
            request_id: str | None = None) -> Iterator[Event]:
        run = _Run()
        # One token budget for every model call of this request; each stage charges it under its own name
        # (the blocks hold no ``yield``: a generator's next step may run in another context).
        meter = Meter(self.settings.llm.request_token_budget, self.settings.llm.prices)
        query = validate_query(request.query)
        # Bad input must surface before the first event, so a streaming client gets a plain 400, not a
        # stream that breaks off; the planner re-validates the same way later (pure, cheap).
        build_filter(self.settings.collections, collections=request.collections, filters=request.filters)
        with metered(meter, "intent"):
            intent = self._classify(query, request.hints, run, tenant)
        yield Event("intent", {"intent": intent.model_dump(mode="json"), "tier": run.tier,
                               "cache_hit": run.cache_hit, "model": run.model})

        t = time.perf_counter()
        plan = self._plan(intent, request, tenant)
        run.lap("plan", t)
        yield Event("plan", plan_dict(plan))

        t = time.perf_counter()
        with metered(meter, "retrieve"):  # the retriever names its own steps: rerank, rewrite (HyDE)
            evidence = self._retrieve(plan, run, "retrieve")
        for stage, ms in evidence.latency_ms.items():
            run.latency[f"retrieve.{stage}"] = ms
        gate = evidence.gate or judge(evidence.hits, plan.gate_threshold)
        page = evidence.hits  # what the shape asked for is drawn from; the follow-up's hits serve the prose
        if not gate.measured or gate.passed:
            evidence = self._follow_up(plan, evidence, run)
        run.lap("retrieve", t)
        for leg in ("keyword", "vector"):
            if leg in plan.legs:
                count = sum(1 for h in evidence.hits if any(ls.leg == leg for ls in h.legs))
                ms = max((v for k, v in evidence.latency_ms.items() if k == leg or k.endswith(f".{leg}")), default=0.0)
                yield Event(leg, {"count": count, "latency_ms": ms})

        t = time.perf_counter()
        try:
            results = normalize(intent, page, self.specs, collections=plan.collections, gate=gate,
                                topic=" ".join(intent.topic_keywords[:4]))
        except Exception as exc:  # structured results are extra: the results list still answers
            results = could_not_build(intent, exc)  # a shape asked for is still named, never silently dropped
            run.degraded.append(f"normalize: failed ({type(exc).__name__}: {exc}); no structured results")
        if self.trending is not None and asks_for_trending(query):
            results = [*self._trending(intent, plan, run), *results]
        run.lap("normalize", t)
        for result in results:
            yield Event(result.kind, result.model_dump(mode="json"))
        yield Event("results", {"results": [evidence_out(h).model_dump(mode="json") for h in evidence.hits],
                                "has_more": evidence.has_more, "offset": plan.offset})

        t = time.perf_counter()
        try:
            if gate.measured and not gate.passed:
                # quoting the closest (irrelevant) evidence as if it answered would mislead; say so instead
                nothing = Sentence(text=NOTHING_RELEVANT, citations=())
                synthesis = Synthesis(Prose(sentences=(nothing,), mode="extractive"))
            else:
                with metered(meter, "narration"):
                    synthesis = synthesize(intent, query, results, evidence.hits, self.specs, llm=self.llm,
                                           load_prompt=self.load_prompt, max_tokens=self.settings.llm.narration_max_tokens,
                                           # the client's own timeout: a pipeline given a slower model
                                           # (a local CPU server) waits as long as that client would
                                           deadline_s=getattr(self.llm, "timeout_s", self.settings.llm.timeout_s),
                                           vectors=ScopedSentenceVectors(sentence_vectors_for(self.retriever),
                                                                         caller_scope(plan.filter.tenant)))
            run.degraded.extend(synthesis.degraded)
            prose = synthesis.prose
        except Exception as exc:
            prose = Prose(mode="none")
            run.degraded.append(f"synthesize: failed ({type(exc).__name__}: {exc}); no prose")
        run.lap("synthesize", t)
        t = time.perf_counter()
        report = audit(prose, evidence.hits)
        run.degraded.extend(f"audit: {f}" for f in report.failures)
        checked = report.prose
        if self.llm is not None and self.load_prompt is not None:  # repair() itself skips clean or extractive prose
            try:
                with metered(meter, "repair"):
                    fixed = repair(prose, report, evidence.hits, self.llm, self.load_prompt)
                checked = fixed.prose
                run.degraded.extend(fixed.notes)
            except Exception as exc:  # e.g. the repair prompt file is missing: the markers stand
                run.degraded.append(f"audit: could not restate rejected sentences ({type(exc).__name__}: {exc})")
        run.lap("audit", t)
        yield Event("prose", checked.model_dump(mode="json"))

        run.lap("total", run.started)
        diagnostics = Diagnostics(tier=run.tier, cache_hit=run.cache_hit, model=run.model,
                                  latency_ms=dict(run.latency), degraded=tuple(run.degraded), plan=plan_dict(plan),
                                  gate=dataclasses.asdict(gate), usage=meter.usage(), request_id=request_id,
                                  vectors_pending=_pending(getattr(self.retriever, "store", None), plan.filter))
        yield Event("complete", {"total_latency_ms": run.latency["total"],
                                 "diagnostics": diagnostics.model_dump(mode="json")})


def _pending(store: Any, f: SearchFilter) -> int | None:
    """Chunks of what ``f`` admits that the vector leg cannot see yet (never the store's: that count moved when
    another tenant uploaded); ``None`` when the store cannot say (a diagnostic never fails a search)."""
    try:
        return int(store.count_pending_vectors(f))
    except Exception:  # noqa: BLE001
        return None


def fold(events: Iterable[Event]) -> SearchResponse:
    """The ``SearchResponse`` a sequence of pipeline events describes (the JSON answer is this fold)."""
    body: dict[str, Any] = {"structured_results": []}
    for event in events:
        data = event.data
        if event.name == "intent":
            body["intent"] = Intent.model_validate(data["intent"])
        elif event.name == "plan":
            body["query"] = data["query"]
            body["offset"] = data["offset"]
        elif event.name in ("table", "chart", "timeline", "graph", "unsupported-format", "low-confidence"):
            body["structured_results"].append(_RESULT.validate_python(dict(data)))
        elif event.name == "results":
            body["results"] = tuple(EvidenceOut.model_validate(r) for r in data["results"])
            body["has_more"] = data["has_more"]
        elif event.name == "prose":
            body["prose"] = Prose.model_validate(data)
        elif event.name == "complete":
            body["diagnostics"] = Diagnostics.model_validate(data["diagnostics"])
    body["structured_results"] = tuple(body["structured_results"])
    return SearchResponse(**body)


AnswerPipeline = Orchestrator  # the name tests and older callers use
