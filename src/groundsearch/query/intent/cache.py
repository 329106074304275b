"""Intent cache: the same request (normalised, same hints, same schema version) is classified once per TTL.

In-process by default (an LRU with TTL from ``cachetools``); Redis when ``settings.redis_url`` is set, so
API workers share it. Keys carry :data:`~groundsearch.types.INTENT_SCHEMA_VERSION` and the configured
domain names, so a schema or domain change can never serve a stale shape, the fingerprint of the intent reader's
own files (rules, lexicons, the classifier's weights), so an upgrade never serves a reading of the old rules from a
shared Redis until its TTL runs out, and the caller's scope (its tenant), so one tenant never sees another's request
as a hit.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
import unicodedata
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Protocol

from cachetools import TTLCache
from pydantic import ValidationError

from ...types import INTENT_SCHEMA_VERSION, Hints, Intent

__all__ = ["IntentCache", "MemoryIntentCache", "RedisIntentCache", "build_intent_cache", "cache_key", "normalise"]

log = logging.getLogger(__name__)


def normalise(query: str) -> str:
    """NFKC, casefold, collapsed whitespace, trailing punctuation dropped: "Latest AI?" == "latest  ai"."""
    text = " ".join(unicodedata.normalize("NFKC", query).casefold().split())
    return text.rstrip(" ?!.")


_READER_FILES = ("*.py", "*.json", "*.jsonl", "*.npz")


def reader_fingerprint(package: Path = Path(__file__).parent) -> str:
    """A digest of every file the intent reader is made of; the package version does not move between builds."""
    digest = hashlib.sha256()
    for path in sorted(p for pattern in _READER_FILES for p in package.glob(pattern)):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


_fingerprint = cache(reader_fingerprint)


def cache_key(query: str, hints: Hints | None, domains: Sequence[str], scope: str = "") -> str:
    """The entry of ``query`` for callers of ``scope``. An intent is built from the text alone, but one cache for
    every tenant reported (and answered faster) a hit when another tenant had asked the same thing."""
    payload = json.dumps(
        {
            "s": scope,
            "q": normalise(query),
            "h": hints.model_dump(mode="json") if hints else None,
            "d": list(domains),
            "v": INTENT_SCHEMA_VERSION,
            "r": _fingerprint(),
        },
        sort_keys=True,
    )
    return "gs:intent:" + hashlib.sha256(payload.encode()).hexdigest()


class IntentCache(Protocol):
    def get(self, key: str) -> Intent | None: ...

    def put(self, key: str, intent: Intent) -> None: ...


class MemoryIntentCache:
    """Thread-safe LRU with TTL; ``size == 0`` disables caching."""

    def __init__(self, size: int = 4096, ttl_s: float = 86_400, *, timer: Callable[[], float] = time.monotonic) -> None:
        self._cache: TTLCache[str, Intent] | None = (
            TTLCache(maxsize=size, ttl=ttl_s, timer=timer) if size > 0 and ttl_s > 0 else None
        )
        self._lock = threading.Lock()

    def get(self, key: str) -> Intent | None:
        if self._cache is None:
            return None
        with self._lock:
            return self._cache.get(key)

    def put(self, key: str, intent: Intent) -> None:
        if self._cache is None:
            return
        with self._lock:
            self._cache[key] = intent


class RedisIntentCache:
    """Shared cache in Redis. A Redis outage costs a re-classification, never a failed search."""

    def __init__(self, url: str, ttl_s: int = 86_400) -> None:
        import redis  # optional dependency, only needed when redis_url is configured

        self._client = redis.Redis.from_url(url, socket_timeout=0.2, socket_connect_timeout=0.2)
        self._ttl_s = ttl_s

    def get(self, key: str) -> Intent | None:
        try:
            raw = self._client.get(key)
        except Exception as exc:  # redis.RedisError and socket errors alike
            log.warning("intent cache: redis get failed (%s); classifying afresh", exc)
            return None
        if raw is None:
            return None
        try:
            return Intent.model_validate_json(raw)
        except ValidationError:
            return None

    def put(self, key: str, intent: Intent) -> None:
        try:
            self._client.set(key, intent.model_dump_json(), ex=self._ttl_s)
        except Exception as exc:
            log.warning("intent cache: redis set failed (%s)", exc)


def build_intent_cache(redis_url: str | None, size: int, ttl_s: int) -> IntentCache:
    if redis_url:
        return RedisIntentCache(redis_url, ttl_s)
    return MemoryIntentCache(size, ttl_s)
