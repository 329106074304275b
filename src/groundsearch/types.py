"""Frozen, typed values passed between the stages of the pipeline.

Two families live here:

* internal hot-path values (``Item``, ``Chunk``, ``Hit``, ``Page``, ``SearchFilter``, ``RetrievalPlan``,
  ``EvidenceHit``, ``Evidence``) are frozen dataclasses with slots: cheap, hashable where it matters,
  never mutated after construction;
* values that cross the process edge (``Intent``, structured results, ``SearchResponse``) are frozen
  pydantic models, because they need a published JSON Schema (the LLM tier and the OpenAPI document
  are generated from them).

Nothing in this module does I/O.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

# --------------------------------------------------------------------------------------------------
# Items and chunks
# --------------------------------------------------------------------------------------------------

Status = Literal["draft", "published", "archived"]
STATUSES: tuple[Status, ...] = ("draft", "published", "archived")

CollectionKind = Literal["documents", "records"]
FieldType = Literal["keyword", "text", "date", "url", "int", "float", "list"]
FieldValue = Union[str, int, float, dt.date, tuple[str, ...], None]


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One typed field of a records collection.

    ``keyword`` and ``list`` fields are filterable by equality/membership (case-insensitive);
    ``text`` fields are searchable; ``date`` feeds the item's date; ``url`` feeds its link.
    """

    name: str
    type: FieldType = "keyword"
    label: str | None = None  # column heading in tables; defaults to the title-cased name


@dataclass(frozen=True, slots=True)
class CollectionSpec:
    """A named set of items with a declared kind and field schema (declared in TOML)."""

    name: str
    kind: CollectionKind = "documents"
    description: str = ""
    fields: tuple[FieldSpec, ...] = ()
    title_template: str | None = None  # e.g. "{product} {version}"; records only
    text_fields: tuple[str, ...] = ()  # records: fields joined into the searchable text
    id_field: str | None = None  # records: field whose value is the stable item id
    date_field: str | None = None
    url_field: str | None = None
    table_columns: tuple[str, ...] = ()  # records: columns of a table result, in order
    source_field: str | None = None  # records: who published an item; trending counts distinct sources by it

    def field(self, name: str) -> FieldSpec | None:
        for spec in self.fields:
            if spec.name == name:
                return spec
        return None

    @property
    def filterable_fields(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields if f.type in ("keyword", "list", "int", "url"))


@dataclass(frozen=True, slots=True)
class Item:
    """One stored unit: a document or a record. ``id`` is the canonical id used for de-duplication."""

    id: str
    collection: str
    title: str
    text: str
    url: str | None = None
    date: dt.date | None = None
    fields: Mapping[str, FieldValue] = field(default_factory=dict)
    tenant: str = ""
    status: Status = "published"
    superseded_by: str | None = None
    content_hash: str = ""
    source: str | None = None  # file path or record origin, for incremental re-ingest
    created_at: dt.datetime | None = None
    updated_at: dt.datetime | None = None


@dataclass(frozen=True, slots=True)
class Chunk:
    """A retrievable span of an item. Records are usually a single chunk at position 0."""

    id: str
    item_id: str
    position: int
    text: str
    heading_path: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()  # normalised entity names mentioned in this chunk (graph leg)


@dataclass(frozen=True, slots=True)
class ItemWrite:
    """Everything a store writes for one item, atomically: the item, its chunks, one vector per chunk.

    ``vectors`` is a float32 array of shape ``(len(chunks), dim)``, L2-normalised, or ``None`` when the
    caller ingests without embeddings (the vector leg then simply does not see the item).
    """

    item: Item
    chunks: tuple[Chunk, ...]
    vectors: Any | None = None  # numpy.ndarray; typed loosely to keep numpy out of this module


# --------------------------------------------------------------------------------------------------
# Filters and pages
# --------------------------------------------------------------------------------------------------


ReviewStatus = Literal["verified", "unverified", "flagged"]
REVIEW_STATUSES: tuple[ReviewStatus, ...] = ("verified", "unverified", "flagged")


@dataclass(frozen=True, slots=True)
class FieldFilter:
    """``name`` equals any of ``values`` (membership); comparison is case-insensitive."""

    name: str
    values: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SearchFilter:
    """Conditions compiled *into* each leg's query, never applied after it.

    ``tenant=None`` means no tenant scoping (local single-user mode); a string scopes to that tenant.
    By default only published, non-superseded items match.
    """

    collections: tuple[str, ...] = ()
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    fields: tuple[FieldFilter, ...] = ()
    statuses: tuple[Status, ...] = ("published",)
    include_superseded: bool = False
    tenant: str | None = None
    item_ids: tuple[str, ...] = ()  # restrict to these items (used by similar-to and graph legs)
    exclude_item_ids: tuple[str, ...] = ()
    # Review cadence (query/quality.py): ``review_status`` in these, where "unverified" also matches items with
    # none; ``next_review_date`` on or before ``review_due_before`` (items without a date never match it).
    review_statuses: tuple[str, ...] = ()
    review_due_before: dt.date | None = None


Hit = tuple[int, float]
"""One scored chunk from one leg: ``(key, score)``.

Query phase, then fetch phase (as in Lucene): legs return only chunk keys with scores, fusion and paging
work on keys, and :meth:`~groundsearch.store.base.Store.hydrate` turns just the final page's keys into
chunks and items. Resolving every candidate's ids inside each leg was a third of a keyword query's time on
SciFact (~85 µs of ~280 µs for a 100-hit page), for candidates fusion then discards.

``key`` is an integer the store assigns a chunk and never reuses (``chunks.key`` in SQLite, ``chunks.pk``
in Postgres); it means nothing outside the store that issued it. Scores are only comparable within a leg.
A plain pair, not a named tuple: building 100 named tuples cost ~20 µs, four times the pairs.
"""


@dataclass(frozen=True, slots=True)
class Page:
    hits: tuple[Hit, ...]
    offset: int
    has_more: bool


@dataclass(frozen=True, slots=True)
class ChunkView:
    """A chunk with its item, as hydrated for display and synthesis."""

    chunk: Chunk
    item: Item


@dataclass(frozen=True, slots=True)
class PreviewHit:
    item_id: str
    collection: str
    title: str
    url: str | None
    title_match: bool  # the prefix matched the title (ranked before text-only matches)


@dataclass(frozen=True, slots=True)
class EntityEdge:
    """Co-occurrence of two entities in the same chunk; ``weight`` counts chunks."""

    source: str
    target: str
    weight: float
    last_seen: dt.date | None = None


# --------------------------------------------------------------------------------------------------
# Plans and evidence
# --------------------------------------------------------------------------------------------------

Leg = Literal["keyword", "vector", "graph"]
Profile = Literal["rrf", "weighted", "keyword", "vector"]
MergeRule = Literal["fused_score", "recency"]
Fusion = Literal["rrf", "zscore"]
Rewrite = Literal["none", "hyde", "multi_query", "prf", "rocchio"]  # prf: keyword expansion (RM3-style); rocchio: dense
RetrievalPattern = Literal["pipeline", "agentic", "kg", "hybrid"]
GateJudge = Literal["vector", "multilingual"]  # the vector leg's cosine, or e5 over the candidates (query.judge)


@dataclass(frozen=True, slots=True)
class RetrievalPlan:
    """What retrieval will do, decided before any I/O (``query.planner.plan_retrieval`` is pure).

    ``collections`` empty means every collection, searched together in one pass.
    """

    query: str
    collections: tuple[str, ...] = ()
    pattern: RetrievalPattern = "pipeline"
    legs: tuple[Leg, ...] = ("keyword", "vector")
    profile: Profile = "rrf"
    k_per_leg: int = 100
    rrf_k: int = 60
    fusion: Fusion = "rrf"  # how the legs' rankings combine: reciprocal ranks, or z-scored leg scores
    filter: SearchFilter = SearchFilter()
    limit: int = 10
    offset: int = 0
    merge: MergeRule = "fused_score"
    rewrite: Rewrite = "none"
    rerank: bool = False
    gate_threshold: float = 0.0
    gate_judge: GateJudge = "vector"
    reasons: tuple[str, ...] = ()  # one line per decision, printed by --explain
    graph_seeds: tuple[str, ...] = ()  # normalised entity names the graph leg's PageRank restarts from
    rerank_depth: int = 0  # how many fused candidates the configured reranker re-scores
    sub_queries: tuple[str, ...] = ()  # multi_query: each retrieved on its own, fused with the query by RRF
    gate_depth: int = 10  # the gate judges the fused top-N before paging, so every page gets one verdict
    reformulation: str | None = None  # the gate's one retry when the first candidates fail it
    relax_horizon: bool = False  # a guessed horizon that leaves a planned collection empty is dropped for it
    graph_passage_seeds: int = 0  # the graph walk also restarts from the entities of the top-N vector hits
    graph_weight: float = 1.0  # z-score fusion with the graph leg: the weight of the graph's ranks in the final RRF


@dataclass(frozen=True, slots=True)
class LegScore:
    leg: Leg
    rank: int  # 1-based
    score: float


@dataclass(frozen=True, slots=True)
class EvidenceHit:
    """One fused result with provenance: which legs found it, at which rank and score."""

    chunk: Chunk
    item: Item
    score: float
    legs: tuple[LegScore, ...] = ()

    @property
    def id(self) -> str:
        return self.chunk.id


@dataclass(frozen=True, slots=True)
class GateVerdict:
    """The relevance gate's judgement of a result set (``query.gate``); one per request, whatever the page."""

    best_score: float
    threshold: float
    passed: bool
    measured: bool = True  # False: no cosine to judge by (keyword-only evidence, or no evidence)
    reformulated: str | None = None  # the retry query whose candidates were kept, if any


@dataclass(frozen=True, slots=True)
class Evidence:
    plan: RetrievalPlan
    hits: tuple[EvidenceHit, ...]
    has_more: bool
    latency_ms: Mapping[str, float] = field(default_factory=dict)
    degraded: tuple[str, ...] = ()
    gate: GateVerdict | None = None
    legs_down: tuple[str, ...] = ()  # legs whose index could not serve this request (``degraded`` says why)


@dataclass(frozen=True, slots=True)
class SimilarHit:
    item: Item
    cosine: float
    likely_duplicate: bool


# --------------------------------------------------------------------------------------------------
# Intent (pydantic: its JSON Schema constrains the LLM tier and is exported)
# --------------------------------------------------------------------------------------------------

INTENT_SCHEMA_VERSION = "2"  # 2: open set of chart kinds + chart_requested (the user's own words for the kind)

Format = Literal["default", "table", "chart", "timeline", "graph"]
# Every chart kind a request can name. ``normalize`` draws those the stored data can honestly support and
# downgrades the rest out loud (``unsupported-format``); "other" is a kind outside this list, whose name the
# user used is kept in ``Intent.chart_requested`` so the response can say what was asked.
ChartSubtype = Literal[
    "bar", "ranked-bar", "stacked-bar", "line", "area", "timeline", "tornado", "pie", "donut", "histogram",
    "heatmap", "scatter", "bubble", "treemap", "sunburst", "radar", "waterfall", "funnel", "gantt", "box",
    "venn", "word-cloud", "choropleth", "sankey", "other",
]
Complexity = Literal["simple", "medium", "complex"]
Tier = Literal["rules", "prototypes", "llm", "hint", "cache"]


class Intent(BaseModel):
    """What the user asked for, typed. Produced by the intent cascade; consumed by the planner."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    domains: tuple[str, ...] = Field(default=(), max_length=8)
    retrieval_pattern: RetrievalPattern = "pipeline"
    format: Format = "default"
    chart_subtype: ChartSubtype | None = None
    # The asked chart kind in the user's words ("donut", "diagrama de Gantt", "sankey"), when one was named;
    # the response names it when it honours or downgrades it.
    chart_requested: str | None = Field(default=None, max_length=64)
    horizon_days: int | None = Field(default=None, ge=1, le=3650)
    comparison_targets: tuple[str, ...] = Field(default=(), max_length=8)
    topic_keywords: tuple[str, ...] = Field(default=(), max_length=16)
    complexity: Complexity = "simple"
    confidence: float = Field(default=0.0, ge=0.0, le=1.0)
    tier: Tier = "rules"


# --------------------------------------------------------------------------------------------------
# Structured results (rows and series come from stored fields only)
# --------------------------------------------------------------------------------------------------


class _Result(BaseModel):
    model_config = ConfigDict(frozen=True)


class TableResult(_Result):
    kind: Literal["table"] = "table"
    title: str
    collection: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    row_ids: tuple[str, ...]  # evidence id of each row, same order


class ChartPoint(_Result):
    """One bar, slice, cell, bin or dot. ``value`` is the count or the y value; the optional fields say where
    it sits when a label alone cannot: the stack or heatmap row (``series``), a scatter x or a histogram bin
    (``x`` to ``x_end``), a bubble's size."""

    label: str
    value: float
    source_ids: tuple[str, ...] = ()
    series: str | None = None
    x: float | None = None
    x_end: float | None = None
    size: float | None = None


class ChartResult(_Result):
    kind: Literal["chart"] = "chart"
    title: str
    subtype: ChartSubtype
    x_label: str
    y_label: str
    points: tuple[ChartPoint, ...]
    source: str  # how the series was derived from stored data
    series_label: str | None = None  # what ``ChartPoint.series`` names (a stack, a heatmap row, a box group)
    requested: str | None = None  # the kind as the user asked for it, when it was drawn as asked


class TimelineEvent(_Result):
    date: dt.date
    label: str
    source_id: str


class TimelineResult(_Result):
    kind: Literal["timeline"] = "timeline"
    title: str
    events: tuple[TimelineEvent, ...]


class GraphNode(_Result):
    id: str
    label: str
    weight: float = 1.0


class GraphEdge(_Result):
    source: str
    target: str
    weight: float = 1.0


class GraphResult(_Result):
    kind: Literal["graph"] = "graph"
    title: str
    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]


class UnsupportedFormatResult(_Result):
    kind: Literal["unsupported-format"] = "unsupported-format"
    requested: str
    reason: str
    substitute: str  # the kind/subtype actually shown instead


class LowConfidenceResult(_Result):
    kind: Literal["low-confidence"] = "low-confidence"
    reason: str
    best_score: float
    threshold: float


StructuredResult = Annotated[
    Union[TableResult, ChartResult, TimelineResult, GraphResult, UnsupportedFormatResult, LowConfidenceResult],
    Field(discriminator="kind"),
]


# --------------------------------------------------------------------------------------------------
# Prose with citations
# --------------------------------------------------------------------------------------------------


VERIFIED_MEANS = (
    "true: this sentence appears in the cited source (for narrated prose: its names, numbers and URLs do) and it "
    "passed the content-safety check; it is not a claim that it is true. false: it could not be matched to its "
    "source, or `safety` lists why it is flagged or withheld."
)


class Sentence(_Result):
    text: str
    citations: tuple[str, ...]  # evidence ids
    verified: bool = Field(default=True, description=VERIFIED_MEANS)
    safety: tuple[str, ...] = Field(default=(), description=(
        "content-safety flags (credential prompt, instruction aimed at the reader, link off the source's domain); "
        "a flagged sentence is never verified, and one that asks the reader to act at a link is withheld"))


class Prose(_Result):
    sentences: tuple[Sentence, ...] = ()
    mode: Literal["extractive", "llm", "none"] = "extractive"

    @property
    def text(self) -> str:
        return " ".join(s.text for s in self.sentences)


# --------------------------------------------------------------------------------------------------
# Request and response of the whole pipeline (the API body and the CLI's --json output)
# --------------------------------------------------------------------------------------------------

MAX_QUERY_CHARS = 2000
# The HTTP edge's bounds on an item id and a collection name, which every surface without a body limit (MCP over
# stdio) applies too: ids are a collection, a source and a hash or key (well under 1,024), names are config keys.
MAX_ITEM_ID_CHARS = 1024
MAX_COLLECTION_CHARS = 100


class Hints(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    domain: str | None = None
    horizon_days: int | None = Field(default=None, ge=1, le=3650)
    format: Format | None = None


class SearchRequest(BaseModel):
    """One search, as every interface submits it. Validation here is the single source of truth."""

    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True)

    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    limit: int = Field(default=20, ge=1, le=100)
    offset: int = Field(default=0, ge=0, le=10_000)
    threshold: float | None = Field(default=None, ge=0.0, le=1.0)
    collections: tuple[str, ...] | None = None
    filters: dict[str, str | list[str]] | None = None  # field -> value or values; "date_from"/"date_to" too
    hints: Hints | None = None
    session_id: str | None = Field(default=None, max_length=128)
    profile: Profile = "rrf"
    include_drafts: bool = False
    include_archived: bool = False
    include_superseded: bool = False


class EvidenceOut(BaseModel):
    """An evidence hit as shown to users: ids, title, link, snippet, breadcrumb, scores."""

    model_config = ConfigDict(frozen=True)

    id: str
    item_id: str
    collection: str
    title: str
    url: str | None = None
    date: dt.date | None = None
    snippet: str
    heading_path: tuple[str, ...] = ()
    fields: dict[str, Any] = {}
    score: float
    legs: dict[str, dict[str, float]] = {}  # leg -> {"rank": r, "score": s}
    safety: tuple[str, ...] = ()  # content-safety flags of the passage; a flagged hit's url is not offered as its link


class Diagnostics(BaseModel):
    model_config = ConfigDict(frozen=True)

    tier: Tier | None = None
    cache_hit: bool = False
    model: str | None = None
    latency_ms: dict[str, float] = {}
    degraded: tuple[str, ...] = ()
    plan: dict[str, Any] | None = None
    gate: dict[str, Any] | None = None  # the relevance gate's verdict on the fused top-N (same on every page)
    # chunks stored without a vector yet (ingest defers embedding): the vector leg covers only the others
    vectors_pending: int | None = None
    usage: dict[str, Any] | None = None  # LLM tokens and cost per stage, against the request's token budget
    request_id: str | None = None  # the telemetry record's id; feedback on this answer's sources names it


class SearchResponse(BaseModel):
    model_config = ConfigDict(frozen=True)

    query: str
    intent: Intent | None = None
    prose: Prose = Prose(mode="none")
    structured_results: tuple[StructuredResult, ...] = ()
    results: tuple[EvidenceOut, ...] = ()
    has_more: bool = False
    offset: int = 0
    diagnostics: Diagnostics = Diagnostics()


# --------------------------------------------------------------------------------------------------
# Stream events: the JSON response is the fold of these (one orchestrator for both)
# --------------------------------------------------------------------------------------------------

EventName = Literal[
    "intent", "plan", "keyword", "vector", "results", "table", "chart", "timeline", "graph",
    "unsupported-format", "low-confidence", "prose", "complete", "error",
    "dossier", "discovery", "handoff", "audit", "reply", "token",  # chat turns (assistant/turn.py)
]


@dataclass(frozen=True, slots=True)
class Event:
    name: EventName
    data: Mapping[str, Any]
