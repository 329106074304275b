"""Request and response bodies specific to the HTTP edge; the search body itself is the engine's ``SearchRequest``.

``SearchBody`` differs from ``SearchRequest`` in one documented way: ``limit`` is clamped to 1–100 instead of
rejected, because a typeahead or a paging client asking for 500 should get the maximum page, not an error.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ...types import MAX_COLLECTION_CHARS, MAX_QUERY_CHARS, Item, SearchRequest

__all__ = [
    "CacheClearOut", "HealthOut", "IngestOut", "ItemOut", "KeyCreateIn", "KeyCreatedOut", "KeyOut", "PreviewItem",
    "PreviewOut", "RecordsIn", "SearchBody", "SimilarItem", "SimilarOut", "SuggestionsOut",
]

MAX_LIMIT = 100
PREVIEW_MAX = 20
MAX_RECORDS = 1000  # one request's worth; bigger loads go through `groundsearch ingest`


def clamp(value: int, low: int, high: int) -> int:
    return max(low, min(high, value))


class SearchBody(SearchRequest):
    limit: int = Field(default=20, description="results per page; values outside 1–100 are clamped")

    @field_validator("limit")
    @classmethod
    def _clamp_limit(cls, value: int) -> int:
        return clamp(value, 1, MAX_LIMIT)


class PreviewItem(BaseModel):
    item_id: str
    collection: str
    title: str
    url: str | None = None
    title_match: bool


class PreviewOut(BaseModel):
    query: str
    items: list[PreviewItem]


class SuggestionsOut(BaseModel):
    suggestions: list[str]


class HealthOut(BaseModel):
    model_config = ConfigDict(extra="allow")
    status: str


class CacheClearOut(BaseModel):
    cleared: dict[str, int]


class ItemOut(BaseModel):
    id: str
    collection: str
    title: str
    text: str
    url: str | None = None
    date: dt.date | None = None
    fields: dict[str, Any] = {}
    status: str
    superseded_by: str | None = None
    content_hash: str
    created_at: dt.datetime | None = None
    updated_at: dt.datetime | None = None

    @classmethod
    def of(cls, item: Item) -> ItemOut:
        fields = {k: (list(v) if isinstance(v, tuple) else v) for k, v in item.fields.items()}
        return cls(id=item.id, collection=item.collection, title=item.title, text=item.text, url=item.url,
                   date=item.date, fields=fields, status=item.status, superseded_by=item.superseded_by,
                   content_hash=item.content_hash, created_at=item.created_at, updated_at=item.updated_at)


class SimilarItem(BaseModel):
    id: str
    collection: str
    title: str
    url: str | None = None
    cosine: float
    likely_duplicate: bool


class SimilarOut(BaseModel):
    item_id: str
    similar: list[SimilarItem]
    exact_duplicates: list[str]


class RecordsIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    collection: str | None = Field(default=None, max_length=MAX_COLLECTION_CHARS)
    records: list[dict[str, Any]] = Field(min_length=1, max_length=MAX_RECORDS)


class IngestError(BaseModel):
    source: str
    message: str


class IngestOut(BaseModel):
    added: int
    updated: int
    unchanged: int
    deleted: int
    chunks_written: int
    errors: list[IngestError]
    seconds: float


class KeyCreateIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: str = Field(pattern="^(viewer|editor|admin)$")
    tenant: str | None = Field(default=None, max_length=100, description=(
        "the key's tenant; omitted, a tenant admin's own tenant. The operator must name it ('' is the default "
        "tenant)"))
    all_tenants: bool = Field(default=False, description="an operator admin key for every tenant (operator only)")
    label: str = Field(default="", max_length=200)


class KeyOut(BaseModel):
    id: str
    role: str
    tenant: str
    all_tenants: bool = False
    label: str
    created_at: str


class KeyCreatedOut(KeyOut):
    key: str = Field(description="the full key; shown only once")


QUERY_PARAM_MAX = MAX_QUERY_CHARS
