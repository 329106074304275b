"""What a stored conversation quoted that its reader may no longer see: found when it is read, and redacted.

A turn stores its dossier (each source's passage) and its reply. Neither a delete nor turning an item back into a
draft reaches them, and no store can find the turns quoting an item without reading every dossier. So the check
runs where a conversation is read instead — ``GET /api/chat/{id}`` and the earlier replies a continuing turn shows
the model: one store read (per :data:`_BATCH` ids) asks which of the items its turns cite are still visible to the
caller, and the rest are withdrawn:

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

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..store.chat_base import StoredTurn
from ..types import SearchFilter, Status
from .dossier import constraints_from_sources

if TYPE_CHECKING:
    from ..store.base import Store

__all__ = ["WITHDRAWN", "WITHDRAWN_SENTENCE", "redact_turn", "redact_turns", "visible_filter", "withdrawn_items"]

WITHDRAWN = "source withdrawn"
WITHDRAWN_SENTENCE = "[A sentence quoting a withdrawn source was removed.]"
_BATCH = 500  # ids per read: well under SQLite's and Postgres's bound-parameter limits (store/legacy_ids.py)
# A reply's unit of citation: text, then its run of [n] markers, then the sentence's stop when the marker came first
# ("… leaks [1]." from a model; "… leaks. [1]" from the extractive reply). Text after the last marker cites nothing.
_UNIT = re.compile(r"(.*?)((?:\s*\[\d{1,3}\])+)([.!?]?)", re.S)
_NUMBER = re.compile(r"\[(\d{1,3})\]")
_MIN_PHRASE = 12  # shorter scrub phrases ("Yes.") would blank unrelated words of the audit trace


def _item_id(source: Mapping[str, Any]) -> str:
    """The item a dossier source quotes (a chunk id is ``<item id>#<position>``)."""
    return str(source.get("item_id") or str(source.get("id") or "").rpartition("#")[0])


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


def _redact_reply(text: str, gone: set[int]) -> tuple[str, list[str]]:
    """``(text with each unit citing only ``gone`` numbers replaced by the marker sentence, the replaced units'
    text)``. Pure."""
    out: list[str] = []
    removed: list[str] = []
    end = 0
    for m in _UNIT.finditer(text):
        end = m.end()
        cited = {int(n) for n in _NUMBER.findall(m.group(2))}
        if cited and cited <= gone:
            lead = m.group(1)[: len(m.group(1)) - len(m.group(1).lstrip())]
            out.append(lead + WITHDRAWN_SENTENCE)
            removed.append(m.group(1).strip())
        else:
            out.append(m.group(0))
    out.append(text[end:])
    return "".join(out), removed


def _scrub(value: Any, phrases: Sequence[str]) -> Any:
    """``value`` (JSON-shaped) with every occurrence of ``phrases`` in its strings replaced by the marker sentence."""
    if isinstance(value, str):
        for p in phrases:
            value = value.replace(p, WITHDRAWN_SENTENCE)
        return value
    if isinstance(value, Mapping):
        return {k: _scrub(v, phrases) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_scrub(v, phrases) for v in value]
    return value


def redact_turn(turn: StoredTurn, withdrawn: frozenset[str]) -> StoredTurn:
    """``turn`` with what it quoted of ``withdrawn`` items redacted (see the module docstring). Pure: a turn
    citing none of them is returned as it is."""
    sources = list(turn.dossier.get("sources") or ())
    gone = {int(s["n"]) for s in sources if _item_id(s) in withdrawn and isinstance(s.get("n"), int)}
    if not any(_item_id(s) in withdrawn for s in sources):
        return turn
    phrases: list[str] = []
    kept_sources = []
    for s in sources:
        if _item_id(s) not in withdrawn:
            kept_sources.append(dict(s))
            continue
        text = str(s.get("text") or "")
        phrases += [text.strip(), str(s.get("title") or "").strip(),
                    *(" ".join(p.split()) for p in re.split(r"\n\s*\n", text))]
        kept_sources.append({**s, "title": WITHDRAWN, "text": WITHDRAWN, "url": None, "fields": {}, "entities": [],
                             "withdrawn": True})
    answer = []
    for sentence in turn.dossier.get("answer") or ():
        cites = set(sentence.get("citations") or ())
        if cites and cites <= gone:
            phrases.append(str(sentence.get("text") or "").strip())
            answer.append({**sentence, "text": WITHDRAWN_SENTENCE})
        else:
            answer.append(dict(sentence))
    reply, removed = _redact_reply(turn.reply, gone)
    phrases = sorted({p for p in [*removed, *phrases] if len(p) >= _MIN_PHRASE}, key=len, reverse=True)
    supported, urls = constraints_from_sources(kept_sources)
    dossier = {**turn.dossier, "sources": kept_sources, "answer": answer, "supported_entities": list(supported),
               "source_urls": list(urls)}
    audit = _scrub({**turn.audit, **({"text": reply} if "text" in turn.audit else {})}, phrases)
    return replace(turn, reply=_scrub(reply, phrases), dossier=dossier, audit=audit,
                   tools=tuple(_scrub(list(turn.tools), phrases)))


def redact_turns(store: Store, turns: Sequence[StoredTurn], *, tenant: str | None,
                 drafts: bool) -> list[StoredTurn]:
    """``turns`` as the caller may read them now: :func:`withdrawn_items` (one store read), then
    :func:`redact_turn` on each."""
    withdrawn = withdrawn_items(store, turns, tenant=tenant, drafts=drafts)
    return [redact_turn(t, withdrawn) for t in turns] if withdrawn else list(turns)
