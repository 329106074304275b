"""The redaction of a stored conversation turn: what it quoted of withdrawn items (or of passages their new
version dropped) replaced by visible markers. Pure, and apart from the turn loop so both the read path
(``assistant/withdrawn.py``) and the stores' erasure on delete and rewrite (``store/chat_citations.py``) run this one
function; it imports no engine, model or store backend.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..ingest.entities import normalize_entity
from ..store.chat_base import StoredTurn

__all__ = ["WITHDRAWN", "WITHDRAWN_SENTENCE", "constraints_from_sources", "redact_turn", "source_item_id"]

WITHDRAWN = "source withdrawn"
WITHDRAWN_SENTENCE = "[A sentence quoting a withdrawn source was removed.]"
# A reply's unit of citation: text, then its run of [n] markers, then the sentence's stop when the marker came first
# ("… leaks [1]." from a model; "… leaks. [1]" from the extractive reply). Text after the last marker cites nothing.
_UNIT = re.compile(r"(.*?)((?:\s*\[\d{1,3}\])+)([.!?]?)", re.S)
_NUMBER = re.compile(r"\[(\d{1,3})\]")
_MIN_PHRASE = 12  # shorter scrub phrases ("Yes.") would blank unrelated words of the audit trace
# A withdrawn source's title shorter than that is still a name worth erasing ("Zephyrine", a codename): it goes as a
# whole word, any case, wherever the turn's free text names it. The cost: the same word quoting a visible source
# in that turn goes too (visibly, as the marker). Three characters or fewer ("Q3") would blank too much.
_MIN_TITLE = 4


def source_item_id(source: Mapping[str, Any]) -> str:
    """The item a dossier source quotes (a chunk id is ``<item id>#<position>``); ``''`` when it names none."""
    return str(source.get("item_id") or str(source.get("id") or "").rpartition("#")[0])


_item_id = source_item_id


def constraints_from_sources(sources: Sequence[Mapping[str, Any]]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(supported_entities, source_urls)``: the auditor's constraint set, a pure function of the sources.

    Entities are every source's graph entities and its keyword/list field values (products, venues, authors),
    de-duplicated by normalised form (the smallest spelling kept, so the order of sources never matters) and
    sorted case-insensitively; URLs are the sources'
    links in source order, each once."""
    names: dict[str, str] = {}
    for s in sources:
        values: list[str] = [str(e) for e in s.get("entities") or ()]
        for key in ("product", "venue", "authors", "author"):
            raw = (s.get("fields") or {}).get(key)
            values += [str(v) for v in raw] if isinstance(raw, (list, tuple)) else [str(raw)] if raw else []
        for v in values:
            norm = normalize_entity(v)
            if norm:
                names[norm] = min(names.get(norm, v.strip()), v.strip())
    entities = tuple(sorted(names.values(), key=lambda v: (v.casefold(), v)))
    urls = tuple(dict.fromkeys(str(s["url"]) for s in sources if s.get("url")))
    return entities, urls


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


def _scrub(value: Any, phrases: Sequence[str], words: Sequence[str] = ()) -> Any:
    """``value`` (JSON-shaped) with every occurrence of ``phrases`` in its strings replaced by the marker sentence,
    and every whole-word occurrence of ``words`` (any case) by the withdrawn marker."""
    if isinstance(value, str):
        for p in phrases:
            value = value.replace(p, WITHDRAWN_SENTENCE)
        for w in words:
            value = re.sub(rf"(?<!\w){re.escape(w)}(?!\w)", WITHDRAWN, value, flags=re.IGNORECASE)
        return value
    if isinstance(value, Mapping):
        return {k: _scrub(v, phrases, words) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_scrub(v, phrases, words) for v in value]
    return value


def _squeezed(text: str) -> str:
    return " ".join(text.split())


def _gone(source: Mapping[str, Any], withdrawn: frozenset[str], current: Mapping[str, Sequence[str]]) -> bool:
    """Whether ``source`` quotes a withdrawn item, or a passage its item's ``current`` chunk texts no longer
    hold; a source erased already is not gone again."""
    if source.get("withdrawn") is True:
        return False
    item = _item_id(source)
    if item in withdrawn:
        return True
    if item not in current:
        return False
    passage = _squeezed(str(source.get("text") or ""))
    return not passage or not any(passage in _squeezed(c) for c in current[item])


def redact_turn(turn: StoredTurn, withdrawn: frozenset[str],
                current: Mapping[str, Sequence[str]] | None = None) -> StoredTurn:
    """``turn`` with what it quoted of ``withdrawn`` items redacted (see the module docstring) — and, given
    ``current`` (an item id → the chunk texts of its new version, for items just rewritten), the passages those
    items no longer hold. Pure: a turn citing none of them is returned as it is."""
    now = current or {}
    sources = list(turn.dossier.get("sources") or ())
    marked = [_gone(s, withdrawn, now) for s in sources]
    if not any(marked):
        return turn
    gone = {int(s["n"]) for s, m in zip(sources, marked)  # with the sources erased before: a sentence citing
            if (m or s.get("withdrawn") is True) and isinstance(s.get("n"), int)}  # only those cites nothing left
    phrases: list[str] = []
    kept_sources = []
    for s, m in zip(sources, marked):
        if not m:
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
    titles = {str(s.get("title") or "").strip() for s, m in zip(sources, marked) if m}
    words = sorted({t for t in titles if _MIN_TITLE <= len(t) < _MIN_PHRASE}, key=len, reverse=True)
    phrases = sorted({p for p in [*removed, *phrases] if len(p) >= _MIN_PHRASE}, key=len, reverse=True)
    supported, urls = constraints_from_sources(kept_sources)
    dossier = {**turn.dossier, "sources": kept_sources, "answer": answer, "supported_entities": list(supported),
               "source_urls": list(urls)}
    audit = _scrub({**turn.audit, **({"text": reply} if "text" in turn.audit else {})}, phrases, words)
    return replace(turn, reply=_scrub(reply, phrases, words), dossier=dossier, audit=audit,
                   tools=tuple(_scrub(list(turn.tools), phrases, words)))


