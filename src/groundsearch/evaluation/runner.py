"""Run retrievers over a BEIR dataset and score them: the engine behind ``groundsearch eval``.

The corpus goes through the product's own ingest path (a records collection, one chunk per document) into
a cached data directory keyed by the corpus bytes and the embedder's ``model_id``, so a second run with the
same data and model skips ingest. Each retriever is a named plan profile (``query.planner.PLAN_PROFILES``)
and answers every evaluated query through the product's own classify + plan (``Orchestrator.plan``) and
``Retriever.retrieve`` at depth 100 — the code path ``search`` takes, gate included — with wall-clock
latency per query (classification included). ``default`` overrides nothing: it is exactly what search runs.

``bm25s`` is the independent baseline: a different BM25 implementation fed exactly the terms the store
indexes for each chunk (:func:`groundsearch.store.text.keyword_terms`) and the distinct query terms the
store searches for, with the same k1 and b, so "our BM25 is within 0.01 nDCG of bm25s" compares the
keyword engines and nothing else.
"""

from __future__ import annotations

import dataclasses
import json
from importlib import resources
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import IndexUnavailable, InvalidInput
from ..models.base import Embedder
from ..ingest.entities import ENTITY_FORMAT, record_entities
from ..query.planner import PLAN_PROFILES
from ..settings import Settings, load_settings
from ..types import CollectionSpec, Evidence, FieldSpec, SearchRequest
from .datasets import BeirDataset
from .metrics import dedupe, mrr_at_k, ndcg_at_k, percentile, recall_at_k

__all__ = [
    "DEPTH",
    "PROFILES",
    "RETRIEVERS",
    "Bm25sBaseline",
    "EvalReport",
    "Progress",
    "RetrieverScores",
    "default_cache_root",
    "eval_collection",
    "open_eval_engine",
    "retrieval_split",
    "run_eval",
    "run_profile",
    "score_rankings",
]

# Depth of every ranking: the issue evaluates at k = 100 (metrics only look at the top 10, but recall-style
# follow-ups and fusion need the deeper list, and latency is measured for the page size users can ask for).
DEPTH = 100
COLLECTION = "beir"
# Bump when the way a dataset is ingested changes, so stale cached indexes are not reused.
CACHE_FORMAT = 1

PROFILES = PLAN_PROFILES
RETRIEVERS: tuple[str, ...] = (*PROFILES, "bm25s")
KEYWORD_ONLY = "keyword-only"  # cache key of an index built without embeddings
_NEEDS_VECTORS = frozenset(PROFILES) - {"bm25", "graph"}
_HOPS = re.compile(r"^(\d)hop")  # MuSiQue query ids start with the hop count ("2hop__…", "4hop1__…")

# progress(task, done, total): task is "ingest" or a retriever name
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True, slots=True)
class RetrieverScores:
    ndcg10: float
    recall5: float
    recall10: float
    mrr10: float
    p50_ms: float
    p95_ms: float
    recall2: float = 0.0
    gate_failed: float | None = None  # share of queries the relevance gate judged "nothing clearly relevant"
    reformulated: float | None = None  # share whose candidates came from the gate's reformulation
    by_hops: Mapping[str, Mapping[str, float]] = dataclasses.field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "ndcg@10": round(self.ndcg10, 4),
            "recall@2": round(self.recall2, 4),
            "recall@5": round(self.recall5, 4),
            "recall@10": round(self.recall10, 4),
            "mrr@10": round(self.mrr10, 4),
            "p50_ms": round(self.p50_ms, 2),
            "p95_ms": round(self.p95_ms, 2),
        }
        if self.gate_failed is not None:
            out["gate_failed"] = round(self.gate_failed, 4)
            out["reformulated"] = round(self.reformulated or 0.0, 4)
        if self.by_hops:
            out["by_hops"] = {k: {m: round(v, 4) for m, v in d.items()} for k, d in self.by_hops.items()}
        return out


@dataclass(frozen=True, slots=True)
class EvalReport:
    dataset: str
    queries: int
    embedder: str
    results: Mapping[str, RetrieverScores]
    rankings: Mapping[str, Mapping[str, tuple[str, ...]]]  # retriever -> query id -> doc ids, best first
    backend: str = "SQLiteStore"

    def as_json(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "queries": self.queries,
            "embedder": self.embedder,
            "backend": self.backend,
            "results": {name: s.as_json() for name, s in self.results.items()},
        }


def score_rankings(
    rankings: Mapping[str, Sequence[str]], qrels: Mapping[str, Mapping[str, int]], latencies_ms: Sequence[float],
    gates: Mapping[str, tuple[bool, bool]] | None = None,
) -> RetrieverScores:
    """Mean metrics over the evaluated queries; a query with no ranking counts as all zeros.

    ``gates``: query id → (gate failed, candidates came from the reformulation), for the trigger rates.
    Query ids that carry a hop count (MuSiQue) also get Recall@2/@5 per hop count."""
    qids = list(qrels)

    def mean(fn: Callable[[Sequence[str], Mapping[str, int]], float], ids: Sequence[str] = qids) -> float:
        return sum(fn(list(rankings.get(q, ())), qrels[q]) for q in ids) / (len(ids) or 1)

    hops: dict[str, list[str]] = {}
    for q in qids:
        m = _HOPS.match(q)
        if m:
            hops.setdefault(f"{m.group(1)}-hop", []).append(q)
    by_hops = {name: {"queries": float(len(ids)), "recall@2": mean(lambda r, q: recall_at_k(r, q, 2), ids),
                      "recall@5": mean(lambda r, q: recall_at_k(r, q, 5), ids)}
               for name, ids in sorted(hops.items())} if len(hops) and sum(map(len, hops.values())) == len(qids) else {}
    n = len(qids) or 1
    return RetrieverScores(
        ndcg10=mean(lambda r, q: ndcg_at_k(r, q, 10)),
        recall5=mean(lambda r, q: recall_at_k(r, q, 5)),
        recall10=mean(lambda r, q: recall_at_k(r, q, 10)),
        mrr10=mean(lambda r, q: mrr_at_k(r, q, 10)),
        p50_ms=percentile(latencies_ms, 50),
        p95_ms=percentile(latencies_ms, 95),
        recall2=mean(lambda r, q: recall_at_k(r, q, 2)),
        gate_failed=None if gates is None else sum(gates.get(q, (False, False))[0] for q in qids) / n,
        reformulated=None if gates is None else sum(gates.get(q, (False, False))[1] for q in qids) / n,
        by_hops=by_hops,
    )


# ---- the cached index ---------------------------------------------------------------------------------


def eval_collection(dataset: BeirDataset) -> CollectionSpec:
    """The records collection a BEIR corpus maps onto: one item (one chunk) per document, id from ``_id``.

    A corpus with untitled documents gets no title template (a ``{title}`` template makes the title
    required); the ingest path then titles such a document by its id.
    """
    titled = all(d.title.strip() for d in dataset.corpus)
    return CollectionSpec(
        name=COLLECTION,
        kind="records",
        description=f"BEIR corpus {dataset.name}",
        fields=(FieldSpec("_id", "keyword"), FieldSpec("title", "text"), FieldSpec("text", "text")),
        title_template="{title}" if titled else None,
        text_fields=("text",),
        id_field="_id",
    )


def default_cache_root() -> Path:
    return Path.home() / ".cache" / "groundsearch" / "eval"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "x"


def cache_dir_for(root: Path, dataset: BeirDataset, model_id: str) -> Path:
    return root / f"{_slug(dataset.name)}-{dataset.content_hash[:16]}-{_slug(model_id)}-v{CACHE_FORMAT}"


def _settings(base: Settings | None, data_dir: Path, embedder_name: str, spec: CollectionSpec) -> Settings:
    base = base or load_settings(env={})
    return base.model_copy(update={
        "data_dir": data_dir, "database_url": None, "embedder": embedder_name, "collections": (spec,),
        "default_collection": spec.name, "domains": {},
        # eval queries are not user traffic, and the dataset caches they run on are shared and read-only
        "telemetry": base.telemetry.model_copy(update={"enabled": False}),
    })


def open_eval_engine(
    dataset: BeirDataset,
    *,
    embedder_name: str = "minilm",
    embedder: Embedder | None = None,
    base_settings: Settings | None = None,
    cache_root: Path | None = None,
    progress: Progress | None = None,
    embed: bool = True,
) -> Any:  # -> Engine (imported lazily: the CLI's --help must not import the store)
    """An engine over the dataset's corpus on the embedded store, or on Postgres when ``base_settings``
    carries a ``database_url``.

    The embedded index is cached under ``cache_root`` keyed by corpus hash and model id, and built (ingested)
    only when absent. ``embed=False`` builds a keyword-only index (its own cache entry): BM25-only runs need
    no embeddings, and embedding is most of the ingest time.

    The Postgres database is filled from the embedded cache (same items, chunks and vectors — embeddings
    are a deterministic function of text and model), so the two backends are compared on identical data
    and the corpus is embedded once. Point the URL at a scratch database: eval items are written to it.
    """
    from ..models.factory import build_embedder

    spec = eval_collection(dataset)
    embedder = embedder or build_embedder(_settings(base_settings, Path("."), embedder_name, spec))
    data_dir = cache_dir_for(cache_root or default_cache_root(), dataset,
                             embedder.model_id if embed else f"{embedder.model_id}-{KEYWORD_ONLY}")
    embedded = _cached_embedded_engine(dataset, _settings(base_settings, data_dir, embedder_name, spec), embedder,
                                       embed=embed, progress=progress)
    dsn = base_settings.database_url if base_settings is not None else None
    if not dsn:
        return embedded
    try:
        return _postgres_copy(embedded, dsn, dataset, embed=embed, progress=progress)
    finally:
        embedded.close()


def _postgres_copy(embedded: Any, dsn: str, dataset: BeirDataset, *, embed: bool,
                   progress: Progress | None) -> Any:
    from ..engine import Engine
    from ..ingest.ids import record_id
    from ..types import ItemWrite

    settings = embedded.settings.model_copy(update={"database_url": dsn})
    engine = Engine.open(settings, embedder=embedded.embedder)
    marker = f"eval:{dataset.content_hash}:{embedded.embedder.model_id}:{'vectors' if embed else KEYWORD_ONLY}"
    if engine.store.meta_get(marker) == "complete":
        return engine
    try:
        ids = [record_id(COLLECTION, doc.id, "") for doc in dataset.corpus]
        for start in range(0, len(ids), 500):
            items = embedded.store.get_many(ids[start : start + 500])
            writes = []
            for item_id, item in items.items():
                chunks = tuple(v.chunk for v in embedded.store.item_chunks(item_id))
                vectors = embedded.store.item_vectors(item_id) if embed else None
                writes.append(ItemWrite(item=item, chunks=chunks,
                                        vectors=vectors if vectors is not None and len(vectors) else None))
            engine.store.upsert(writes)
            if progress is not None:
                progress("copy to postgres", min(start + 500, len(ids)), len(ids))
        engine.store.meta_set(marker, "complete")
    except BaseException:
        engine.close()
        raise
    return engine


def _cached_embedded_engine(dataset: BeirDataset, settings: Settings, embedder: Embedder, *, embed: bool,
                            progress: Progress | None) -> Any:  # -> Engine (imported lazily: see open_eval_engine)
    """The engine over ``settings.data_dir``, ingesting the corpus first unless a finished build is there."""
    from ..engine import Engine

    data_dir = settings.data_dir
    marker = data_dir / "complete.json"
    if marker.is_file():
        reader = _read_only_engine(settings, embedder)
        if reader is not None:
            return reader
        engine = Engine.open(settings, embedder=embedder)
        try:
            _refresh_entities(engine, dataset, progress)
        except BaseException:
            engine.close()
            raise
        return engine

    data_dir.mkdir(parents=True, exist_ok=True)
    total = len(dataset.corpus)

    def count(p: Any) -> None:  # chunks embedded so far, against documents: close enough for a progress bar
        if progress is not None:
            progress("ingest", min(p.chunks_done, total), total)

    engine = Engine.open(settings, embedder=embedder)
    try:
        report = engine.ingest([dataset.corpus_file], settings.default_collection, embed=embed, progress=count)
        if progress is not None:
            progress("ingest", total, total)
        if report.errors:
            raise InvalidInput(f"ingesting {dataset.corpus_file} failed: {report.errors[0][1]}",
                               details={"errors": [list(e) for e in report.errors]})
        marker.write_text(json.dumps({
            "dataset": dataset.name, "content_hash": dataset.content_hash, "model_id": embedder.model_id,
            "items": engine.store.count(), "seconds": round(report.seconds, 1),
        }))
    except BaseException:
        engine.close()
        raise
    engine.store.meta_set("entities_format", str(ENTITY_FORMAT))
    engine.close()
    return Engine.open(settings, embedder=embedder)


def _read_only_engine(settings: Settings, embedder: Embedder) -> Any:
    """A finished, current cache opened read-only, so any number of evals and tests can share it at once
    (the store admits one writer); None when it needs a writer first (entity re-extraction)."""
    from ..engine import Engine
    from ..store.sqlite import SQLiteStore

    store = SQLiteStore.open(settings.data_dir / "store", dim=embedder.dim,
                             exact_vector_max=settings.retrieval.exact_vector_max,
                             hnsw_ef=settings.retrieval.hnsw_ef, read_only=True)
    if (store.meta_get("entities_format") != str(ENTITY_FORMAT) or store.meta_get("embedder") is None
            or any(h["state"] == "unavailable" for h in store.index_health().values())):
        store.close()  # a writer re-extracts the entities, or rebuilds an index a reader cannot serve from
        return None
    try:
        return Engine.open(settings, embedder=embedder, store=store)
    except BaseException:
        store.close()
        raise


def _refresh_entities(engine: Any, dataset: BeirDataset, progress: Progress | None) -> None:
    """Re-extract the cached corpus' entity mentions when extraction changed (``ENTITY_FORMAT``).

    Mentions are derived from stored text, so the items are rewritten with their own chunks and vectors and
    only new entities: the corpus is not embedded again (that is most of an ingest)."""
    from ..ingest.ids import record_id
    from ..types import ItemWrite

    if engine.store.meta_get("entities_format") == str(ENTITY_FORMAT):
        return
    spec = engine.settings.collections[0]
    ids = [record_id(COLLECTION, doc.id, "") for doc in dataset.corpus]
    for start in range(0, len(ids), 500):
        writes = []
        for item_id, item in engine.store.get_many(ids[start : start + 500]).items():
            chunks = tuple(dataclasses.replace(v.chunk, entities=record_entities(item.fields, spec, item.text))
                           for v in engine.store.item_chunks(item_id))
            vectors = engine.store.item_vectors(item_id)
            writes.append(ItemWrite(item=item, chunks=chunks, vectors=vectors if len(vectors) == len(chunks) else None))
        engine.store.upsert(writes)
        if progress is not None:
            progress("re-extract entities", min(start + 500, len(ids)), len(ids))
    engine.store.meta_set("entities_format", str(ENTITY_FORMAT))


# ---- retrievers ---------------------------------------------------------------------------------------


def doc_id_of(item: Any) -> str:
    """The BEIR id of a retrieved item: its ``_id`` field (item ids carry a collection prefix)."""
    value = item.fields.get("_id")
    return str(value) if value is not None else item.id.split(":", 1)[-1]


def run_profile(engine: Any, name: str, text: str, *, limit: int = DEPTH) -> Evidence:
    """One query through the product path under the named plan profile: classify, plan, retrieve.

    A leg whose index could not serve raises :class:`IndexUnavailable`: the product answers from the other
    legs and says so, but a figure scored on that answer would be the profile's in name only."""
    _, plan = engine.answer_pipeline().plan(SearchRequest(query=text, limit=limit), profile=PROFILES[name])
    evidence = engine.retrieve(plan)
    if evidence.legs_down:
        why = "; ".join(evidence.degraded)
        raise IndexUnavailable(f"the {name} profile ran without its {', '.join(evidence.legs_down)} leg, so its "
                               f"figures would be wrong: {why}", details={"legs_down": list(evidence.legs_down)})
    return evidence


def _run_profile(engine: Any, name: str, queries: Mapping[str, str], progress: Callable[[int], None]
                 ) -> tuple[dict[str, tuple[str, ...]], list[float], dict[str, tuple[bool, bool]]]:
    rankings: dict[str, tuple[str, ...]] = {}
    latencies: list[float] = []
    gates: dict[str, tuple[bool, bool]] = {}
    first = next(iter(queries.values()), None)
    if first is not None:  # warm-up: lazy loads (model session, index readers) are not query latency
        run_profile(engine, name, first)
    for i, (qid, text) in enumerate(queries.items(), start=1):
        t = time.perf_counter()
        evidence = run_profile(engine, name, text)
        latencies.append((time.perf_counter() - t) * 1000)
        rankings[qid] = tuple(dedupe(doc_id_of(h.item) for h in evidence.hits))
        g = evidence.gate
        gates[qid] = (g is not None and g.measured and not g.passed, g is not None and g.reformulated is not None)
        progress(i)
    return rankings, latencies, gates


class Bm25sBaseline:
    """bm25s over exactly the chunks and terms the store indexed, scoring distinct query terms."""

    def __init__(self, chunk_terms: Sequence[Sequence[str]], chunk_docs: Sequence[str]) -> None:
        import bm25s

        from ..store.text import BM25_B, BM25_K1

        self.docs = list(chunk_docs)
        self.index = bm25s.BM25(k1=BM25_K1, b=BM25_B, method="lucene")
        self.index.index([list(t) for t in chunk_terms], show_progress=False)

    @classmethod
    def from_engine(cls, engine: Any, dataset: BeirDataset) -> Bm25sBaseline:
        from ..ingest.ids import record_id
        from ..store.text import keyword_terms

        terms: list[list[str]] = []
        docs: list[str] = []
        for doc in dataset.corpus:
            for view in engine.store.item_chunks(record_id(COLLECTION, doc.id, "")):
                terms.append(keyword_terms(view.item.title, view.chunk.heading_path, view.chunk.text))
                docs.append(doc.id)
        if not terms:
            raise InvalidInput(f"the cached index for {dataset.name} holds no chunks; delete it and re-run")
        return cls(terms, docs)

    def search(self, query: str, k: int = DEPTH) -> list[str]:
        """Doc ids of the top-k chunks with a positive score (the store returns only matching chunks too)."""
        from ..store.text import analyze

        terms = [t for t in dict.fromkeys(analyze(query)) if t in self.index.vocab_dict]
        if not terms:
            return []
        scores = self.index.get_scores(terms)
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.lexsort((top, -scores[top]))]
        return dedupe(self.docs[i] for i in top if scores[i] > 0)


def _run_bm25s(baseline: Bm25sBaseline, queries: Mapping[str, str],
               progress: Callable[[int], None]) -> tuple[dict[str, tuple[str, ...]], list[float]]:
    rankings: dict[str, tuple[str, ...]] = {}
    latencies: list[float] = []
    for i, (qid, text) in enumerate(queries.items(), start=1):
        t = time.perf_counter()
        rankings[qid] = tuple(baseline.search(text))
        latencies.append((time.perf_counter() - t) * 1000)
        progress(i)
    return rankings, latencies


# Held-out query ids of retrieval sets, committed before any tuning on the rest (issue 12); SciFact's split
# is BEIR's own (qrels.tsv test, qrels_train.tsv train: pick it with load_beir's qrels_file).
RETRIEVAL_HELDOUT = {"hipporag_musique": "musique_heldout.txt"}


def retrieval_split(dataset: BeirDataset, split: str) -> BeirDataset:
    """The held-out or tuning half of ``dataset`` (``split`` "heldout" / "tune"; "all" returns it whole)."""
    if split == "all":
        return dataset
    if split not in ("heldout", "tune"):
        raise InvalidInput(f"unknown split {split!r}; choose all, heldout or tune", details={"field": "split"})
    name = RETRIEVAL_HELDOUT.get(dataset.name)
    if name is None:
        raise InvalidInput(f"{dataset.name} has no committed held-out list (known: {', '.join(RETRIEVAL_HELDOUT)}); "
                           "for SciFact pick the split by its qrels file", details={"field": "split"})
    text = resources.files("groundsearch.evaluation.data").joinpath(name).read_text("utf-8")
    held = {line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")}
    return dataset.only([q for q in dataset.queries if (q in held) == (split == "heldout")])


def parse_retrievers(spec: str | Sequence[str]) -> tuple[str, ...]:
    names = [n.strip() for n in (spec.split(",") if isinstance(spec, str) else spec) if n.strip()]
    unknown = [n for n in names if n not in RETRIEVERS]
    if unknown or not names:
        raise InvalidInput(f"unknown retriever(s) {unknown}; choose from {', '.join(RETRIEVERS)}",
                           details={"field": "retrievers", "value": unknown})
    return tuple(dict.fromkeys(names))


def run_eval(
    dataset: BeirDataset,
    retrievers: Sequence[str],
    *,
    embedder_name: str = "minilm",
    embedder: Embedder | None = None,
    base_settings: Settings | None = None,
    cache_root: Path | None = None,
    limit_queries: int | None = None,
    progress: Progress | None = None,
    split: str = "all",
) -> EvalReport:
    """Ingest (or reuse) the corpus, run each retriever over the evaluated queries (``split``: only the
    held-out or tuning half, before ``limit_queries``), score them."""
    names = parse_retrievers(retrievers)
    if limit_queries is not None and limit_queries < 1:
        raise InvalidInput("--limit-queries must be at least 1", details={"field": "limit_queries"})
    data = retrieval_split(dataset, split).limited(limit_queries)
    report = progress or (lambda task, done, total: None)
    engine = open_eval_engine(data, embedder_name=embedder_name, embedder=embedder, base_settings=base_settings,
                              cache_root=cache_root, progress=report, embed=bool(_NEEDS_VECTORS & set(names)))
    results: dict[str, RetrieverScores] = {}
    all_rankings: dict[str, Mapping[str, tuple[str, ...]]] = {}
    total = len(data.queries)
    backend = type(engine.store).__name__
    try:
        for name in names:
            report(name, 0, total)
            tick = (lambda n, name=name: report(name, n, total))
            if name == "bm25s":
                rankings, latencies = _run_bm25s(Bm25sBaseline.from_engine(engine, data), data.queries, tick)
                results[name] = score_rankings(rankings, data.qrels, latencies)
            else:
                rankings, latencies, gates = _run_profile(engine, name, data.queries, tick)
                results[name] = score_rankings(rankings, data.qrels, latencies, gates)
            all_rankings[name] = rankings
        model_id = engine.embedder.model_id if _NEEDS_VECTORS & set(names) else KEYWORD_ONLY
    finally:
        engine.close()
    return EvalReport(dataset=data.name, queries=total, embedder=model_id, results=results, rankings=all_rankings,
                      backend=backend)

