"""Ingest jobs: uploads run off the request path, one at a time, bounded, cancellable, visible to their tenant only.

An upload becomes a job on one worker thread (the store has one writer anyway, and one ingest at a time keeps the
search path responsive on a small machine). ``POST /api/items`` answers small files (up to
``api.upload_sync_max_bytes``) itself, waiting for their job and cancelling it if the client hangs up; larger files,
or any file with ``?background=true``, get ``202`` and a job to poll at ``GET /api/jobs/{id}``; ``DELETE`` cancels.

Every job runs under ``IngestLimits``: at most ``api.upload_max_chunks`` chunks per file and ``api.upload_timeout_s``
seconds from its start. A cancelled or stopped job writes nothing of its file (ingest is atomic per file), and the
upload folder gets back the file it held before, so the next upload of that name diffs against what is stored.

Jobs live in this process's memory (the last ``KEEP`` of them): with several API workers a status is known only to
the worker that took the upload, and a restart forgets them; the items they wrote are in the store either way.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import itertools
import os
import secrets
import threading
import time
from collections import Counter, OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Literal

from fastapi import Depends, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from ...engine import Engine
from ...errors import GroundsearchError, IngestError, IngestStopped, InvalidInput, NotFound, RateLimited
from ...ingest.pipeline import IngestLimits
from ...settings import Settings
from .auth import Principal
from .deps import api_router, requires
from .models import IngestOut

__all__ = ["Job", "JobOut", "JobRunner", "router"]

router = api_router()

JobStatus = Literal["queued", "running", "completed", "failed", "cancelled"]
KEEP = 200  # finished jobs remembered for status polls (a flooding tenant's own are forgotten first)
MAX_QUEUED = 16  # uploads waiting behind the running one; more is a client flooding the worker
# One tenant's share of that queue: the worker is shared, so a tenant that filled the whole queue would turn
# every other tenant's upload into a 429 (and a tenant with nothing waiting is admitted even past MAX_QUEUED).
MAX_QUEUED_PER_TENANT = MAX_QUEUED // 2
DISCONNECT_POLL_S = 0.25


class JobError(BaseModel):
    code: str
    message: str
    details: dict[str, Any] = {}


class JobOut(BaseModel):
    id: str
    status: JobStatus
    source: str  # the uploaded file name
    collection: str | None
    created_at: str
    started_at: str | None = None
    finished_at: str | None = None
    cancel_requested: bool = False
    chunks_done: int = 0
    limits: dict[str, float] = {}
    result: IngestOut | None = None
    error: JobError | None = None


class JobList(BaseModel):
    jobs: list[JobOut]


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


@dataclass
class Job:
    id: str
    tenant: str | None  # the principal's tenant, which sees the job; None: every tenant (local mode, operator)
    write_tenant: str  # where its items land (``Principal.write_tenant``)
    source: str
    collection: str | None
    staged: Path  # the uploaded bytes, until the worker moves them to ``path``
    path: Path
    created_at: str = field(default_factory=_now)
    status: JobStatus = "queued"
    started_at: str | None = None
    finished_at: str | None = None
    chunks_done: int = 0
    result: IngestOut | None = None
    error: JobError | None = None
    cancel: threading.Event = field(default_factory=threading.Event)
    done: Future[None] = field(default_factory=Future)  # resolved when the worker is through with it

    def out(self, limits: dict[str, float]) -> JobOut:
        return JobOut(id=self.id, status=self.status, source=self.source, collection=self.collection,
                      created_at=self.created_at, started_at=self.started_at, finished_at=self.finished_at,
                      cancel_requested=self.cancel.is_set(), chunks_done=self.chunks_done, limits=limits,
                      result=self.result, error=self.error)


class JobRunner:
    """The jobs of one app: a single worker thread and the table of recent jobs, shared by every tenant.

    The worker takes turns between tenants (:meth:`_next`) and the table forgets the finished jobs of the tenant
    holding most of them first (:meth:`_forget_finished`): first come, first served, and oldest first, let one
    tenant's editor make every other tenant's upload wait behind all of its own, and erase other tenants' job
    records by uploading in a loop (tests/security/test_job_fairness.py).
    """

    def __init__(self, engine: Engine, settings: Settings) -> None:
        self.engine, self.api = engine, settings.api
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="groundsearch-ingest")
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._lock = threading.Lock()
        self._turns = itertools.count()
        self._last_turn: dict[str | None, int] = {}  # tenant -> the turn its latest job started at

    @property
    def limits(self) -> dict[str, float]:
        return {"max_chunks_per_file": self.api.upload_max_chunks, "timeout_s": self.api.upload_timeout_s}

    def submit(self, job: Job) -> Future[None]:
        with self._lock:
            waiting = [j for j in self._jobs.values() if j.status == "queued"]
            own = sum(1 for j in waiting if j.tenant == job.tenant)
            # a tenant with nothing waiting always gets one job in: two tenants each holding their share filled
            # the queue for everyone else (the bound is MAX_QUEUED plus one job per otherwise quiet tenant)
            if (len(waiting) >= MAX_QUEUED and own) or own >= MAX_QUEUED_PER_TENANT:
                job.staged.unlink(missing_ok=True)
                queued = own if own >= MAX_QUEUED_PER_TENANT else len(waiting)
                whose = "of your tenant's " if own >= MAX_QUEUED_PER_TENANT else ""
                raise RateLimited(f"{queued} {whose}uploads are already waiting to be ingested; retry in a minute",
                                  retry_after=60, details={"queued": queued})
            self._jobs[job.id] = job
            self._forget_finished()
        self._executor.submit(self._next)  # one turn of the worker per job; the turn picks which job
        return job.done

    def _forget_finished(self) -> None:
        """Keep at most ``KEEP`` jobs, forgetting the oldest finished job of the tenant that holds the most finished
        ones (ties: the one whose oldest is oldest). A tenant with fewer finished jobs than another never loses
        one to it, so uploading in a loop only ever forgets the uploader's own. Queued and running jobs stay."""
        while len(self._jobs) > KEEP:
            finished = [j for j in self._jobs.values() if j.status not in ("queued", "running")]
            if not finished:
                return
            per_tenant = Counter(j.tenant for j in finished)
            heaviest = max(per_tenant, key=per_tenant.__getitem__)  # first seen wins a tie: the oldest job's
            del self._jobs[next(j.id for j in finished if j.tenant == heaviest)]

    def _next(self) -> None:
        """Run the queued job of the tenant whose last turn is longest ago (a tenant never served first), its
        oldest one: a tenant with eight files queued gets one turn in every round, not eight before anyone
        else's. Within a tenant, jobs keep the order they came in."""
        with self._lock:
            waiting = [j for j in self._jobs.values() if j.status == "queued"]
            if not waiting:
                return
            job = min(waiting, key=lambda j: self._last_turn.get(j.tenant, -1))
            self._last_turn[job.tenant] = next(self._turns)
            job.status = "running"
        try:
            self._run(job)
        finally:
            if not job.done.done():
                job.done.set_result(None)

    def get(self, job_id: str, who: Principal) -> Job:
        job = self._jobs.get(job_id)
        # another tenant's job is "not found", never "forbidden": ids do not leak
        if job is None or (who.tenant is not None and job.tenant != who.tenant):
            raise NotFound(f"no job with id {job_id!r}", details={"id": job_id})
        return job

    def visible(self, who: Principal) -> list[Job]:
        with self._lock:
            jobs = list(self._jobs.values())
        return [j for j in reversed(jobs) if who.tenant is None or j.tenant == who.tenant]

    def close(self) -> None:
        for job in list(self._jobs.values()):
            job.cancel.set()
            if job.status == "queued":
                job.done.cancel()  # its turn will never come: a request waiting on it stops waiting
        self._executor.shutdown(wait=False, cancel_futures=True)

    # ---- the worker ---------------------------------------------------------------------------------

    def _run(self, job: Job) -> None:
        job.status, job.started_at = "running", _now()  # a turn of the worker chose it (_next)
        backup = job.path.with_name(f".{job.path.name}.{job.id}.prev")
        had_previous = job.path.exists()
        try:
            if job.cancel.is_set():
                raise IngestStopped(f"ingest of {job.source} was cancelled; nothing of it was written",
                                    details={"reason": "cancelled"})
            if had_previous:
                os.replace(job.path, backup)
            os.replace(job.staged, job.path)
            limits = IngestLimits(max_chunks_per_file=self.api.upload_max_chunks,
                                  deadline=time.monotonic() + self.api.upload_timeout_s, cancelled=job.cancel.is_set)

            def progress(p: Any) -> None:
                job.chunks_done = p.chunks_done

            report = self.engine.ingest([job.path], job.collection, tenant=job.write_tenant, limits=limits,
                                        progress=progress)
            errors = [{"source": job.source, "message": m.replace(str(job.path), job.source)} for _, m in report.errors]
            if errors and not (report.added or report.updated or report.unchanged):
                raise IngestError(f"nothing could be ingested from {job.source}: {errors[0]['message']}",
                                  details={"errors": errors})
            job.result = IngestOut(added=report.added, updated=report.updated, unchanged=report.unchanged,
                                   deleted=report.deleted, chunks_written=report.chunks_written, errors=errors,
                                   seconds=round(report.seconds, 3))
            job.status = "completed"
            backup.unlink(missing_ok=True)
        except Exception as exc:
            self._restore(job, backup, had_previous)
            job.status = "cancelled" if isinstance(exc, IngestStopped) and job.cancel.is_set() else "failed"
            if isinstance(exc, GroundsearchError):
                job.error = JobError(code=exc.code, message=exc.message.replace(str(job.path), job.source),
                                     details={k: v for k, v in exc.details.items() if isinstance(v, (str, int, list))})
            else:  # an unexpected failure: the type only, internals stay in the server log
                job.error = JobError(code="INTERNAL", message=f"ingest failed unexpectedly ({type(exc).__name__})")
        finally:
            job.staged.unlink(missing_ok=True)
            job.finished_at = _now()

    @staticmethod
    def _restore(job: Job, backup: Path, had_previous: bool) -> None:
        """Put back the upload folder's previous file of this name (or none), so it matches what is stored."""
        if had_previous and backup.exists():
            os.replace(backup, job.path)
        elif not had_previous:
            job.path.unlink(missing_ok=True)


def runner(request: Request) -> JobRunner:
    return request.app.state.jobs


STAGE_CHUNK = 1024 * 1024  # bytes copied at a time: the most of an upload the server holds in memory


def new_job(who: Principal, source: str, collection: str | None, folder: Path, body: BinaryIO,
            max_bytes: int) -> tuple[Job, int]:
    """A job for the upload ``body`` (a file, read from its start) and its size.

    ``body`` is copied to the staging folder ``STAGE_CHUNK`` at a time. Read whole, every upload in flight cost
    its size in RAM: 16 concurrent 32 MiB uploads took a server from 118 to 252 MiB, 139 MiB copied in chunks
    (tests/security/test_upload_memory.py). More than ``max_bytes`` is ``InvalidInput``, nothing of it staged."""
    job_id = secrets.token_hex(8)
    staging = folder / ".staging"
    staging.mkdir(parents=True, exist_ok=True)
    staged = staging / f"{job_id}-{source}"
    size = 0
    try:
        with staged.open("wb") as out:
            while chunk := body.read(STAGE_CHUNK):
                size += len(chunk)
                if size > max_bytes:
                    raise InvalidInput(f"the file is larger than {max_bytes} bytes; use `groundsearch ingest`",
                                       details={"field": "file", "max_bytes": max_bytes})
                out.write(chunk)
    except BaseException:
        staged.unlink(missing_ok=True)
        raise
    job = Job(id=job_id, tenant=who.tenant, write_tenant=who.write_tenant, source=source, collection=collection,
              staged=staged, path=folder / source)
    return job, size


async def run_upload(request: Request, job: Job, background: bool) -> IngestOut | JSONResponse:
    """Queue ``job``; answer 202 with it, or wait for it (cancelling it if the client hangs up) and answer its
    result."""
    jobs = runner(request)
    future = jobs.submit(job)
    if background:
        body = job.out(jobs.limits).model_dump(mode="json")
        return JSONResponse(body, status_code=202, headers={"Location": f"/api/jobs/{job.id}"})
    waiting = asyncio.wrap_future(future)
    while not waiting.done():
        await asyncio.wait({waiting}, timeout=DISCONNECT_POLL_S)
        if not waiting.done() and await request.is_disconnected():
            job.cancel.set()  # the worker stops at its next checkpoint; nobody is left to read the answer
            raise IngestStopped("the client went away; the upload was cancelled", details={"reason": "cancelled"})
    if job.status == "completed" and job.result is not None:
        return job.result
    error = job.error or JobError(code="INGEST_FAILED", message="ingest failed")
    if error.code == "INTERNAL":
        raise RuntimeError(error.message)
    if error.code == "INGEST_STOPPED":
        raise IngestStopped(error.message, details=error.details)
    raise IngestError(error.message, details=error.details)


@router.get("/jobs", response_model=JobList, tags=["items"])
def list_jobs(request: Request, who: Principal = Depends(requires("editor", "preview"))) -> JobList:
    """The caller's tenant's recent ingest jobs, newest first. Editors and admins only, like uploading: a job
    names its file, and a viewer must not learn from it that a draft exists."""
    jobs = runner(request)
    return JobList(jobs=[j.out(jobs.limits) for j in jobs.visible(who)])


@router.get("/jobs/{job_id}", response_model=JobOut, tags=["items"])
def get_job(request: Request, job_id: str, who: Principal = Depends(requires("editor", "preview"))) -> JobOut:
    """Status of one ingest job of the caller's tenant: queued, running, completed (with the ingest report),
    failed (with the error) or cancelled."""
    jobs = runner(request)
    return jobs.get(job_id, who).out(jobs.limits)


@router.delete("/jobs/{job_id}", response_model=JobOut, status_code=202, tags=["items"])
def cancel_job(request: Request, job_id: str,
               who: Principal = Depends(requires("editor", "preview"))) -> JobOut | JSONResponse:
    """Ask a job to stop; it ends ``cancelled`` at its next checkpoint with nothing of its file written. A finished
    job is returned unchanged (200)."""
    jobs = runner(request)
    job = jobs.get(job_id, who)
    if job.status in ("completed", "failed", "cancelled"):
        return JSONResponse(job.out(jobs.limits).model_dump(mode="json"), status_code=200)
    job.cancel.set()
    return job.out(jobs.limits)
