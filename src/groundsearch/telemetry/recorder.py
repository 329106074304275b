"""The recorder: watches one request's events and leaves its record, whatever way the request ends.

A record is written when the stream finishes, when the client walks away (``aborted``), when the input is
rejected (``invalid``) and when a stage raised (``error``); writing it never fails the request — a store
that cannot take it costs one warning that names the request id, never the query.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import partial
from typing import Any

from ..errors import InvalidInput
from ..scope import caller_scope
from ..settings import Settings
from ..store.telemetry_base import TelemetryStore
from ..types import Event
from . import privacy
from .otel import OtelExport
from .record import RequestRecord, ShadowRecord, record_from

__all__ = ["Recorder"]

log = logging.getLogger("groundsearch.telemetry")

PURGE_EVERY_S = 3600.0  # retention is in days; checking hourly keeps the purge off the request path


class Recorder:
    """One per engine. ``open_store`` is called on first use, so an engine that never serves opens nothing."""

    def __init__(self, settings: Settings, open_store: Callable[[], TelemetryStore],
                 *, otel: OtelExport | None = None, clock: Callable[[], dt.datetime] | None = None) -> None:
        self.settings = settings
        self.config = settings.telemetry
        self._open_store = open_store
        self._store: TelemetryStore | None = None
        self._key: bytes | None = None
        self._lock = threading.Lock()
        self._purged_at = 0.0
        self._otel = otel
        self._clock = clock or (lambda: dt.datetime.now(dt.UTC))

    @property
    def store(self) -> TelemetryStore:
        with self._lock:
            if self._store is None:
                self._store = self._open_store()
                configured = self.config.hash_key
                self._key = (configured.get_secret_value().encode("utf-8") if configured is not None
                             else self._store.secret())
            return self._store

    @property
    def key(self) -> bytes:
        self.store  # noqa: B018  (opening it fixes the key)
        assert self._key is not None
        return self._key

    def close(self) -> None:
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None

    # ---- requests -------------------------------------------------------------------------------

    def observe(self, events: Iterable[Event], *, query: str, tenant: str | None, surface: str,
                request_id: str) -> Iterator[Event]:
        """Pass ``events`` through unchanged and record the request when they end."""
        created = self._clock()
        started = time.perf_counter()
        seen: list[Event] = []
        status = "aborted"
        try:
            for event in events:
                if event.name in ("intent", "results", "complete"):
                    seen.append(event)
                if event.name == "complete":
                    status = "ok"
                yield event
        except InvalidInput:
            status = "invalid"
            raise
        except GeneratorExit:  # the consumer stopped: "ok" if it had the whole answer, else "aborted"
            raise
        except Exception:
            status = "error"
            raise
        finally:
            self._write(seen, query=query, tenant=caller_scope(tenant), surface=surface, request_id=request_id,
                        created=created, status=status, elapsed_ms=(time.perf_counter() - started) * 1000)

    def _write(self, events: list[Event], *, query: str, tenant: str, surface: str, request_id: str,
               created: dt.datetime, status: str, elapsed_ms: float) -> None:
        try:
            key = self.key
            text = query if isinstance(query, str) else ""
            base: dict[str, Any] = {
                "id": request_id, "tenant": tenant, "created_at": created, "surface": surface, "status": status,
                "query_hash": privacy.hash_query(key, text), "query_terms": privacy.hash_terms(key, text),
                "query_text": privacy.redact(text, self.config.redact) if self.config.store_raw_query else None,
                "query_chars": len(text), "prompt_version": self.settings.llm.prompts_version,
                "total_ms": round(elapsed_ms, 3),
            }
            fields = record_from(events, base=base, reasons=partial(privacy.reason, query=text))
            rec = RequestRecord(**fields)
            self.store.record(rec)
            if self._otel is not None:
                self._otel.emit(rec)
            self._maybe_purge()
        except Exception as exc:  # telemetry must never fail a request
            log.warning("telemetry: could not record request %s (%s)", request_id, type(exc).__name__)

    def _maybe_purge(self) -> None:
        now = time.monotonic()
        if now - self._purged_at < PURGE_EVERY_S:
            return
        self._purged_at = now
        cutoff = self._clock() - dt.timedelta(days=self.config.retention_days)
        removed = self.store.purge(cutoff)
        if removed:
            log.info("telemetry: retention removed %d records older than %d days", removed,
                     self.config.retention_days)

    # ---- intent shadow mode ---------------------------------------------------------------------

    def shadow(self, query: str, winner_tier: str, diffs: Mapping[str, Any] | None) -> None:
        """A shadow comparison of the LLM tier against the tier that answered (``diffs=None``: no LLM intent)."""
        try:
            self.store.record_shadow(ShadowRecord(
                created_at=self._clock(), query_hash=privacy.hash_query(self.key, query), winner_tier=winner_tier,
                agreed=None if diffs is None else not diffs, fields=tuple(sorted(diffs or ()))))
        except Exception as exc:
            log.warning("telemetry: could not record a shadow comparison (%s)", type(exc).__name__)

    # ---- what people search ---------------------------------------------------------------------

    def popular_terms(self, tenant: str, since: dt.datetime, limit: int,
                      vocabulary: Iterable[str]) -> list[tuple[str, int]]:
        """``tenant``'s most searched terms since ``since`` that are words of ``vocabulary`` (its corpus)."""
        counts = self.store.term_counts(tenant, since, max(limit * 20, 200))
        return privacy.label_terms(self.key, counts, vocabulary)[:limit]
