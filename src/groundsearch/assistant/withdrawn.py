"""What a stored conversation quoted that its reader may no longer see: found when it is read, and redacted.

A turn stores its dossier (each source's passage) and its reply. A delete erases what the rows quoted of the item
(``store/chat_citations.py``, in the delete's transaction), but turning an item back into a draft, or a reader of
another tenant, leaves the item stored and readable by some callers. So the check also runs where a conversation is
read — ``GET /api/chat/{id}`` and the earlier replies a continuing turn shows the model: one store read (per
:data:`_BATCH` ids) asks which of the items its turns cite are still visible to the caller, and the rest are
withdrawn (the same :func:`redact_turn` a delete writes into the rows):

* the dossier entry keeps its number and ids (the reply's ``[n]`` still points somewhere) but its title and text
  become :data:`WITHDRAWN`, its url, fields and entities go, and it is marked ``withdrawn: true``;
* a reply sentence citing only withdrawn sources becomes :data:`WITHDRAWN_SENTENCE` — never a silent gap, so the
  reader knows something was there; a sentence that also cites a visible source stays (that source grounds it);
* the same sentences, and the withdrawn passages, are scrubbed from the audit trace and the tool-call records.

Why the sources' items and not their chunks: visibility is an item's (its tenant and status). Deleted items are
withdrawn for every caller; drafts for callers who may not read drafts. Archived and superseded items are published
history any role may read, so they stay.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..store.chat_base import StoredTurn
from ..types import SearchFilter, Status
from .redaction import WITHDRAWN, WITHDRAWN_SENTENCE, redact_turn
from .redaction import source_item_id as _item_id

if TYPE_CHECKING:
    from ..store.base import Store

__all__ = ["WITHDRAWN", "WITHDRAWN_SENTENCE", "redact_turn", "redact_turns", "visible_filter", "withdrawn_items"]

_BATCH = 500  # ids per read: well under SQLite's and Postgres's bound-parameter limits (store/legacy_ids.py)


def visible_filter(tenant: str | None, item_ids: Sequence[str], *, drafts: bool) -> SearchFilter:
    """What the caller may still read of ``item_ids``: its tenant's (``None``: every tenant), published or
    archived, superseded or not, and drafts only when ``drafts``. Pure; ``item_ids`` must not be empty (an empty
    ``item_ids`` filter admits every item)."""
    assert item_ids, "an empty item_ids filter admits every item"
    statuses: tuple[Status, ...] = ("draft", "published", "archived") if drafts else ("published", "archived")
    return SearchFilter(statuses=statuses, include_superseded=True, tenant=tenant, item_ids=tuple(item_ids))


def withdrawn_items(store: Store, turns: Sequence[StoredTurn], *, tenant: str | None, drafts: bool) -> frozenset[str]:
    """The item ids ``turns`` cite that the caller may no longer read (deleted, another tenant's, or a draft when
    ``drafts`` is false); a source naming no item counts as withdrawn."""
    cited = list(dict.fromkeys(_item_id(s) for t in turns for s in t.dossier.get("sources") or ()))
    wanted = [i for i in cited if i]
    visible: set[str] = set()
    for start in range(0, len(wanted), _BATCH):
        batch = wanted[start:start + _BATCH]
        visible |= {row[0] for row in store.browse_rows(visible_filter(tenant, batch, drafts=drafts))}
    return frozenset(i for i in cited if i not in visible)


def redact_turns(store: Store, turns: Sequence[StoredTurn], *, tenant: str | None,
                 drafts: bool) -> list[StoredTurn]:
    """``turns`` as the caller may read them now: :func:`withdrawn_items` (one store read), then
    :func:`redact_turn` on each."""
    withdrawn = withdrawn_items(store, turns, tenant=tenant, drafts=drafts)
    return [redact_turn(t, withdrawn) for t in turns] if withdrawn else list(turns)
