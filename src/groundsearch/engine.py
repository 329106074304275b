"""The composition root: builds the store, models and providers from ``Settings`` and exposes the verbs
every interface (CLI, API, MCP) calls. Interfaces hold no retrieval logic; this class holds little more
than wiring — the work lives in ``ingest/``, ``query/`` and ``answer/``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import ConfigError, InvalidInput, NotFound
from .models.base import LLM, Embedder, Reranker
from .presenters import SNIPPET_CHARS, evidence_out, plan_dict, snippet  # noqa: F401  (re-exported for interfaces)
from .query.filters import request_filter, visible_under
from .query.judge import judge_for
from .query.retrieve import Retriever
from .scope import caller_scope
from .settings import Settings, load_settings
from .store.base import Store
from .store.telemetry_base import Feedback, TelemetryStore
from .telemetry.wiring import telemetry_recorder
from .types import (
    CollectionSpec,
    Event,
    Evidence,
    Item,
    PreviewHit,
    RetrievalPlan,
    SearchFilter,
    SearchRequest,
    SearchResponse,
    SimilarHit,
)

if TYPE_CHECKING:
    from .answer.auditor.l4_urls import UrlHealth
    from .orchestrate import Orchestrator
    from .query.gate import GateCalibration

__all__ = ["Engine"]

POPULAR_DAYS = 30  # popular topics: a month of searches, long enough to have some, short enough to be current


class Engine:
    """One open knowledge base. Create with :meth:`open`; close when done (or use ``with``)."""

    def __init__(self, settings: Settings, store: Store, embedder: Embedder, llm: LLM | None = None,
                 reranker: Reranker | None = None, *, telemetry: TelemetryStore | None = None) -> None:
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self.llm = llm
        self.reranker = reranker
        self.recorder = telemetry_recorder(settings, store, telemetry)
        self.retriever = Retriever(store, embedder, settings.retrieval, settings.collections, reranker=reranker,
                                   llm=llm, feedback=self.feedback_stats if self.recorder is not None else None,
                                   judge=judge_for(embedder))
        self._answer: Orchestrator | None = None  # built on first search
        self._embedding: Any = None  # the BackgroundEmbedder inside `serve`, once started
        self._url_health: UrlHealth | None = None  # built on first use, so its 24 h cache is shared
        self._extractive: Orchestrator | None = None  # the same pipeline without the LLM (the chat dossier's)
        self._conversations: Any = None  # ConversationStore, opened on the first chat turn

    # ---- lifecycle ------------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        settings: Settings | None = None,
        *,
        embedder: Embedder | None = None,
        store: Store | None = None,
        llm: LLM | None = None,
        shared: bool = False,
    ) -> Engine:
        """``shared``: if another process (a running ``serve``) owns the embedded store's indexes, write
        through it as a log writer instead of failing (see ``store/sqlite.py``)."""
        settings = settings or load_settings()
        from .threads import limit_blas_threads

        limit_blas_threads(settings.retrieval.blas_threads)
        if embedder is None:
            from .models.factory import build_embedder

            embedder = build_embedder(settings)
        if store is None:
            store = open_store(settings, embedder.dim, shared=shared)
        built_with = store.meta_get("embedder")
        if built_with is None:
            store.meta_set("embedder", embedder.model_id)
        elif built_with != embedder.model_id:
            store.close()
            raise ConfigError(
                f"this index was built with embedder {built_with!r} but {embedder.model_id!r} is configured; "
                f"set GROUNDSEARCH_EMBEDDER to match, or use a new data directory and re-ingest"
            )
        if llm is None and settings.llm.enabled:
            from .models.llm import build_llm  # optional tier: only imported when configured

            llm = build_llm(settings.llm)
        reranker = None
        if settings.retrieval.reranker != "none":
            from .models.rerank import build_reranker  # optional stage: only imported when configured

            reranker = build_reranker(settings, llm)
        return cls(settings, store, embedder, llm, reranker)

    def close(self) -> None:
        if self._embedding is not None:
            self._embedding.stop()
        if self._conversations is not None:
            self._conversations.close()
        self.retriever.close()
        if self.recorder is not None:
            self.recorder.close()
        self.store.close()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- items ----------------------------------------------------------------------------------

    def collection(self, name: str | None) -> CollectionSpec:
        name = name or self.settings.default_collection
        spec = self.settings.collection(name)
        if spec is None:
            from .errors import UnknownCollection

            raise UnknownCollection(
                f"unknown collection {name!r}; configured collections are {list(self.settings.collection_names)}",
                details={"field": "collection", "value": name},
            )
        return spec

    def ingest(
        self,
        paths: Sequence[str | Path],
        collection: str | None = None,
        *,
        tenant: str = "",
        embed: bool = True,
        prune: bool = False,
        progress: Callable[[Any], None] | None = None,
        limits: Any = None,
        defer_embedding: bool | None = None,
    ) -> Any:
        """Ingest files and folders into ``collection``; returns an ``ingest.pipeline.IngestReport``.

        ``limits``: an ``ingest.pipeline.IngestLimits`` (chunks per file, time budget, cancellation); none by default.

        ``prune``: also delete items of files under the given folders that no longer exist on disk.

        ``defer_embedding`` (default: whether the background embedder runs): write text only, so the items
        are keyword-searchable at once, and leave the vectors to :meth:`embed_pending` or the background
        thread."""
        from .ingest.pipeline import ingest_paths
        from .scope import ALL_TENANTS_SCOPE

        if tenant == ALL_TENANTS_SCOPE:  # no key can be scoped to it, so its items would be nobody's (scope.py)
            raise InvalidInput(f"tenant {ALL_TENANTS_SCOPE!r} is reserved: it keeps the records of callers that read "
                               "every tenant, and no key can be scoped to it", details={"field": "tenant"})
        defer = self._embedding is not None if defer_embedding is None else defer_embedding
        report = ingest_paths(
            [Path(p) for p in paths],
            self.collection(collection),
            self.store,
            self.embedder if embed and not defer else None,
            tenant=tenant,
            batch_size=self.settings.embed_batch_size,
            prune=prune,
            progress=progress,
            **({"limits": limits} if limits is not None else {}),
        )
        if embed and defer and self._embedding is not None:
            self._embedding.wake()
        elif embed and not defer and self.embedder is not None:
            from .ingest.embed_worker import embed_sentences

            embed_sentences(self.store, self.embedder)  # the answers' sentence vectors, after the chunks'
        return report

    def embed_pending(self, *, progress: Callable[[Any], None] | None = None,
                      stop: Callable[[], bool] = lambda: False) -> Any:
        """Give a vector to every chunk stored without one; returns an ``ingest.embed_worker.EmbedReport``."""
        from .ingest.embed_worker import embed_pending

        return embed_pending(self.store, self.embedder, self._kinds(), progress=progress, stop=stop)

    def start_background_embedding(self, interval: float = 1.0) -> Any:
        """Embed pending chunks in a thread from now until :meth:`close`; ingests then defer embedding to it."""
        from .ingest.embed_worker import BackgroundEmbedder

        if self._embedding is None:
            self._embedding = BackgroundEmbedder(self.store, self.embedder, self._kinds(), interval=interval).start()
        return self._embedding

    def _kinds(self) -> dict[str, str]:
        return {spec.name: spec.kind for spec in self.settings.collections}

    def get(self, item_id: str, filter: SearchFilter | None = None) -> Item:
        """The item, or ``NotFound`` — also when ``filter``'s governance (tenant, status) hides it, so another
        tenant's id or a draft id reads exactly like an unknown one."""
        item = self.store.get(item_id)
        if item is None or (filter is not None and not visible_under(filter, item)):
            raise NotFound(f"no item with id {item_id!r}", details={"id": item_id})
        return item

    def delete(self, item_id: str) -> None:
        if self.store.delete([item_id]) == 0:
            raise NotFound(f"no item with id {item_id!r}", details={"id": item_id})

    def duplicates(self, item_id: str, filter: SearchFilter | None = None) -> list[Item]:
        """Exact duplicates of an item: other items with the same content hash, among those ``filter`` admits
        (``None``: any status, any tenant — the trusted local user)."""
        item = self.get(item_id, filter)
        f = filter or SearchFilter(statuses=("draft", "published", "archived"), include_superseded=True)
        return [i for i in self.store.find_by_hash(item.content_hash, f) if i.id != item_id]

    def similar(self, item_id: str, *, limit: int = 10, filter: SearchFilter | None = None) -> list[SimilarHit]:
        """Items nearest to ``item_id``, by the cosine between the two items' mean chunk vectors.

        Chunk-level search finds the candidates (any chunk near the item's centroid); the score is then
        item to item, so a byte-identical copy of a many-chunk document scores 1.0 — a best-chunk match
        scores it well below that (the centroid sits between its chunks). ``likely_duplicate`` is set at
        ``retrieval.duplicate_threshold`` (default 0.95): near-identical texts embed to near-identical
        centroids, while topical neighbours rarely pass 0.9 with MiniLM.
        """
        self.get(item_id, filter)  # the seed is governed too: a hidden item must not steer a search
        query = _centroid(self.store.item_vectors(item_id))
        if query is None:
            return []
        f = dataclasses.replace(filter or SearchFilter(), exclude_item_ids=(item_id,))
        keys = [key for key, _ in self.store.vector_search(query, f, limit * 4).hits]
        views = self.store.hydrate(keys)
        candidates = list(dict.fromkeys(views[k].item.id for k in keys if k in views))
        scored = []
        for candidate in candidates:
            centroid = _centroid(self.store.item_vectors(candidate))
            if centroid is not None:
                scored.append((candidate, float(centroid @ query)))
        ranked = sorted(scored, key=lambda kv: (-kv[1], kv[0]))[:limit]
        items = self.store.get_many([i for i, _ in ranked])
        threshold = self.settings.retrieval.duplicate_threshold
        return [SimilarHit(item=items[i], cosine=c, likely_duplicate=c >= threshold) for i, c in ranked if i in items]

    # ---- search ---------------------------------------------------------------------------------

    def build_filter(self, request: SearchRequest, *, tenant: str | None = None) -> SearchFilter:
        return request_filter(self.settings.collections, request, tenant=tenant)

    def retrieve(self, plan: RetrievalPlan) -> Evidence:
        """Execute a plan made by :meth:`Orchestrator.plan` (the one planner)."""
        return self.retriever.retrieve(plan)

    def search(self, request: SearchRequest, *, tenant: str | None = None, surface: str = "search") -> SearchResponse:
        from .orchestrate import fold

        # surface only when not the default, so overrides of stream(request, tenant=) keep working
        extra = {"surface": surface} if surface != "search" else {}
        return fold(self.stream(request, tenant=tenant, **extra))

    def answer_pipeline(self) -> Orchestrator:
        """The one orchestrator (classify → plan → retrieve → normalize → synthesize → audit), built once."""
        if self._answer is None:
            from functools import partial

            from .models.llm import load_prompt
            from .orchestrate import Orchestrator
            from .query.intent.cascade import IntentCascade

            cascade = IntentCascade(self.settings, self.embedder, self.llm,
                                    on_shadow=self.recorder.shadow if self.recorder is not None else None)
            from .curation import trending_topics

            self._answer = Orchestrator(self.settings, self.retriever, cascade, llm=self.llm,
                                        load_prompt=partial(load_prompt, version=self.settings.llm.prompts_version),
                                        trending=partial(trending_topics, self.store, self.settings.collections))
        return self._answer

    def gate_best_cosine(self, query: str, *, tenant: str | None = None) -> float:
        """The best cosine the gate would judge for ``query`` (its first pass, default plan, gate off)."""
        _, plan = self.answer_pipeline().plan(SearchRequest(query=query, limit=10, threshold=0.0), tenant=tenant)
        gate = self.retriever.retrieve(plan).gate
        return gate.best_score if gate is not None else 0.0

    def calibrate_gate(self, own: Sequence[str], offtopic: Sequence[str]) -> GateCalibration:
        """Measure the gate threshold on questions this store should answer (``own``) and ones it should not,
        and store it with the embedder's id in the store's metadata, where every later plan reads it."""
        from .query.gate import calibrate, gate_meta_key

        cal = calibrate(self.embedder.model_id, [self.gate_best_cosine(q) for q in own],
                        [self.gate_best_cosine(q) for q in offtopic])
        self.store.meta_set(gate_meta_key(cal.model_id), cal.to_json())
        self.retriever.clear_cache()
        return cal

    def url_health(self, scope: str = "") -> UrlHealth:
        """The auditor's link checker (L4), from ``settings.auditor``; Redis-cached when ``redis_url`` is set.
        ``scope`` (the caller's tenant) keeps its cache entries apart from every other tenant's."""
        if self._url_health is None:
            from .answer.auditor.l4_urls import LocalCache, RedisCache
            from .answer.auditor.l4_urls import UrlHealth as Checker

            a = self.settings.auditor
            cache = RedisCache(self.settings.redis_url) if self.settings.redis_url else LocalCache()
            self._url_health = Checker(enabled=a.url_health, timeout_s=a.url_timeout_s, ttl_s=a.url_cache_ttl_s,
                                       cache=cache, allow_private=a.url_allow_private)
        return self._url_health.scoped(scope)

    def extractive_stream(self, request: SearchRequest, *, tenant: str | None = None) -> Iterator[Event]:
        """:meth:`stream` with no LLM in it (rules-and-prototypes intent, extractive prose): what the chat
        assistant's dossier retrieves with, so a dossier never waits on the model and never depends on it."""
        if self._extractive is None:
            from .orchestrate import Orchestrator
            from .query.intent.cascade import IntentCascade

            self._extractive = Orchestrator(self.settings, self.retriever, IntentCascade(self.settings, self.embedder,
                                                                                           None))
        yield from self._extractive.run(request, tenant=tenant)

    @property
    def conversations(self) -> Any:
        """The ``ConversationStore`` beside the item store (same database), opened on first use."""
        if self._conversations is None:
            from .store.chat_open import open_conversations

            self._conversations = open_conversations(self.settings)
        return self._conversations

    def clear_caches(self) -> dict[str, int]:
        """Drop in-process caches: memoised query vectors and the answer pipeline with its intent cache
        (rebuilt on the next search). A shared Redis intent cache expires by its TTL instead."""
        cleared = {"query_vectors": self.retriever.clear_cache(), "intent_cache": int(self._answer is not None)}
        self._answer = self._extractive = None
        return cleared

    def stream(self, request: SearchRequest, *, tenant: str | None = None, surface: str = "search") -> Iterator[Event]:
        """The same search as :meth:`search`, as the sequence of stage events; ``search`` is their fold.

        Events: ``intent``, ``plan``, ``keyword``/``vector``, one per structured result kind, ``results``,
        ``prose``, ``complete`` (with diagnostics). A consumer that stops iterating (a client that
        disconnected) stops the remaining stages. Each request leaves one telemetry record (``surface``:
        search / ask / mcp / chat), whose id is ``diagnostics.request_id``.
        """
        import uuid

        request_id = uuid.uuid4().hex
        events = self.answer_pipeline().run(request, tenant=tenant, request_id=request_id)
        if self.recorder is None:
            yield from events
            return
        yield from self.recorder.observe(events, query=request.query, tenant=tenant, surface=surface,
                                         request_id=request_id)

    # ---- feedback -------------------------------------------------------------------------------

    def add_feedback(self, request_id: str, item_id: str, useful: bool, *, tenant: str | None = None,
                     owner: str = "") -> Feedback:
        """Mark a source request ``request_id`` showed as useful or not; ``NotFound`` unless that request is
        the caller's tenant's and showed ``item_id`` (so nobody marks what they were never shown). The mark is
        ``owner``'s (the HTTP key's id; ``''`` for every-tenant callers): another owner's mark is never replaced."""
        store = self._telemetry_for("feedback")
        # Postgres text cannot hold U+0000 (the driver raises: a 500), and no id this server makes holds one
        shown = None if "\x00" in request_id else store.request_results(caller_scope(tenant), request_id)
        if shown is None:
            raise NotFound(f"no request with id {request_id!r}", details={"request_id": request_id})
        if item_id not in shown:
            raise NotFound(f"request {request_id!r} did not show item {item_id!r}",
                           details={"request_id": request_id, "item_id": item_id})
        return store.put_feedback(caller_scope(tenant), request_id, item_id, useful, owner=owner)

    def remove_feedback(self, feedback_id: str, *, tenant: str | None = None, owner: str = "") -> None:
        if "\x00" in feedback_id or not self._telemetry_for("feedback").delete_feedback(
                caller_scope(tenant), feedback_id, owner=owner):  # a NUL: as in add_feedback
            raise NotFound(f"no feedback with id {feedback_id!r}", details={"id": feedback_id})

    def forget_feedback_owner(self, tenant: str, owner: str) -> int:
        """Delete every mark ``owner`` (a key's id) left in ``tenant``: a revoked key stops steering its tenant's
        ranking, and nobody could remove its marks any more (a mark is its owner's). 0 with telemetry off."""
        if self.recorder is None:
            return 0
        return self.recorder.store.delete_owner_feedback(tenant, owner)

    def feedback_stats(self, tenant: str | None, item_ids: Sequence[str]) -> dict[str, tuple[int, int]]:
        """``{item_id: (useful, marks)}`` of ``tenant``, each key once by its latest mark (the weighted profile's
        boost; ``TelemetryStore.feedback_stats``)."""
        return self._telemetry_for("feedback").feedback_stats(caller_scope(tenant), item_ids)

    def popular_terms(self, tenant: str | None, since: Any, limit: int = 10) -> list[tuple[str, int]]:
        """What ``tenant``'s users search most since ``since`` (a UTC datetime): query-term counts from
        telemetry, named only where the term is a word of that tenant's corpus (telemetry.privacy)."""
        recorder = self.recorder
        if recorder is None:
            return []
        names = [term for term, _ in self.store.top_terms(SearchFilter(tenant=tenant), 5000)]
        return recorder.popular_terms(caller_scope(tenant), since, limit, names)

    def _telemetry_for(self, what: str) -> TelemetryStore:
        if self.recorder is None:
            raise ConfigError(f"{what} needs telemetry, which is off (telemetry.enabled = false)")
        return self.recorder.store

    def suggestions(self, limit: int = 10, filter: SearchFilter | None = None) -> list[str]:
        """Popular topics: what the caller's tenant searched most in the last ``POPULAR_DAYS`` (query-term counts
        from telemetry, named only where a term is a word of that tenant's corpus); on a cold start, or with
        telemetry off, the entities mentioned in most chunks the caller may search (``filter``: its tenant,
        published only by default). Fails soft to an empty list."""
        f = filter or SearchFilter()
        try:
            since = dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=POPULAR_DAYS)
            searched = [term for term, _ in self.popular_terms(f.tenant, since, limit)]
        except Exception:
            searched = []
        if searched:
            return searched
        try:
            return [term for term, _ in self.store.top_terms(f, limit)]
        except Exception:
            return []

    def health(self, *, counts: bool = True) -> dict[str, Any]:
        """``status`` is ``degraded`` while a derived index cannot serve (damaged, or being rebuilt from
        SQLite); ``indexes`` says which, and which one was rebuilt since the store opened, and why. Without
        ``counts``, liveness only: the store-wide counts are whole-table scans, and an unkeyed probe must not
        be able to make the store run them at will."""
        index_health = getattr(self.store, "index_health", None)  # derived indexes exist in the embedded store
        indexes = index_health() if index_health is not None else {}
        serving = all(i.get("state") in ("ok", "rebuilt") for i in indexes.values())
        if not counts:
            return {"status": "ok" if serving else "degraded", "indexes": indexes}
        background = None if self._embedding is None else dataclasses.asdict(self._embedding.status)
        return {
            "background_embedding": background,
            "status": "ok" if serving else "degraded",
            "indexes": indexes,
            "items": self.store.count(),
            "chunks": self.store.count_chunks(),
            "vectors_pending": self.store.count_pending_vectors(),
            "embedder": self.embedder.model_id,
            "llm": getattr(self.llm, "name", None),
            "backend": type(self.store).__name__,
        }

    def preview(self, prefix: str, *, limit: int = 8, tenant: str | None = None) -> list[PreviewHit]:
        """Typeahead on titles. Nothing typed yet is no hits; anything else is validated as search validates its
        query (``validate_query``: ``InvalidQuery`` for a NUL or over-long text), then its first 200 characters
        are matched."""
        from .query.filters import validate_query

        if not prefix.strip():
            return []
        prefix = validate_query(prefix)
        return self.store.preview(prefix[:200], SearchFilter(tenant=tenant), max(1, min(limit, 20)))


# ---- helpers shared by interfaces ---------------------------------------------------------------


def _centroid(vectors: Any) -> Any:
    """The L2-normalised mean of an item's chunk vectors, or ``None`` when it has none."""
    import numpy as np

    if len(vectors) == 0:
        return None
    mean = np.asarray(vectors, dtype=np.float32).mean(axis=0)
    norm = float(np.linalg.norm(mean))
    return mean / norm if norm > 0 else None


def open_store(settings: Settings, dim: int, *, shared: bool = False) -> Store:
    if settings.database_url:
        dsn = settings.database_url
        if not (dsn.startswith(("postgresql://", "postgres://")) or "=" in dsn):  # URL or libpq key=value form
            raise ConfigError("GROUNDSEARCH_DATABASE_URL must be a postgresql:// URL or a libpq 'key=value' string")
        from .store.postgres import PostgresStore

        return PostgresStore.open(settings.database_url, dim=dim, keyword_leg=settings.retrieval.pg_keyword_leg,
                                  hnsw_ef=settings.retrieval.hnsw_ef)
    from .store.sqlite import SQLiteStore

    return SQLiteStore.open(settings.data_dir / "store", dim=dim, exact_vector_max=settings.retrieval.exact_vector_max,
                            hnsw_ef=settings.retrieval.hnsw_ef, shared=shared)
