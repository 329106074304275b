"""Deterministic ids and content hashes. Pure.

* A document's id is its collection, a slug of its file name and a short hash of the file's absolute,
  resolved path: the same file gets the same id whichever folder or relative path it was ingested
  through, ids stay readable for ``groundsearch delete``, and they never reveal the server's directory
  layout to API clients (the full path stays in ``Item.source``, which interfaces do not show).
* A record's id is its collection plus its ``id_field`` value, so editing a row updates the item; rows
  without a declared id fall back to a hash of the row's content (an edit then reads as delete + add).
* Both carry the tenant, percent-encoded so it holds no ``:``: the scope ``collection:tenant:`` is then
  unambiguous, and tenant ``a:b`` with record ``c`` can never produce the id of tenant ``a``'s record ``b:c``
  (an upsert by that id would replace another tenant's item).
* The default tenant ``''`` has no tenant segment, so its record keys are escaped too (``%`` and ``:`` only):
  unescaped, its record ``acme:r1`` had tenant ``acme``'s id ``rel:acme:r1`` — a squat that made acme's own
  upload of ``r1`` fail as "another tenant's" (tests/security/test_record_key_splice.py). A default-tenant id
  then never holds a second ``:``, and every other id does. So an id names the one tenant whose ids it is
  shaped like (``namespace_tenant``); a store written before either encoding can hold an item under another
  tenant's shape, which ``store/legacy_ids.py`` moves once into its owner's (``moved_id``).
* ``content_hash`` covers what a reader sees (title, text, typed fields), normalised (NFC, whitespace
  collapsed) so re-encoded or re-wrapped copies of the same content collide — that is the duplicate signal.
  Status, dates of ingest and the source path are deliberately *not* in it.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import quote, unquote

from ..types import FieldValue

__all__ = ["chunk_id", "content_hash", "document_id", "moved_id", "namespace_tenant", "record_id", "source_key"]

_SPACE = re.compile(r"\s+")


def source_key(path: Path) -> str:
    """The stable form of a source path stored on items (``Item.source``) and used for incremental ingest."""
    return path.resolve().as_posix()


def _scope(collection: str, tenant: str) -> str:
    return f"{collection}:{quote(tenant, safe='')}:" if tenant else f"{collection}:"


_SLUG = re.compile(r"[\W_]+")


def document_id(collection: str, source: str, tenant: str = "") -> str:
    """``docs:readme-md-1a2b3c4d5e``: 40 bits of the path hash keep collisions negligible per collection."""
    name = source.rsplit("/", 1)[-1]
    slug = _SLUG.sub("-", name.casefold()).strip("-")[:60] or "doc"
    digest = hashlib.sha256(source.encode("utf-8")).hexdigest()[:10]
    return _scope(collection, tenant) + f"{slug}-{digest}"


def record_id(collection: str, key: str, content: str, tenant: str = "") -> str:
    if key and not tenant:
        key = key.replace("%", "%25").replace(":", "%3A")  # ``%`` first: the escape stays one-to-one
    return _scope(collection, tenant) + (key if key else "row-" + content[:16])


def namespace_tenant(item_id: str) -> str | None:
    """The tenant whose ids ``item_id`` is shaped like — the inverse of ``_scope`` — or ``None``: nobody's (no
    tenant segment this module could have written, e.g. an unescaped ``a b`` or an empty one)."""
    collection, sep, rest = item_id.partition(":")
    if not sep or not collection:
        return None
    segment, sep, _ = rest.partition(":")
    if not sep:
        return ""
    tenant = unquote(segment, errors="replace")  # an invalid escape comes back other than it went in
    return tenant if tenant and quote(tenant, safe="") == segment else None


def moved_id(item_id: str, collection: str, tenant: str) -> str:
    """A new id in ``tenant``'s own namespace for its item stored under ``item_id``, an id shaped like another
    tenant's (``namespace_tenant``); deterministic, so a move interrupted and run again picks the same one."""
    return _scope(collection, tenant) + "legacy-" + hashlib.sha256(item_id.encode("utf-8")).hexdigest()[:16]


def chunk_id(item_id: str, position: int) -> str:
    return f"{item_id}#{position}"


def _normal(text: str) -> str:
    return _SPACE.sub(" ", unicodedata.normalize("NFC", text)).strip()


def _jsonable(value: FieldValue) -> object:
    if isinstance(value, tuple):
        return [_normal(v) for v in value]
    if isinstance(value, str):
        return _normal(value)
    if hasattr(value, "isoformat"):
        return value.isoformat()  # type: ignore[union-attr]
    return value


def content_hash(title: str, text: str, fields: Mapping[str, FieldValue]) -> str:
    """SHA-256 (hex) of the normalised title, text and fields."""
    payload = json.dumps(
        [_normal(title), _normal(text), {k: _jsonable(v) for k, v in sorted(fields.items()) if v is not None}],
        ensure_ascii=False,
        separators=(",", ":"),
        sort_keys=True,
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()
