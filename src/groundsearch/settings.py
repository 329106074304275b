"""Typed, frozen settings: the only module that reads the environment or the config file.

Precedence, highest first: keyword overrides passed to :func:`load_settings` > environment variables
(``GROUNDSEARCH_*``, plus ``GROQ_API_KEY``) > the TOML config file > defaults. The config file is
``GROUNDSEARCH_CONFIG`` if set, else ``groundsearch.toml`` in the working directory if present.

Everything downstream receives a ``Settings`` value explicitly; nothing builds clients at import time.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator

from .errors import ConfigError
from .types import CollectionSpec, FieldSpec

__all__ = [
    "ApiSettings",
    "AuditorSettings",
    "AssistantSettings",
    "ChatSettings",
    "IntentSettings",
    "LLMSettings",
    "RetrievalSettings",
    "ModelPrice",
    "Settings",
    "TelemetrySettings",
    "WeightedProfile",
    "load_settings",
    "parse_collections",
]

ENV_PREFIX = "GROUNDSEARCH_"
GROQ_BASE_URL = "https://api.groq.com/openai/v1"
DEFAULT_GROQ_MODELS = ("llama-3.1-8b-instant",)


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class WeightedProfile(_Frozen):
    """The named weighted scoring profile: a linear blend users can pick instead of RRF.

    Defaults follow the product brief: cosine similarity carries most of the signal, exact title and
    keyword-field matches lift precise hits, and a small recency boost decays linearly to zero over
    ``recency_window_days``.
    """

    cosine: float = Field(default=0.70, ge=0)
    title_match: float = Field(default=0.15, ge=0)
    keyword_field_match: float = Field(default=0.10, ge=0)
    recency: float = Field(default=0.05, ge=0)
    recency_window_days: int = Field(default=365, ge=1)
    # Users' useful / not-useful marks lift an item by at most this share of its score, and only once it has
    # feedback_min_marks marks: one click cannot reorder results, and an item nobody marked never loses.
    feedback: float = Field(default=0.03, ge=0, le=0.2)
    feedback_min_marks: int = Field(default=2, ge=1)


class RetrievalSettings(_Frozen):
    rrf_k: int = Field(default=60, ge=1)
    # keyword + vector fuse by z-scored leg scores unless "rrf". With the graph leg: for an entity-seeking
    # question, that fused ranking and the graph's meet in an RRF at graph_question_k, the graph's ranks
    # weighted graph_weight; for any other graph-routed request (comparisons, graph formats, bridge phrases),
    # RRF over the three legs at graph_rrf_k (PageRank mass is heavy-tailed, so ranks fuse it better).
    # Chosen by measurement, BENCHMARKS.md issue 12.
    fusion: Literal["zscore", "rrf"] = "zscore"
    graph_rrf_k: int = Field(default=10, ge=1)
    graph_question_k: int = Field(default=8, ge=1)
    graph_weight: float = Field(default=1.2, gt=0, le=10)
    k_per_leg: int = Field(default=100, ge=1, le=1000)
    weighted: WeightedProfile = WeightedProfile()
    duplicate_threshold: float = Field(default=0.95, ge=0, le=1)
    # Up to this many vectors the vector leg scans exactly (always full filtered pages, perfect recall);
    # above it an HNSW graph answers unfiltered queries. Chosen by measurement, see BENCHMARKS.md.
    exact_vector_max: int = Field(default=200_000, ge=0)
    # The HNSW graph's search beam (usearch's ef). None grows it with the live rows, ~1 per 1,000 rounded up
    # to a power of two (1M chunks: 1024, recall@10 0.968 at 1M); see docs/scaling.md. On Postgres it is the
    # floor of hnsw.ef_search (None: the rows asked for; pgvector caps it at 1000, where 1M reaches 0.950).
    hnsw_ef: int | None = Field(default=None, ge=16, le=65_536)
    # Postgres only: BM25 from a tantivy index each worker derives from the change log ("local"), or inside
    # Postgres over the postings tables ("sql"). Chosen by measurement, see docs/scaling.md.
    pg_keyword_leg: Literal["local", "sql"] = "local"
    # BLAS threads for the vector scan; the legs already run concurrently, so more oversubscribes the cores
    # (threads.py, BENCHMARKS.md). 0 leaves the BLAS library's own default.
    blas_threads: int = Field(default=1, ge=0, le=256)
    # None: the threshold calibrated for the configured embedder (query.gate.CALIBRATED_THRESHOLDS); 0 turns it off.
    gate_threshold: float | None = Field(default=None, ge=0, le=1)
    # The e5 judge's threshold for requests the embedder cannot read (query.judge); None: query.gate's
    # judge_threshold (MULTILINGUAL_THRESHOLD for the nine languages, MULTILINGUAL_THRESHOLD_PAST_NINE past
    # them); a value here holds for every language; 0 leaves those requests unjudged, as before the judge.
    gate_multilingual_threshold: float | None = Field(default=None, ge=0, le=1)
    gate_depth: int = Field(default=10, ge=1, le=1000)
    # The reranker slot, chosen by configuration: "none", "e5" (bi-encoder re-scoring), "llm" (the configured
    # OpenAI-compatible endpoint scores passages), "onnx" (a BERT-style cross-encoder at rerank_model_path).
    reranker: Literal["none", "e5", "llm", "onnx"] = "none"
    rerank_depth: int = Field(default=30, ge=1, le=200)
    rerank_model_path: Path | None = None


class IntentSettings(_Frozen):
    rules_threshold: float = Field(default=0.85, ge=0, le=1)
    prototype_threshold: float = Field(default=0.80, ge=0, le=1)
    cache_size: int = Field(default=4096, ge=0)
    cache_ttl_s: int = Field(default=86_400, ge=0)
    shadow: bool = False


class ModelPrice(_Frozen):
    prompt_per_mtok: float = Field(default=0.0, ge=0)
    completion_per_mtok: float = Field(default=0.0, ge=0)


class LLMSettings(_Frozen):
    """An optional LLM. With none configured, answers are extractive and intent uses tiers 1–2."""

    base_url: str | None = None
    api_key: SecretStr | None = None
    models: tuple[str, ...] = ()  # fallback chain, tried in order
    dialect: Literal["auto", "openai", "llamacpp"] = "auto"
    gguf_path: Path | None = None
    timeout_s: float = Field(default=20.0, gt=0)
    max_tokens: int = Field(default=512, ge=16)
    # Narration's own cap: a few cited sentences. 512 tokens decode for minutes on a shared CPU (~0.4 s/token
    # at load 15); an endpoint with a fast model can raise it.
    narration_max_tokens: int = Field(default=160, ge=16)
    request_token_budget: int = Field(default=4000, ge=64)
    prompts_version: str = "v1"

    # USD per million tokens by model name (as the endpoint reports it, or gguf:<file>); unpriced models cost 0
    # and the report says they are unpriced.
    prices: dict[str, ModelPrice] = {}

    @property
    def enabled(self) -> bool:
        return bool(self.base_url or self.gguf_path)


class AuditorSettings(_Frozen):
    """The reply auditor. Link health is off by default: an air-gapped deployment has no outside network, and a
    reply then says so instead of implying its links were checked."""

    url_health: bool = False
    url_timeout_s: float = Field(default=3.0, gt=0)
    url_cache_ttl_s: int = Field(default=24 * 3600, ge=1)
    url_allow_private: bool = False  # probe loopback / private addresses (SSRF); only for tests and intranets
    max_rerolls: int = Field(default=2, ge=0, le=2)


class ApiSettings(_Frozen):
    local_mode: bool = True  # no API keys: a single trusted user
    # Local mode served on an address that is not loopback (``serve --host 0.0.0.0``): refused unless set, since
    # whoever reaches the port is then admin over every tenant. Set it when the port is private anyway (a container
    # whose port is published to the host's loopback only).
    local_mode_network: bool = False
    keys_file: Path | None = None
    search_per_minute: int = Field(default=30, ge=1)
    preview_per_minute: int = Field(default=60, ge=1)
    # Uploads (files and posted records) per key: each may carry a 32 MiB body and queue an ingest job, and the
    # budget is counted before the body is read (interfaces/api/deps.py, AdmittedRoute).
    ingest_per_minute: int = Field(default=60, ge=1)
    # Key writes (POST / DELETE /api/keys) per key: each rewrites the keys file, which every request of every tenant
    # then re-reads, so an admin minting and revoking in a loop slowed every tenant (tests/security/test_key_churn.py).
    keys_per_minute: int = Field(default=10, ge=1)
    # A tenant's budget per bucket, in keys' budgets: a tenant admin mints (or revokes and re-mints) keys at
    # will, so per-key budgets alone let one tenant multiply its share of the machine without end.
    tenant_budget_keys: int = Field(default=10, ge=1)
    # Keys a tenant admin may hold in its tenant: the keys file is one JSON document every request of every tenant
    # re-reads after a change, so minting without end slowed everyone (at 50k keys: 0.9 s a re-read, 3.7 s a create).
    # The operator (and the CLI) are not bound by it.
    max_keys_per_tenant: int = Field(default=1000, ge=1)
    max_body_bytes: int = Field(default=64 * 1024, ge=1024)
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    # Addresses of reverse proxies whose X-Forwarded-For / -Proto headers are believed; empty: none are, and the
    # rate limits key on the TCP peer. "*" trusts any peer (only behind a proxy that is the sole way in).
    trusted_proxies: tuple[str, ...] = ()
    # Work one upload may cause (see docs/security.md "Uploads"): chunks per file, seconds per ingest job, and
    # the size up to which POST /api/items answers synchronously instead of returning a job.
    upload_max_chunks: int = Field(default=1000, ge=1)
    upload_timeout_s: float = Field(default=300.0, gt=0)
    upload_sync_max_bytes: int = Field(default=256 * 1024, ge=0)


class McpSettings(_Frozen):
    """What the MCP tool (``groundsearch mcp``) may see: one tenant, unless every tenant is asked for by name.

    An MCP client is a model acting for whoever configured it; it carries no key, so the scope is configuration.
    """

    tenant: str = ""  # the default tenant unless set
    all_tenants: bool = False


class TelemetrySettings(_Frozen):
    """One record per request (docs/operations.md). The query is kept as a keyed HMAC unless ``store_raw_query``."""

    enabled: bool = True
    # The HMAC key; unset, a random key is made once and kept beside the records (hashes then compare only
    # within this deployment). Set it to compare hashes across deployments or to rotate it.
    hash_key: SecretStr | None = None
    store_raw_query: bool = False  # opt-in: the raw text, after the redactions below
    redact: tuple[Literal["email", "phone", "key"], ...] = ("email", "phone", "key")
    retention_days: int = Field(default=30, ge=1)
    cost_ceiling_usd_per_day: float | None = Field(default=None, ge=0)
    token_ceiling_per_day: int | None = Field(default=None, ge=0)


class RetrievalFieldSettings(_Frozen):
    """A kind of retrieval entity (product, venue, …): filled from these collection fields of the sources, or from
    these terms (case-insensitive) when the user names them; ``question`` asks for it when it is missing."""

    source_fields: tuple[str, ...] = ()
    terms: tuple[str, ...] = ()
    question: str = ""


class SignalSettings(_Frozen):
    """A qualification signal (scale, budget, …): regular expressions over the user's text (group 1, or the whole
    match, is the value); ``question`` asks for it. Signals steer the conversation and never reach the query."""

    patterns: tuple[str, ...] = ()
    question: str = ""


class AssistantSettings(_Frozen):
    """One configured assistant (``[assistants.NAME]``); empty fields take the built-in defaults of
    ``assistant/config.py``, which fit the demo corpus."""

    identity: str = ""
    instructions: str = ""
    system_prompt: str = ""  # overrides the generated one (identity + hierarchy + guard + charter) when set
    collections: tuple[str, ...] = ()  # knowledge charter: collections it may ground on (empty: all)
    source_kinds: tuple[str, ...] = ()  # "documents" / "records" (empty: both)
    fallback_text: str = ""
    specialists: tuple[str, ...] = ()  # assistants it may hand over to
    topics: tuple[str, ...] = ()  # words that route a handoff to this assistant
    aliases: dict[str, str] = {}  # spelling → canonical entity name
    retrieval_fields: dict[str, RetrievalFieldSettings] = {}
    signals: dict[str, SignalSettings] = {}


class ChatSettings(_Frozen):
    default_assistant: str = "default"
    keep_turns: int = Field(default=50, ge=1, le=10_000)  # stored per conversation; older turns are dropped
    # Stored per owner (a key; the operators' shared scope; the MCP tool): starting one more drops the owner's
    # least recently continued. Unbounded, one key starting conversations in a loop grew the store without end.
    keep_conversations: int = Field(default=200, ge=1, le=100_000)
    prompt_turns: int = Field(default=2, ge=0, le=50)  # earlier turns the LLM sees
    sources: int = Field(default=6, ge=1, le=20)  # sources in a dossier
    max_tokens: int = Field(default=200, ge=16)
    # Tokens one turn may spend: the reply and up to two auditor rerolls each carry the dossier prompt
    # (~1,400 tokens on Qwen's template), so search's per-request budget (llm.request_token_budget) is too small.
    token_budget: int = Field(default=8000, ge=64)
    # Render tools offered to the model; every one costs prompt tokens on each turn (all five: ~400 on Qwen's
    # template), which a CPU model pays in seconds. The offline assistant always draws evidence cards.
    render_tools: tuple[str, ...] = ("render_evidence_card", "render_recommendation")


DEFAULT_COLLECTIONS: tuple[CollectionSpec, ...] = (CollectionSpec(name="docs", kind="documents"),)


class Settings(_Frozen):
    data_dir: Path = Path("groundsearch-data")
    config_file: Path | None = None
    database_url: str | None = None
    redis_url: str | None = None
    embedder: Literal["minilm", "e5", "hash"] = "minilm"
    embed_batch_size: int = Field(default=32, ge=1)
    collections: tuple[CollectionSpec, ...] = DEFAULT_COLLECTIONS
    default_collection: str = "docs"
    domains: dict[str, tuple[str, ...]] = {}
    retrieval: RetrievalSettings = RetrievalSettings()
    intent: IntentSettings = IntentSettings()
    llm: LLMSettings = LLMSettings()
    api: ApiSettings = ApiSettings()
    mcp: McpSettings = McpSettings()
    telemetry: TelemetrySettings = TelemetrySettings()
    auditor: AuditorSettings = AuditorSettings()
    chat: ChatSettings = ChatSettings()
    assistants: dict[str, AssistantSettings] = {}

    @field_validator("collections")
    @classmethod
    def _unique_names(cls, value: tuple[CollectionSpec, ...]) -> tuple[CollectionSpec, ...]:
        names = [c.name for c in value]
        if len(set(names)) != len(names):
            raise ValueError(f"collection names must be unique, got {names}")
        return value

    def collection(self, name: str) -> CollectionSpec | None:
        for spec in self.collections:
            if spec.name == name:
                return spec
        return None

    @property
    def collection_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.collections)


# --------------------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------------------

_FIELD_TYPES = {"keyword", "text", "date", "url", "int", "float", "list"}


def parse_collections(raw: Mapping[str, Any]) -> tuple[CollectionSpec, ...]:
    """``[collections.NAME]`` tables → ``CollectionSpec`` values, with errors naming the bad key."""
    specs = []
    for name, table in raw.items():
        where = f"collections.{name}"
        if not isinstance(table, Mapping):
            raise ConfigError(f"{where} must be a table")
        if not name.replace("_", "").replace("-", "").isalnum():
            raise ConfigError(f"{where}: collection names use letters, digits, '-' and '_' only")
        known = {"kind", "description", "fields", "title", "text_fields", "id_field", "date_field", "url_field",
                 "table_columns", "labels", "source_field"}
        unknown = set(table) - known
        if unknown:
            raise ConfigError(f"{where}: unknown keys {sorted(unknown)}; expected some of {sorted(known)}")
        kind = table.get("kind", "documents")
        if kind not in ("documents", "records"):
            raise ConfigError(f"{where}.kind must be 'documents' or 'records', got {kind!r}")
        labels = table.get("labels", {})
        fields = []
        for fname, ftype in dict(table.get("fields", {})).items():
            if ftype not in _FIELD_TYPES:
                raise ConfigError(f"{where}.fields.{fname}: type must be one of {sorted(_FIELD_TYPES)}, got {ftype!r}")
            fields.append(FieldSpec(name=fname, type=ftype, label=labels.get(fname)))
        names = {f.name for f in fields}
        for key in ("id_field", "date_field", "url_field", "source_field"):
            if table.get(key) and table[key] not in names:
                raise ConfigError(f"{where}.{key} names {table[key]!r}, which is not in {where}.fields")
        for key in ("text_fields", "table_columns"):
            missing = [f for f in table.get(key, ()) if f not in names]
            if missing:
                raise ConfigError(f"{where}.{key} names {missing}, not in {where}.fields")
        specs.append(
            CollectionSpec(
                name=name,
                kind=kind,
                description=table.get("description", ""),
                fields=tuple(fields),
                title_template=table.get("title"),
                text_fields=tuple(table.get("text_fields", ())),
                id_field=table.get("id_field"),
                date_field=table.get("date_field"),
                url_field=table.get("url_field"),
                table_columns=tuple(table.get("table_columns", ())),
                source_field=table.get("source_field"),
            )
        )
    return tuple(specs)


def _env_layer(env: Mapping[str, str]) -> dict[str, Any]:
    """Environment variables → a nested dict shaped like ``Settings``."""
    out: dict[str, Any] = {}

    def put(path: str, value: Any) -> None:
        node = out
        *parents, leaf = path.split(".")
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = value

    simple = {
        "DATA_DIR": "data_dir",
        "DATABASE_URL": "database_url",
        "REDIS_URL": "redis_url",
        "EMBEDDER": "embedder",
        "DEFAULT_COLLECTION": "default_collection",
        "RRF_K": "retrieval.rrf_k",
        "FUSION": "retrieval.fusion",
        "K_PER_LEG": "retrieval.k_per_leg",
        "BLAS_THREADS": "retrieval.blas_threads",
        "DUPLICATE_THRESHOLD": "retrieval.duplicate_threshold",
        "EXACT_VECTOR_MAX": "retrieval.exact_vector_max",
        "HNSW_EF": "retrieval.hnsw_ef",
        "PG_KEYWORD_LEG": "retrieval.pg_keyword_leg",
        "GATE_THRESHOLD": "retrieval.gate_threshold",
        "RERANKER": "retrieval.reranker",
        "RERANK_DEPTH": "retrieval.rerank_depth",
        "RERANK_MODEL_PATH": "retrieval.rerank_model_path",
        "LLM_BASE_URL": "llm.base_url",
        "LLM_API_KEY": "llm.api_key",
        "LLM_DIALECT": "llm.dialect",
        "LLM_GGUF": "llm.gguf_path",
        "LLM_TIMEOUT_S": "llm.timeout_s",
        "LLM_MAX_TOKENS": "llm.max_tokens",
        "PROMPTS_VERSION": "llm.prompts_version",
        "INTENT_SHADOW": "intent.shadow",
        "LOCAL_MODE": "api.local_mode",
        "LOCAL_MODE_NETWORK": "api.local_mode_network",
        "KEYS_FILE": "api.keys_file",
        "MCP_TENANT": "mcp.tenant",
        "MCP_ALL_TENANTS": "mcp.all_tenants",
        "TELEMETRY": "telemetry.enabled",
        "TELEMETRY_KEY": "telemetry.hash_key",
        "TELEMETRY_RAW_QUERY": "telemetry.store_raw_query",
        "TELEMETRY_RETENTION_DAYS": "telemetry.retention_days",
        "HOST": "api.host",
        "URL_HEALTH": "auditor.url_health",
        "PORT": "api.port",
    }
    for suffix, path in simple.items():
        value = env.get(ENV_PREFIX + suffix)
        if value not in (None, ""):
            put(path, value)
    proxies = env.get(ENV_PREFIX + "TRUSTED_PROXIES")
    if proxies:
        put("api.trusted_proxies", tuple(p.strip() for p in proxies.split(",") if p.strip()))
    models = env.get(ENV_PREFIX + "LLM_MODELS")
    if models:
        put("llm.models", tuple(m.strip() for m in models.split(",") if m.strip()))
    groq = env.get("GROQ_API_KEY")
    if groq and "base_url" not in out.get("llm", {}):
        put("llm.base_url", GROQ_BASE_URL)
        put("llm.api_key", groq)
        if "models" not in out.get("llm", {}):
            put("llm.models", DEFAULT_GROQ_MODELS)
    return out


def _merge(base: dict[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in top.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = _merge(dict(merged[key]), value)
        else:
            merged[key] = value
    return merged


def load_settings(
    config: str | Path | None = None,
    *,
    env: Mapping[str, str] | None = None,
    **overrides: Any,
) -> Settings:
    """Build ``Settings`` from defaults, the TOML file, the environment and ``overrides``, in that order."""
    env = os.environ if env is None else env
    path: Path | None = Path(config) if config else None
    if path is None and env.get(ENV_PREFIX + "CONFIG"):
        path = Path(env[ENV_PREFIX + "CONFIG"])
    if path is None and Path("groundsearch.toml").is_file():
        path = Path("groundsearch.toml")

    layer: dict[str, Any] = {}
    if path is not None:
        try:
            with open(path, "rb") as fh:
                layer = tomllib.load(fh)
        except FileNotFoundError as exc:
            raise ConfigError(f"config file {path} does not exist") from exc
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"config file {path} is not valid TOML: {exc}") from exc
        if "collections" in layer:
            layer["collections"] = parse_collections(layer["collections"])
        if "data_dir" in layer and not Path(layer["data_dir"]).is_absolute():
            layer["data_dir"] = str(path.parent / layer["data_dir"])
        layer["config_file"] = path
    layer = _merge(layer, _env_layer(env))
    layer = _merge(layer, overrides)
    if "domains" in layer:
        layer["domains"] = {k: tuple(v) if not isinstance(v, str) else (v,) for k, v in layer["domains"].items()}
    try:
        settings = Settings.model_validate(layer)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ConfigError(f"invalid setting {where}: {first['msg']}", details={"errors": exc.errors()}) from exc
    if settings.collection(settings.default_collection) is None:
        settings = settings.model_copy(update={"default_collection": settings.collections[0].name})
    for domain, targets in settings.domains.items():
        missing = [t for t in targets if settings.collection(t) is None]
        if missing:
            raise ConfigError(f"domains.{domain} maps to unknown collections {missing}")
    return settings
