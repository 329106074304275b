"""Per-key rate limits: in-process by default, shared through Redis when ``GROUNDSEARCH_REDIS_URL`` is set.

The counting itself is the ``limits`` library's moving window (exact, no burst at window edges, and atomic in
Redis through its Lua scripts), so every API worker pointed at the same Redis enforces one budget per key.
This module only decides *what* is limited: one bucket per (key id, endpoint family), and one per (tenant,
endpoint family) of ``api.tenant_budget_keys`` keys' budgets, because keys are minted and rotated by the tenant.
"""

from __future__ import annotations

import hashlib
import time
from typing import Literal

from limits import RateLimitItemPerMinute, storage, strategies

from ...errors import ConfigError, RateLimited
from ...settings import Settings

__all__ = ["Bucket", "RateLimiter", "text_units"]

Bucket = Literal["search", "preview", "ingest", "keys"]

# What a query's text costs the search budget. Every new request is encoded by the intent steps' e5 model (up
# to its 512-token window) and the query embedder, so CPU grows with the text: measured over the real app
# (one core, load ~4), a 60-character request 0.03-0.08 s, 250 bytes 0.08-0.37 s, a 2,000-character one ~1.1 s
# (the window's cost; CJK reaches it by ~500 characters, three bytes each). Counted as one request, a key's 30
# a minute of such requests asked for half a core, and a tenant's ten keys' worth for five. UTF-8 bytes follow
# the tokens closely enough (a CJK character is one token and three bytes, an ASCII word ~4 bytes a token).
BYTES_PER_UNIT = 200
MAX_UNITS = 10  # the encoder's window: past it the text costs no more


def text_units(text: str) -> int:
    """Budget units a request whose caller-written text is ``text`` spends: one per started ``BYTES_PER_UNIT``
    bytes past the first, at most ``MAX_UNITS`` (a request under 200 bytes — every evaluation request — is one).
    Pure."""
    return min(MAX_UNITS, 1 + len(text.encode("utf-8", "surrogatepass")) // BYTES_PER_UNIT)


class RateLimiter:
    def __init__(self, settings: Settings) -> None:
        self._items = {
            "search": RateLimitItemPerMinute(settings.api.search_per_minute),
            "preview": RateLimitItemPerMinute(settings.api.preview_per_minute),
            "ingest": RateLimitItemPerMinute(settings.api.ingest_per_minute),
            "keys": RateLimitItemPerMinute(settings.api.keys_per_minute),
        }
        factor = settings.api.tenant_budget_keys
        self._tenant_items = {
            "search": RateLimitItemPerMinute(settings.api.search_per_minute * factor),
            "preview": RateLimitItemPerMinute(settings.api.preview_per_minute * factor),
            "ingest": RateLimitItemPerMinute(settings.api.ingest_per_minute * factor),
            "keys": RateLimitItemPerMinute(settings.api.keys_per_minute * factor),
        }
        if settings.redis_url:
            if not settings.redis_url.startswith(("redis://", "rediss://", "unix://")):
                raise ConfigError("GROUNDSEARCH_REDIS_URL must start with redis://, rediss:// or unix://")
            # "limits" selects its Redis storage from the URL scheme; key_prefix keeps our counters apart
            # from anything else living in the same Redis database.
            self._storage: storage.Storage = storage.storage_from_string(
                settings.redis_url, key_prefix="groundsearch-rl", wrap_exceptions=True)
            self.backend = "redis"
        else:
            self._storage = storage.MemoryStorage()
            self.backend = "memory"
        self._limiter = strategies.MovingWindowRateLimiter(self._storage)

    def check(self, bucket: Bucket, key_id: str, tenant: str | None = None, cost: int = 1) -> None:
        """Count ``cost`` requests against ``key_id``'s ``bucket`` and, given its ``tenant`` scope, against the
        tenant's; raise ``RateLimited`` when either budget has less left (a key already stopped spends no tenant
        budget, and a refused cost spends nothing)."""
        self._hit(self._items[bucket], bucket, key_id, "", cost)
        if tenant is not None:
            # hashed: a tenant name may hold the storage's separators
            scope = hashlib.sha256(tenant.encode("utf-8")).hexdigest()[:32]
            self._hit(self._tenant_items[bucket], f"tenant-{bucket}", scope, "your tenant's ", cost)

    def _hit(self, item: RateLimitItemPerMinute, namespace: str, key: str, whose: str, cost: int) -> None:
        if self._limiter.hit(item, namespace, key, cost=cost):
            return
        reset = self._limiter.get_window_stats(item, namespace, key).reset_time
        retry = max(1.0, reset - time.time())
        bucket = namespace.removeprefix("tenant-")
        details = {"bucket": bucket, "limit_per_minute": item.amount} | ({"scope": "tenant"} if whose else {})
        raise RateLimited(
            f"{whose}rate limit of {item.amount} {bucket} requests per minute exceeded; retry in {retry:.0f}s",
            retry_after=retry, details=details,
        )

    def reset(self) -> None:
        self._storage.reset()
