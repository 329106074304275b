"""``prepare_dossier(query, history)``: what the assistant knows before it says anything — no LLM inside.

(a) Qualification signals (scale, budget, …) are read from the user's words by the assistant's configured
patterns, merged with the stored ones, and dropped when the user contradicts them. They steer the
conversation only: the retrieval request is the user's text with the clauses stating a signal taken out, and
nothing of the stored signals added.
(b) Retrieval entities are the query's names resolved against the entity graph — exactly, through the
assistant's aliases, or by a synonym edge (name-embedding cosine ≥ ``graph.SYNONYM_COSINE``, HippoRAG's rule) —
plus configured terms, typed into the assistant's retrieval fields.
(c) Retrieval is the extractive search pipeline over the assistant's charter; the conversation's retrieval
entities then *boost* it: results naming more of them move up, in stable order, and nothing is removed.
(d) ``supported_entities`` / ``source_urls`` come from the sources alone (:func:`constraints_from_sources`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Generator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from ..ingest.entities import extract_entities, is_name, normalize_entity
from ..orchestrate import fold
from ..query.graph import SYNONYM_COSINE
from ..types import Event, SearchFilter, SearchRequest
from .config import Assistant
from .redaction import constraints_from_sources  # the auditor's constraint set, shared with the redaction
from .signals import retrieval_query, update_signals

if TYPE_CHECKING:
    from ..engine import Engine

__all__ = ["Dossier", "boost_order", "constraints_from_sources", "dossier_stream", "prepare_dossier",
           "resolve_entities"]

MAX_ENTITIES = 12  # retrieval entities carried across turns, newest kept
SOURCE_CHARS = 1200
_WORDS = re.compile(r"[\w][\w.+#-]*", re.UNICODE)


@dataclass(frozen=True)
class Dossier:
    retrieval_entities: tuple[Mapping[str, str], ...]
    qualification_signals: tuple[Mapping[str, Any], ...]
    sources: tuple[Mapping[str, Any], ...]
    canonical_match: tuple[Mapping[str, str], ...]
    suggested_discovery_question: Mapping[str, str] | None
    supported_entities: tuple[str, ...]
    source_urls: tuple[str, ...]
    grounded: bool  # sources exist and the relevance gate passed
    query: str = ""  # what retrieval searched for (the user's text less its signal clauses)
    answer: tuple[Mapping[str, Any], ...] = ()  # the extractive answer's sentences, citations as source numbers
    dropped_signals: tuple[Mapping[str, Any], ...] = ()
    asked: tuple[str, ...] = field(default=())

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out.pop("asked")
        return json.loads(json.dumps(out, default=str))  # the JSON shape, as stored and as sent


def _contains(haystack: str, needle: str) -> bool:
    return bool(needle) and re.search(rf"(?<![\w]){re.escape(needle)}(?![\w])", haystack) is not None


def _ngrams(text: str, n_max: int = 3) -> list[str]:
    words = [w.strip(".") for w in _WORDS.findall(text)]
    out = []
    for n in range(n_max, 0, -1):
        out += [" ".join(words[i:i + n]) for i in range(len(words) - n + 1)]
    return list(dict.fromkeys(normalize_entity(g) for g in out if g))


def resolve_entities(engine: Engine, assistant: Assistant, query: str, f: SearchFilter,
                     candidates_from_sources: Sequence[str] = ()) -> list[dict[str, str]]:
    """``[{mention, canonical, via}]`` for the names of ``query`` that the entity graph knows.

    ``via`` is ``exact`` (the normalised mention is a graph entity), ``alias`` (the assistant's alias table
    maps it to one) or ``synonym`` (an unresolved name of the query embeds within ``SYNONYM_COSINE`` of an entity
    of the retrieved sources). Longer mentions win over the words inside them."""
    matches: list[dict[str, str]] = []
    covered: set[str] = set()
    for gram in _ngrams(query):
        if len(gram) < 2 or not is_name(gram) or any(_contains(c, gram) for c in covered):
            continue
        canonical, via = (assistant.aliases[gram], "alias") if gram in assistant.aliases else (gram, "exact")
        canonical = normalize_entity(canonical)
        if engine.store.entity_chunks([canonical], f, 1):
            matches.append({"mention": gram, "canonical": canonical, "via": via})
            covered.add(gram)
    unresolved = [e for e in extract_entities(query) if not any(_contains(c, e) or _contains(e, c) for c in covered)]
    pool = [c for c in dict.fromkeys(candidates_from_sources) if c not in {m["canonical"] for m in matches}]
    if unresolved and pool:
        import numpy as np

        vectors = engine.embedder.embed_queries([*unresolved, *pool])
        sims = np.asarray(vectors[: len(unresolved)]) @ np.asarray(vectors[len(unresolved):]).T
        for i, mention in enumerate(unresolved):
            j = int(np.argmax(sims[i]))
            if float(sims[i, j]) >= SYNONYM_COSINE:
                matches.append({"mention": mention, "canonical": pool[j], "via": "synonym"})
    return matches


def type_entities(assistant: Assistant, query: str, matches: Sequence[Mapping[str, str]],
                  sources: Sequence[Mapping[str, Any]]) -> list[dict[str, str]]:
    """Retrieval entities of this turn as ``{field, value}``: configured terms the user used, source field values
    the user named (a product, a venue, an author), and the remaining graph matches as ``topic``."""
    text = normalize_entity(query)
    out: list[dict[str, str]] = []
    taken: set[str] = set()

    def add(field_name: str, value: str) -> None:
        norm = normalize_entity(value)
        if norm and norm not in taken and not any(_contains(t, norm) for t in taken):
            taken.add(norm)
            out.append({"field": field_name, "value": norm})

    for name, spec in assistant.retrieval_fields.items():
        for term in sorted(spec.terms, key=len, reverse=True):
            if _contains(text, normalize_entity(term)):
                add(name, term)
        for source in sources:
            for fname in spec.source_fields:
                raw = (source.get("fields") or {}).get(fname)
                for value in raw if isinstance(raw, (list, tuple)) else [raw] if raw else []:
                    if len(str(value)) >= 3 and _contains(text, normalize_entity(str(value))):
                        add(name, str(value))
    fallback = "topic" if "topic" in assistant.retrieval_fields else next(iter(assistant.retrieval_fields), "topic")
    for m in matches:
        add(fallback, m["canonical"])
    return out


def boost_order(results: Sequence[Mapping[str, Any]], entities: Sequence[str]) -> list[Mapping[str, Any]]:
    """Results naming more of ``entities`` (title, snippet, field values) first; ties keep the fused order.
    A boost never drops a result: the output is a permutation of the input."""
    needles = [normalize_entity(e) for e in entities if e]

    def hits(r: Mapping[str, Any]) -> int:
        hay = normalize_entity(" ".join([str(r.get("title", "")), str(r.get("snippet", "")),
                                         " ".join(str(v) for v in (r.get("fields") or {}).values())]))
        return sum(1 for n in needles if _contains(hay, n))

    ranked = sorted(enumerate(results), key=lambda p: (-hits(p[1]), p[0]))
    return [r for _, r in ranked]


def _discovery(assistant: Assistant, entities: Sequence[Mapping[str, str]], signals: Sequence[Mapping[str, Any]],
               asked: Sequence[str]) -> dict[str, str] | None:
    """The one question worth asking when what is known is thin (no retrieval entity, or no qualification signal):
    the first field in configured order that is neither known nor asked before in this conversation."""
    known_fields = {e["field"] for e in entities}
    known_signals = {s["signal"] for s in signals}
    if entities and signals:
        return None
    order = [f for f in assistant.retrieval_fields if not entities and f not in known_fields]
    order += [s for s in assistant.signals if s not in known_signals]
    for name in order:
        if name not in asked:
            return {"signal": name, "question": assistant.question_for(name)}
    return None


def dossier_stream(engine: Engine, assistant: Assistant, query: str, state: Mapping[str, Any], *,
                   tenant: str | None, sources_max: int = 6) -> Generator[Event, None, Dossier]:
    """Yields the search stage events; returns the ``Dossier`` (``dossier = yield from dossier_stream(...)``)."""
    signals, dropped = update_signals(assistant, state.get("signals") or [], query, turn=int(state.get("turns", 0)) + 1)
    searched = retrieval_query(assistant, query)
    if searched == query and (dropped or len(signals) > len(state.get("signals") or [])) and state.get("last_query"):
        # a turn that only states or retracts a signal ("we have 2M docs", "no, I'm not a researcher") asks
        # nothing new: the previous question is still the one the sources must answer
        searched = str(state["last_query"])
    request = SearchRequest(query=searched, limit=20, collections=assistant.collections or None)
    events: list[Event] = []
    for event in engine.extractive_stream(request, tenant=tenant):
        events.append(event)
        if event.name != "complete":
            yield event
    response = fold(iter(events))
    results = [r.model_dump(mode="json") for r in response.results
               if not assistant.source_kinds or _kind(engine, r.collection) in assistant.source_kinds]
    gate = response.diagnostics.gate or {}
    grounded = bool(results) and (not gate.get("measured", True) or bool(gate.get("passed", True)))

    f = SearchFilter(tenant=tenant)
    views = engine.store.chunks([r["id"] for r in results])
    chunk_entities = {cid: view.chunk.entities for cid, view in views.items()}
    pool = [e for r in results[:sources_max] for e in chunk_entities.get(r["id"], ())]
    matches = resolve_entities(engine, assistant, query, f, pool)
    turn_entities = type_entities(assistant, query, matches, results[:sources_max])
    carried = [e for e in state.get("retrieval_entities") or [] if e["value"] not in {t["value"] for t in turn_entities}]
    entities = (carried + turn_entities)[-MAX_ENTITIES:]

    ordered = _diverse(boost_order(results, [e["value"] for e in entities]))
    cited = [c for s in response.prose.sentences for c in s.citations]
    chosen = ordered[:sources_max] if grounded else []
    chosen += [r for r in results if grounded and r["id"] in cited and r not in chosen]
    sources = tuple({"n": i + 1, "id": r["id"], "item_id": r["item_id"], "title": r["title"], "url": r.get("url"),
                     "collection": r["collection"], "kind": _kind(engine, r["collection"]),
                     "text": (views[r["id"]].chunk.text if r["id"] in views else str(r.get("snippet", "")))[:SOURCE_CHARS], "fields": r.get("fields") or {},
                     "entities": list(chunk_entities.get(r["id"], ()))} for i, r in enumerate(chosen))
    number = {s["id"]: s["n"] for s in sources}
    answer = tuple({"text": s.text, "citations": [number[c] for c in s.citations if c in number]}
                   for s in response.prose.sentences if grounded and s.citations and s.verified)
    supported, urls = constraints_from_sources(sources)
    asked = tuple(state.get("asked") or ())
    return Dossier(
        retrieval_entities=tuple(entities), qualification_signals=tuple(signals), sources=sources,
        canonical_match=tuple(matches), suggested_discovery_question=_discovery(assistant, entities, signals, asked),
        supported_entities=supported, source_urls=urls, grounded=grounded and bool(sources), query=searched,
        answer=answer,
        dropped_signals=tuple(dropped), asked=asked,
    )


def _diverse(results: Sequence[Mapping[str, Any]], per_item: int = 2) -> list[Mapping[str, Any]]:
    """At most ``per_item`` chunks of one item first, the rest after in order: six chunks of one page would
    crowd out every other source of the dossier (nothing is dropped, only moved down)."""
    seen: dict[str, int] = {}
    first, rest = [], []
    for r in results:
        seen[r["item_id"]] = seen.get(r["item_id"], 0) + 1
        (first if seen[r["item_id"]] <= per_item else rest).append(r)
    return first + rest


def prepare_dossier(engine: Engine, assistant: Assistant, query: str, state: Mapping[str, Any] | None = None, *,
                    tenant: str | None = None, sources_max: int = 6) -> Dossier:
    """The dossier alone (the stage events discarded)."""
    stream = dossier_stream(engine, assistant, query, state or {}, tenant=tenant, sources_max=sources_max)
    while True:
        try:
            next(stream)
        except StopIteration as stop:
            return stop.value


def _kind(engine: Engine, collection: str) -> str:
    spec = engine.settings.collection(collection)
    return spec.kind if spec is not None else "documents"
