"""Item endpoints (ingest an uploaded file or JSON records, get, delete, similar) and API-key management.

Uploads are kept under ``<data_dir>/uploads/t-<sha256 of the tenant>/<file name>`` rather than a temporary path:
ingest is incremental by source, so uploading a changed file with the same name updates its items instead of
adding copies. The folder is a hash of the exact tenant name, not a slug: tenants ``x y`` and ``x-y`` must never
share a folder (a shared source would let one's upload replace the other's). Reads by id (an item, its similar
items and exact duplicates) apply search's governance: own tenant, published unless an include flag asks for
more, drafts for editors only. A read by id spends the preview budget and a delete the ingest budget: unbudgeted,
one key walked guessed ids without end (tests/security/test_rate_limits.py).
Item ids may contain ``/`` (document ids embed their source path), hence the ``:path`` converters, with the
``/similar`` route registered first. Tenant isolation: a scoped key sees another tenant's item as *not found*, never as forbidden, so ids do not leak.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import re
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, File, Form, Query, Request, UploadFile
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel

from ...errors import InvalidInput, NotFound
from ...ingest.records import LONE_SURROGATE, lone_surrogate
from ...types import MAX_COLLECTION_CHARS, Item, SearchFilter
from .auth import Principal, marks_left
from .deps import api_router, requires, state
from .routes_jobs import JobOut, new_job, run_upload
from .models import (
    IngestOut,
    ItemOut,
    KeyCreatedOut,
    KeyCreateIn,
    KeyOut,
    RecordsIn,
    SimilarItem,
    SimilarOut,
    clamp,
)

__all__ = ["router"]

router = api_router()
log = logging.getLogger("groundsearch.api")

UPLOAD_MAX_BYTES = 32 * 1024 * 1024  # a large PDF; anything bigger belongs in `groundsearch ingest`
MAX_NAME_CHARS = 255  # what common file systems allow for one name
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")
_MAX_STORED_CHARS = 120


def stored_name(raw_name: str) -> str:
    """The upload folder's name for ``raw_name``: the name itself when it is already safe, else its safe
    reduction marked with a hash of the exact name.

    Ingest is incremental by source, so two uploads reduced to one name (``a b.md`` and ``a-b.md``, or two
    long names cut to the same length) shared a source and the second silently replaced the first's
    items. ``~`` is outside the safe set, so a marked name can never equal a name that needed no change.
    """
    safe = _SAFE_NAME.sub("-", raw_name).strip(".-")
    stem, dot, ext = safe.rpartition(".")
    if not dot or not stem:
        return safe  # no extension: refused by the caller
    if safe == raw_name and len(safe) <= _MAX_STORED_CHARS:
        return safe
    digest, ext = hashlib.sha256(raw_name.encode("utf-8", "surrogatepass")).hexdigest()[:12], ext[:16]
    return f"{stem[:_MAX_STORED_CHARS - len(ext) - 14]}~{digest}.{ext}"


Drafts = Annotated[bool, Query(description="also drafts (needs the editor role)")]
Archived = Annotated[bool, Query(description="also archived items")]
Superseded = Annotated[bool, Query(description="also items superseded by another")]


def _any_status(who: Principal) -> SearchFilter:
    """The caller's tenant, any status: for deleting, which editors do to drafts too."""
    return SearchFilter(statuses=("draft", "published", "archived"), include_superseded=True, tenant=who.tenant)


def _get_visible(request: Request, item_id: str, who: Principal, governance: SearchFilter | None = None) -> Item:
    return state(request).engine.get(item_id, governance or who.read_filter())


def _upload_dir(request: Request, who: Principal) -> Path:
    digest = hashlib.sha256(who.write_tenant.encode("utf-8")).hexdigest()[:32]
    path = state(request).settings.data_dir / "uploads" / f"t-{digest}"
    path.mkdir(parents=True, exist_ok=True)
    return path


@router.post("/items", response_model=IngestOut, tags=["items"],
             responses={202: {"model": JobOut, "description": "queued as an ingest job; poll `Location`"}})
async def ingest_file(
    request: Request,
    file: Annotated[UploadFile, File(description="a document (md, txt, html, pdf) or records (json, jsonl, csv)")],
    collection: Annotated[str | None, Form(max_length=MAX_COLLECTION_CHARS)] = None,
    background: bool = False,
    who: Principal = Depends(requires("editor", "ingest")),
) -> IngestOut | JSONResponse:
    """Ingest one uploaded file. Idempotent: uploading the same file again changes nothing.

    Files up to ``api.upload_sync_max_bytes`` are answered here (200, the ingest report); larger ones, or any with
    ``?background=true``, return 202 and a job to poll at ``GET /api/jobs/{id}`` (see routes_jobs). The key, role
    and ``api.ingest_per_minute`` budget are checked before the body is read (deps.AdmittedRoute)."""
    raw_name = Path(file.filename or "").name
    if len(raw_name) > MAX_NAME_CHARS:
        raise InvalidInput(f"the file name has {len(raw_name)} characters; a file name may have at most "
                           f"{MAX_NAME_CHARS}", details={"field": "file", "max_name_chars": MAX_NAME_CHARS})
    name = stored_name(raw_name)
    if not name or "." not in name:
        raise InvalidInput("the upload needs a file name with an extension (e.g. notes.md, releases.jsonl)",
                           details={"field": "file"})
    if collection is not None:
        state(request).engine.collection(collection)  # an unknown collection is a 400 now, not a failed job later
    await file.seek(0)
    job, size = await run_in_threadpool(new_job, who, name, collection, _upload_dir(request, who), file.file,
                                        UPLOAD_MAX_BYTES)
    large = size > state(request).settings.api.upload_sync_max_bytes
    return await run_upload(request, job, background=background or large)


@router.post("/items/records", response_model=IngestOut, tags=["items"])
async def ingest_records(request: Request, body: RecordsIn,
                         who: Principal = Depends(requires("editor", "ingest"))) -> IngestOut | JSONResponse:
    """Ingest JSON records into a records collection (fields as configured for it).

    The records are one upload like a file's: a job on the ingest worker, with its queue, chunk limit, time
    budget and cancellation, answered here when it finishes. Ingested on the request's thread instead, they had
    none of those, and an editor posting from many connections ran that many ingests beside the worker
    (tests/security/test_records_bounds.py)."""
    if any(lone_surrogate(r) for r in body.records):  # the job file below is UTF-8: it could not be written
        raise InvalidInput(f"a record holds text that is no character: {LONE_SURROGATE}", details={"field": "records"})
    text = "\n".join(json.dumps(r, ensure_ascii=False, sort_keys=True) for r in body.records) + "\n"
    data = text.encode("utf-8")
    name = f"records-{hashlib.sha256(data).hexdigest()[:16]}.jsonl"
    if body.collection is not None:
        state(request).engine.collection(body.collection)  # an unknown collection is a 400 now, not a failed job
    job, _ = await run_in_threadpool(new_job, who, name, body.collection, _upload_dir(request, who),
                                     io.BytesIO(data), len(data))
    return await run_upload(request, job, background=False)


@router.get("/items/{item_id:path}/similar", response_model=SimilarOut, tags=["items"])
def similar_items(request: Request, item_id: str, limit: int = 10, include_drafts: Drafts = False,
                  include_archived: Archived = False, include_superseded: Superseded = False,
                  who: Principal = Depends(requires("viewer", "search"))) -> SimilarOut:
    """Nearest items by embedding (likely duplicates flagged) and exact duplicates by content hash, among the
    items the caller may see (the include flags as in search)."""
    engine = state(request).engine
    governance = who.read_filter(include_drafts=include_drafts, include_archived=include_archived,
                                 include_superseded=include_superseded)
    hits = engine.similar(item_id, limit=clamp(limit, 1, 100), filter=governance)
    exact = [i.id for i in engine.duplicates(item_id, governance)]
    return SimilarOut(item_id=item_id, exact_duplicates=exact, similar=[
        SimilarItem(id=h.item.id, collection=h.item.collection, title=h.item.title, url=h.item.url,
                    cosine=round(h.cosine, 6), likely_duplicate=h.likely_duplicate) for h in hits])


@router.get("/items/{item_id:path}", response_model=ItemOut, tags=["items"])
def get_item(request: Request, item_id: str, include_drafts: Drafts = False, include_archived: Archived = False,
             include_superseded: Superseded = False,
             who: Principal = Depends(requires("viewer", "preview"))) -> ItemOut:
    """One item. A draft, archived or superseded item reads as 404 unless its include flag is set, as in search."""
    return ItemOut.of(_get_visible(request, item_id, who, who.read_filter(
        include_drafts=include_drafts, include_archived=include_archived, include_superseded=include_superseded)))


@router.delete("/items/{item_id:path}", status_code=204, tags=["items"])
def delete_item(request: Request, item_id: str,
                who: Principal = Depends(requires("editor", "ingest"))) -> None:
    """Delete an item of the caller's tenant, in any status, and every trace of it (keyword index, vectors, graph)."""
    _get_visible(request, item_id, who, _any_status(who))
    state(request).engine.delete(item_id)


# ---- API keys (admin) ---------------------------------------------------------------------------


def _keys(request: Request) -> Any:
    keys = state(request).keys
    if keys is None:
        raise InvalidInput("the server runs in local mode without API keys; start it with local_mode = false",
                           details={"field": "local_mode"})
    return keys


@router.get("/keys", response_model=list[KeyOut], tags=["keys"])
def list_keys(request: Request, who: Principal = Depends(requires("admin", "preview"))) -> list[KeyOut]:
    """The keys this admin manages: its own tenant's (a tenant admin), or every key (the operator)."""
    return [KeyOut(id=r.id, role=r.role, tenant=r.tenant, all_tenants=r.all_tenants, label=r.label,
                   created_at=r.created_at) for r in _keys(request).records() if who.may_manage(r)]


@router.post("/keys", response_model=KeyCreatedOut, status_code=201, tags=["keys"])
def create_key(request: Request, body: KeyCreateIn,
               who: Principal = Depends(requires("admin", "keys"))) -> KeyCreatedOut:
    """Create a key in this admin's own tenant (only the operator names another tenant or mints operators)."""
    tenant, all_tenants = who.mint_scope(body.tenant, body.all_tenants)
    keys = _keys(request)
    most = state(request).settings.api.max_keys_per_tenant
    if who.tenant is not None and sum(1 for r in keys.records() if who.may_manage(r)) >= most:
        raise InvalidInput(f"this tenant already has {most} keys, the most a tenant admin may hold "
                           "(api.max_keys_per_tenant); revoke unused ones, or ask the operator",
                           details={"field": "role", "max_keys_per_tenant": most})
    record, key = keys.create(body.role, tenant=tenant, all_tenants=all_tenants, label=body.label)
    return KeyCreatedOut(id=record.id, role=record.role, tenant=record.tenant, all_tenants=record.all_tenants,
                         label=record.label, created_at=record.created_at, key=key)


class RevokedOut(BaseModel):
    id: str
    revoked: bool
    feedback_marks_deleted: bool
    message: str


@router.delete("/keys/{key_id}", status_code=204, tags=["keys"], responses={200: {
    "model": RevokedOut, "description": "revoked, but its feedback marks could not be deleted (the message says "
                                        "why and what deletes them later)"}})
def revoke_key(request: Request, key_id: str, who: Principal = Depends(requires("admin", "keys"))) -> Response:
    """Revoke a key this admin manages, and delete its feedback marks (they stop counting in the ranking);
    another tenant's key is not found (ids do not leak). The revoke never waits on the marks: when they cannot
    be deleted, the answer is 200 with a message instead of 204."""
    keys = _keys(request)
    record = keys.get(key_id)
    if record is None or not who.may_manage(record):
        raise NotFound(f"no API key with id {key_id!r}", details={"id": key_id})
    keys.revoke(key_id)
    if not record.all_tenants:  # operators share owner '' (Principal.owner): their marks are no one key's
        try:
            state(request).engine.forget_feedback_owner(record.tenant, record.id)
        except Exception as exc:  # the revoke is done: a 500 would tell the admin it failed
            log.warning("revoked key %s; deleting its feedback marks failed", record.id, exc_info=True)
            message = marks_left(record.id, record.tenant, type(exc).__name__)  # internals stay in the log
            out = RevokedOut(id=record.id, revoked=True, feedback_marks_deleted=False, message=message)
            return JSONResponse(out.model_dump(), status_code=200)
    return Response(status_code=204)
