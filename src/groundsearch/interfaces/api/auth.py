"""API keys with roles and tenant scopes, stored hashed, and the principal each request runs as.

A key looks like ``gs_<id>_<secret>``. The keys file stores only ``sha256(secret)``: the secrets are 32 random
bytes, so a fast hash is enough (slow password hashes exist to protect low-entropy human passwords). Lookup is by
``id``; the hash comparison is constant-time.

Roles are ordered: ``viewer`` (search, read items) < ``editor`` (+ ingest, delete, see drafts) < ``admin`` (+ cache,
keys). Every key is scoped explicitly: to one tenant (``''``, the default tenant, is one tenant like any other),
or — admin keys only, and only when created with ``all_tenants`` — to every tenant, the global operator. A
tenant admin manages its own tenant's keys only. Local mode has no keys at all: one trusted user, admin, every
tenant. docs/security.md states the whole model.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import hashlib
import hmac
import json
import os
import secrets
import tempfile
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from collections.abc import Iterator
from typing import Literal

from ...errors import ConfigError, Forbidden, InvalidInput, NotFound, Unauthenticated
from ...settings import Settings
from ...scope import ALL_TENANTS_SCOPE
from ...types import SearchFilter, Status

__all__ = ["KeyRecord", "KeyStore", "Principal", "Role", "LOCAL_PRINCIPAL", "keys_path", "marks_left"]

Role = Literal["viewer", "editor", "admin"]
ROLES: tuple[Role, ...] = ("viewer", "editor", "admin")
_PREFIX = "gs"


@dataclass(frozen=True, slots=True)
class Principal:
    """Who a request runs as. ``tenant=None`` means every tenant: local mode, or an ``all_tenants`` admin key."""

    key_id: str
    role: Role
    tenant: str | None

    def has(self, role: Role) -> bool:
        """Whether this key's role is ``role`` or above it."""
        return ROLES.index(self.role) >= ROLES.index(role)

    def require(self, role: Role) -> None:
        if not self.has(role):
            raise Forbidden(f"this action needs the {role!r} role; the key has {self.role!r}",
                            details={"required_role": role, "role": self.role})

    @property
    def owner(self) -> str:
        """Whose a caller's own records are (conversations, feedback marks): a tenant key's are its own (its id);
        every-tenant callers (operator keys, local mode) share ``''``, kept under the reserved scope."""
        return "" if self.tenant is None else self.key_id

    @property
    def write_tenant(self) -> str:
        """Where this caller's writes land: its tenant; the default tenant for local mode and the operator."""
        return self.tenant or ""

    def read_filter(self, *, include_drafts: bool = False, include_archived: bool = False,
                    include_superseded: bool = False) -> SearchFilter:
        """The governance search applies, for reads by id: own tenant, published unless a flag widens it.

        Drafts are unpublished work, so asking for them needs the editor role (403 otherwise, never a quiet
        narrowing); archived and superseded items are published history any role may ask for.
        """
        if include_drafts:
            self.require("editor")
        statuses: list[Status] = ["published"]
        statuses += ["draft"] if include_drafts else []
        statuses += ["archived"] if include_archived else []
        return SearchFilter(statuses=tuple(statuses), include_superseded=include_superseded, tenant=self.tenant)

    def may_manage(self, record: KeyRecord) -> bool:
        """A tenant admin manages its own tenant's scoped keys; the operator (every tenant) manages all keys."""
        return self.tenant is None or (not record.all_tenants and record.tenant == self.tenant)

    def mint_scope(self, tenant: str | None, all_tenants: bool) -> tuple[str, bool]:
        """The scope of a key this admin asks to create, or ``Forbidden`` when it lies outside its own.

        A tenant admin mints keys for its own tenant (``tenant`` omitted means that one); only the operator
        mints for other tenants or mints operators, and it must name the tenant — no key is scoped by default.
        """
        if self.tenant is not None:
            if all_tenants or (tenant is not None and tenant != self.tenant):
                raise Forbidden("a tenant admin creates keys for its own tenant only",
                                details={"tenant": self.tenant})
            return self.tenant, False
        if tenant is None and not all_tenants:
            raise InvalidInput("name the key's tenant ('' for the default tenant), or set all_tenants for an "
                               "operator admin key", details={"field": "tenant"})
        return tenant or "", all_tenants


LOCAL_PRINCIPAL = Principal(key_id="local", role="admin", tenant=None)


@dataclass(frozen=True, slots=True)
class KeyRecord:
    id: str
    role: Role
    tenant: str
    sha256: str
    created_at: str
    label: str = ""
    all_tenants: bool = False  # the global operator; admin keys only, never implied by an empty tenant


def keys_path(settings: Settings) -> Path:
    return settings.api.keys_file or settings.data_dir / "api-keys.json"


def marks_left(key_id: str, tenant: str, reason: str) -> str:
    """What a revoke that could not delete the key's feedback marks says. The revoke itself stands: trouble in the
    telemetry store must never keep a leaked key alive, and the purge takes the marks of keys that no longer
    exist, so nothing is lost by doing it later."""
    return (f"key {key_id} is revoked, but its feedback marks could not be deleted ({reason}); they still count "
            f"in tenant {tenant!r}'s ranking until `groundsearch keys purge-conversations --yes` deletes them")


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


class KeyStore:
    """The keys file (JSON), re-read when it changes on disk so ``groundsearch keys create`` takes effect live.

    Several processes write one file — the server (``POST``/``DELETE /api/keys``), a second ``serve`` worker, the
    CLI — so a write is a read-modify-write under an exclusive ``flock`` on ``<file>.lock`` that re-reads the file
    first, and each write leaves an mtime past the one it replaced. Readers re-read when the file's (mtime, inode,
    size) moved. With a thread lock and an mtime check only, a tenant admin minting keys over HTTP rewrote the file
    from the copy it had read just before the operator's ``keys revoke``, writing the revoked key back; and two
    writes in one tick of the file system's clock left the same mtime, so a process kept accepting a revoked key
    (tests/security/test_key_revoke_race.py).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._seen: tuple[int, int, int] | None = None  # (mtime_ns, inode, size) of the file last read
        self._records: dict[str, KeyRecord] = {}

    # ---- reading --------------------------------------------------------------------------------

    def records(self) -> list[KeyRecord]:
        with self._lock:
            self._reload()
            return list(self._records.values())

    def _reload(self, *, force: bool = False) -> None:
        try:
            st = self.path.stat()
        except FileNotFoundError:
            self._records, self._seen = {}, None
            return
        seen = (st.st_mtime_ns, st.st_ino, st.st_size)
        if seen == self._seen and not force:
            return
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
            records = {r["id"]: KeyRecord(**r) for r in raw.get("keys", [])}
        except (ValueError, TypeError, KeyError) as exc:
            raise ConfigError(f"API keys file {self.path} is not valid: {exc}; fix or delete it") from exc
        self._records, self._seen = records, seen

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
        return Principal(key_id=record.id, role=record.role, tenant=None if record.all_tenants else record.tenant)

    def get(self, key_id: str) -> KeyRecord | None:
        with self._lock:
            self._reload()
            return self._records.get(key_id)

    # ---- writing --------------------------------------------------------------------------------

    def create(self, role: str, *, tenant: str, all_tenants: bool = False, label: str = "") -> tuple[KeyRecord, str]:
        """Add a key; returns its record and the full key, which is shown once and never stored.

        ``tenant`` has no default: every key's scope is chosen on purpose (``''`` is the default tenant only).
        ``all_tenants`` makes the global operator and is refused for any role but admin.
        """
        if role not in ROLES:
            raise InvalidInput(f"role must be one of {list(ROLES)}, got {role!r}", details={"field": "role"})
        if tenant == ALL_TENANTS_SCOPE:
            raise InvalidInput(f"tenant {ALL_TENANTS_SCOPE!r} is reserved: it keeps the records of callers that "
                               "read every tenant (groundsearch.scope)", details={"field": "tenant"})
        if all_tenants and (role != "admin" or tenant):
            raise InvalidInput("only an admin key may span all tenants, and then it names no tenant",
                               details={"field": "all_tenants"})
        key_id, secret = secrets.token_hex(6), secrets.token_urlsafe(32).replace("_", "-")
        record = KeyRecord(id=key_id, role=role, tenant=tenant, sha256=_hash(secret),  # type: ignore[arg-type]
                           created_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), label=label,
                           all_tenants=all_tenants)
        with self._writing():
            self._write({**self._records, key_id: record})
        return record, f"{_PREFIX}_{key_id}_{secret}"

    def revoke(self, key_id: str) -> None:
        with self._writing():
            if key_id not in self._records:
                raise NotFound(f"no API key with id {key_id!r}", details={"id": key_id})
            self._write({k: v for k, v in self._records.items() if k != key_id})

    @contextlib.contextmanager
    def _writing(self) -> Iterator[None]:
        """This process's lock and every process's ``flock``, with the file re-read under them: a change is made
        to what the file holds now, never to this process's copy of it."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock, open(self.path.with_name(self.path.name + ".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                self._reload(force=True)
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _write(self, records: dict[str, KeyRecord]) -> None:
        """Atomic replace, owner-only permissions: the file holds hashes, but they still identify keys."""
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".api-keys.")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"keys": [asdict(r) for r in records.values()]}, fh, indent=2)
        os.chmod(tmp, 0o600)
        if self._seen is not None and os.stat(tmp).st_mtime_ns <= self._seen[0]:
            # the file system's clock has not moved past the file this replaces (one tick is 1-10 ms): step past it,
            # so every reader's cached mtime differs from the new file's
            os.utime(tmp, ns=(self._seen[0] + 1, self._seen[0] + 1))
        os.replace(tmp, self.path)
        self._reload(force=True)
