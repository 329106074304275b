"""API keys with roles, stored hashed, and the principal each request runs as.

A key looks like ``gs_<id>_<secret>``. The keys file stores only ``sha256(secret)``: the secrets are 32 random
bytes, so a fast hash is enough (slow password hashes exist to protect low-entropy human passwords). Lookup is by
``id``; the hash comparison is constant-time.

Roles are ordered: ``viewer`` (search, read items) < ``editor`` (+ ingest, delete) < ``admin`` (+ cache, keys).
Every key belongs to one tenant; requests made with it are scoped to that tenant inside retrieval. Local mode has
no keys at all: one trusted user, admin, no tenant scoping.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import os
import secrets
import tempfile
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from ...errors import ConfigError, Forbidden, InvalidInput, NotFound, Unauthenticated
from ...settings import Settings

__all__ = ["KeyRecord", "KeyStore", "Principal", "Role", "LOCAL_PRINCIPAL", "keys_path"]

Role = Literal["viewer", "editor", "admin"]
ROLES: tuple[Role, ...] = ("viewer", "editor", "admin")
_PREFIX = "gs"


@dataclass(frozen=True, slots=True)
class Principal:
    """Who a request runs as. ``tenant=None`` means unscoped (local mode only)."""

    key_id: str
    role: Role
    tenant: str | None

    def require(self, role: Role) -> None:
        if ROLES.index(self.role) < ROLES.index(role):
            raise Forbidden(f"this action needs the {role!r} role; the key has {self.role!r}",
                            details={"required_role": role, "role": self.role})


LOCAL_PRINCIPAL = Principal(key_id="local", role="admin", tenant=None)


@dataclass(frozen=True, slots=True)
class KeyRecord:
    id: str
    role: Role
    tenant: str
    sha256: str
    created_at: str
    label: str = ""


def keys_path(settings: Settings) -> Path:
    return settings.api.keys_file or settings.data_dir / "api-keys.json"


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


class KeyStore:
    """The keys file (JSON), re-read when it changes on disk so ``groundsearch keys create`` takes effect live."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._mtime: float | None = None
        self._records: dict[str, KeyRecord] = {}

    # ---- reading --------------------------------------------------------------------------------

    def records(self) -> list[KeyRecord]:
        with self._lock:
            self._reload()
            return list(self._records.values())

    def _reload(self) -> None:
        try:
            mtime = self.path.stat().st_mtime_ns
        except FileNotFoundError:
            self._records, self._mtime = {}, None
            return
        if mtime == self._mtime:
            return
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
            records = {r["id"]: KeyRecord(**r) for r in raw.get("keys", [])}
        except (ValueError, TypeError, KeyError) as exc:
            raise ConfigError(f"API keys file {self.path} is not valid: {exc}; fix or delete it") from exc
        self._records, self._mtime = records, mtime

    def authenticate(self, presented: str | None) -> Principal:
        if not presented:
            raise Unauthenticated("an API key is required: send 'Authorization: Bearer <key>' or 'X-API-Key'")
        parts = presented.strip().split("_", 2)
        if len(parts) != 3 or parts[0] != _PREFIX:
            raise Unauthenticated("the API key is malformed; keys look like gs_<id>_<secret>")
        with self._lock:
            self._reload()
            record = self._records.get(parts[1])
        if record is None or not hmac.compare_digest(record.sha256, _hash(parts[2])):
            raise Unauthenticated("the API key is not valid (unknown or revoked)")
        return Principal(key_id=record.id, role=record.role, tenant=record.tenant)

    # ---- writing --------------------------------------------------------------------------------

    def create(self, role: str, *, tenant: str = "", label: str = "") -> tuple[KeyRecord, str]:
        """Add a key; returns its record and the full key, which is shown once and never stored."""
        if role not in ROLES:
            raise InvalidInput(f"role must be one of {list(ROLES)}, got {role!r}", details={"field": "role"})
        key_id, secret = secrets.token_hex(6), secrets.token_urlsafe(32).replace("_", "-")
        record = KeyRecord(id=key_id, role=role, tenant=tenant, sha256=_hash(secret),  # type: ignore[arg-type]
                           created_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), label=label)
        with self._lock:
            self._reload()
            self._write({**self._records, key_id: record})
        return record, f"{_PREFIX}_{key_id}_{secret}"

    def revoke(self, key_id: str) -> None:
        with self._lock:
            self._reload()
            if key_id not in self._records:
                raise NotFound(f"no API key with id {key_id!r}", details={"id": key_id})
            self._write({k: v for k, v in self._records.items() if k != key_id})

    def _write(self, records: dict[str, KeyRecord]) -> None:
        """Atomic replace, owner-only permissions: the file holds hashes, but they still identify keys."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".api-keys.")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"keys": [asdict(r) for r in records.values()]}, fh, indent=2)
        os.chmod(tmp, 0o600)
        os.replace(tmp, self.path)
        self._mtime = None
        self._reload()
