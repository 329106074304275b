"""Purging conversations that no caller can reach any more (``groundsearch keys purge-conversations``).

A conversation is keyed by (tenant, owner, id) and an HTTP key's owner is its key id, so revoking a key leaves its
conversations stored — dossiers quoting drafts, what a person asked — with nobody able to read or delete them.
Reachable, and never purged:

* ``(ALL_TENANTS_SCOPE, '')``: every operator key, local mode, the CLI and an all-tenants MCP tool share it;
* ``(tenant, MCP_OWNER)``: a one-tenant MCP tool (its scope is configuration, not a key, so it cannot be revoked);
* ``(tenant, key id)`` for every key in the keys file, with that key's own tenant.

Everything else is unreachable: revoked keys' conversations, and rows from before owners existed (owner ``''``
under a tenant), which no key reaches either. The purge reads only owners and counts, never a conversation.

Feedback marks follow the same rule with one difference: marks from before owners (owner ``''``) are kept, since
they are documented to go on counting in their tenant's ranking. A revoked key's marks are deleted when it is
revoked; the purge takes the ones of keys revoked before that (or removed from the keys file by hand).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..scope import ALL_TENANTS_SCOPE, MCP_OWNER
from ..store.chat_base import ConversationStore
from ..store.telemetry_base import TelemetryStore

__all__ = ["Unreachable", "purge_unreachable", "purge_unreachable_marks", "unreachable"]


@dataclass(frozen=True, slots=True)
class Unreachable:
    tenant: str
    owner: str  # a revoked key's id, or '' for a conversation stored before owners existed
    conversations: int


def _reachable(tenant: str, owner: str, live: set[tuple[str, str]]) -> bool:
    if tenant == ALL_TENANTS_SCOPE:
        return owner == ""
    return owner == MCP_OWNER or (tenant, owner) in live


def unreachable(owners: Iterable[tuple[str, str, int]], live: Iterable[tuple[str, str]]) -> list[Unreachable]:
    """The owners of ``owners`` (``ConversationStore.owners()``) that no live ``(tenant, key id)`` reaches."""
    keys = set(live)
    return [Unreachable(t, o, n) for t, o, n in owners if not _reachable(t, o, keys)]


def purge_unreachable(store: ConversationStore, live_keys: Callable[[], Iterable[tuple[str, str]]], *,
                      dry_run: bool) -> list[Unreachable]:
    """Delete (unless ``dry_run``) every conversation no caller reaches; returns what was (or would be) deleted.

    The owners are read before the keys: a key created in between has no conversation in that list yet, so a
    new key's first conversation is never taken for an orphan (the other order could purge it).
    """
    found = unreachable(store.owners(), live_keys())
    if not dry_run:
        for u in found:
            store.delete_owner(u.tenant, u.owner)
    return found


def purge_unreachable_marks(telemetry: TelemetryStore, live_keys: Callable[[], Iterable[tuple[str, str]]], *,
                            dry_run: bool) -> list[Unreachable]:
    """Delete (unless ``dry_run``) the feedback marks of owners no live key is (``conversations`` counts marks
    here); marks from before owners (``''``) stay. Owners are read before keys, as in :func:`purge_unreachable`."""
    found = [u for u in unreachable(telemetry.feedback_owners(), live_keys()) if u.owner]
    if not dry_run:
        for u in found:
            telemetry.delete_owner_feedback(u.tenant, u.owner)
    return found
