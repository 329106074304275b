"""Intent + evidence → structured results (tables, charts, timelines, graphs). Pure.

Every cell, point, event and node comes from a stored field of an evidence hit and carries that hit's id,
so a user (and the tests) can trace each row back to the store. Nothing here calls a model: a table row
a model wrote would be a row nobody stored.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ..query.gate import GateOutcome
from ..types import (
    ChartPoint,
    ChartResult,
    CollectionSpec,
    EvidenceHit,
    FieldValue,
    GraphEdge,
    GraphNode,
    GraphResult,
    Intent,
    LowConfidenceResult,
    TableResult,
    TimelineEvent,
    TimelineResult,
    UnsupportedFormatResult,
)

__all__ = ["cell", "display_name", "normalize", "theme_counts"]

# A chart with more bars than this stops being readable; the long tail is left to the results list.
MAX_POINTS = 12
MAX_GRAPH_NODES = 30
MAX_GRAPH_EDGES = 60  # the heaviest; 30 nodes can have 435 pairs, which no reader can follow
DOCUMENT_COLUMNS = ("Title", "Section", "Link")

# Why a tornado diagram can't be drawn honestly: it plots, per factor, a signed effect (how much an
# outcome rises or falls). None of the stored fields carries such a value, and inventing one from text
# would be a chart of numbers nobody stored.
TORNADO_REASON = (
    "a tornado diagram needs a signed impact value (positive or negative effect) per factor, and no "
    "configured collection stores such values"
)


def cell(value: FieldValue) -> Any:
    """A stored field value as a table cell: dates as ISO text, lists joined, the rest unchanged."""
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, tuple):
        return ", ".join(str(v) for v in value)
    return value


def _unique_items(hits: Sequence[EvidenceHit]) -> list[EvidenceHit]:
    seen: set[str] = set()
    out = []
    for hit in hits:
        if hit.item.id not in seen:
            seen.add(hit.item.id)
            out.append(hit)
    return out


def _table(name: str, spec: CollectionSpec | None, hits: Sequence[EvidenceHit]) -> TableResult:
    rows: list[tuple[Any, ...]] = []
    if spec is not None and spec.kind == "records" and spec.table_columns:
        columns = tuple((spec.field(c).label if spec.field(c) else None) or c.replace("_", " ").title()
                        for c in spec.table_columns)
        for hit in hits:
            rows.append(tuple(cell(hit.item.fields.get(c)) for c in spec.table_columns))
    else:
        columns = DOCUMENT_COLUMNS
        for hit in hits:
            rows.append((hit.item.title, " › ".join(hit.chunk.heading_path) or None, hit.item.url))
    label = (spec.description if spec and spec.description else name)
    return TableResult(title=f"{label}", collection=name, columns=columns, rows=tuple(rows),
                       row_ids=tuple(h.id for h in hits))


def tables(hits: Sequence[EvidenceHit], specs: Mapping[str, CollectionSpec], order: Sequence[str]) -> list[TableResult]:
    """One table per collection present in the evidence, in plan order; one row per item."""
    by_collection: dict[str, list[EvidenceHit]] = {name: [] for name in order}
    for hit in _unique_items(hits):
        by_collection.setdefault(hit.item.collection, []).append(hit)
    return [_table(name, specs.get(name), rows) for name, rows in by_collection.items() if rows]


def _declared_values(hit: EvidenceHit, spec: CollectionSpec | None) -> set[str]:
    """Normalised values of a record's own keyword/list fields: names of the record, not themes."""
    if spec is None:
        return set()
    out = set()
    for f in spec.fields:
        if f.type in ("keyword", "list", "url"):
            value = hit.item.fields.get(f.name)
            for v in value if isinstance(value, tuple) else (value,):
                if isinstance(v, str):
                    out.add(v.casefold().strip())
    return out


def theme_counts(hits: Sequence[EvidenceHit], specs: Mapping[str, CollectionSpec]) -> list[tuple[str, list[str]]]:
    """Entities (stored per chunk at ingest) ranked by how many evidence hits mention them.

    Counted per hit (a record, or one section of a document), so a single long document still shows
    its themes. A record's own names (its product, its authors, its venue) are excluded: each belongs to
    one record, so counting them says nothing about what the results have in common. Returns
    ``(entity, hit ids)``, most frequent first, ties alphabetical.
    """
    mentions: dict[str, list[str]] = {}
    for hit in {h.id: h for h in hits}.values():
        own = _declared_values(hit, specs.get(hit.item.collection))
        for entity in dict.fromkeys(hit.chunk.entities):
            if entity not in own:
                mentions.setdefault(entity, []).append(hit.id)
    return sorted(mentions.items(), key=lambda kv: (-len(kv[1]), kv[0]))


def display_name(entity: str, hits: Sequence[EvidenceHit]) -> str:
    """The entity as first written in the evidence ("OpenAI", not the stored "openai")."""
    pattern = re.compile(r"(?<!\w)" + re.escape(entity).replace(r"\ ", r"\s+") + r"(?!\w)", re.IGNORECASE)
    for hit in hits:
        for text in (hit.chunk.text, hit.item.title):
            m = pattern.search(text)
            if m:
                return m.group(0)
    return entity


def _theme_chart(hits: Sequence[EvidenceHit], specs: Mapping[str, CollectionSpec], subtype: str,
                 title: str) -> ChartResult:
    ranked = [(e, ids) for e, ids in theme_counts(hits, specs) if len(ids) >= 2][:MAX_POINTS]
    points = tuple(ChartPoint(label=display_name(e, hits), value=float(len(ids)), source_ids=tuple(ids))
                   for e, ids in ranked)
    return ChartResult(
        title=title, subtype=subtype, x_label="theme", y_label="results mentioning it", points=points,  # type: ignore[arg-type]
        source=f"entities stored for the top {len({h.id for h in hits})} results, counted once per result "
               f"(a result's own product/author/venue names excluded; themes seen at least twice)",
    )


def _period_chart(hits: Sequence[EvidenceHit], subtype: str, title: str) -> ChartResult:
    dated = [h for h in _unique_items(hits) if h.item.date is not None]
    per_month: dict[str, list[str]] = {}
    for hit in sorted(dated, key=lambda h: h.item.date):  # type: ignore[arg-type, return-value]
        per_month.setdefault(hit.item.date.strftime("%Y-%m"), []).append(hit.id)  # type: ignore[union-attr]
    points = tuple(ChartPoint(label=m, value=float(len(ids)), source_ids=tuple(ids)) for m, ids in per_month.items())
    return ChartResult(
        title=title, subtype=subtype, x_label="month", y_label="results", points=points,  # type: ignore[arg-type]
        source=f"stored dates of the top {len(_unique_items(hits))} results ({len(dated)} dated), counted per month",
    )


def timeline(hits: Sequence[EvidenceHit], title: str) -> TimelineResult:
    dated = sorted((h for h in _unique_items(hits) if h.item.date is not None),
                   key=lambda h: (h.item.date, h.id))  # type: ignore[arg-type, return-value]
    return TimelineResult(title=title, events=tuple(
        TimelineEvent(date=h.item.date, label=h.item.title, source_id=h.id) for h in dated))  # type: ignore[arg-type]


def graph(hits: Sequence[EvidenceHit], title: str) -> GraphResult:
    """Entity co-occurrence within the evidence chunks: nodes weighted by mentions, edges by shared chunks."""
    weight: Counter[str] = Counter()
    pairs: Counter[tuple[str, str]] = Counter()
    for hit in hits:
        names = sorted(set(hit.chunk.entities))
        weight.update(names)
        pairs.update(itertools.combinations(names, 2))
    keep = {n for n, _ in sorted(weight.items(), key=lambda kv: (-kv[1], kv[0]))[:MAX_GRAPH_NODES]}
    nodes = tuple(GraphNode(id=n, label=display_name(n, hits), weight=float(weight[n])) for n in sorted(keep))
    kept_pairs = sorted(((pair, w) for pair, w in pairs.items() if pair[0] in keep and pair[1] in keep),
                        key=lambda pw: (-pw[1], pw[0]))[:MAX_GRAPH_EDGES]
    edges = tuple(GraphEdge(source=a, target=b, weight=float(w)) for (a, b), w in sorted(kept_pairs))
    return GraphResult(title=title, nodes=nodes, edges=edges)


def normalize(
    intent: Intent,
    hits: Sequence[EvidenceHit],
    specs: Mapping[str, CollectionSpec],
    *,
    collections: Sequence[str] = (),
    gate: GateOutcome | None = None,
    topic: str = "",
) -> list[Any]:
    """Structured results for the requested format, from ``hits`` only.

    ``default`` format yields none (prose and the results list carry the answer). A failed gate adds a
    ``low-confidence`` result first and the shape asked for is still built from the broader results.
    """
    out: list[Any] = []
    if gate is not None and gate.measured and not gate.passed:
        out.append(LowConfidenceResult(
            reason=(f"nothing clearly relevant was found (best similarity {gate.best_score:.2f} is below the "
                    f"threshold {gate.threshold:.2f}); showing the broader results"),
            best_score=gate.best_score, threshold=gate.threshold))
    if not hits:
        return out
    about = f" — {topic}" if topic else ""
    if intent.format == "table":
        out.extend(tables(hits, specs, collections))
    elif intent.format == "chart":
        subtype = intent.chart_subtype or "ranked-bar"
        if subtype == "tornado":
            out.append(UnsupportedFormatResult(requested="tornado", reason=TORNADO_REASON, substitute="chart:ranked-bar"))
            out.append(_theme_chart(hits, specs, "ranked-bar", f"Theme frequency{about}"))
        elif subtype == "ranked-bar":
            out.append(_theme_chart(hits, specs, "ranked-bar", f"Theme frequency{about}"))
        else:
            out.append(_period_chart(hits, subtype, f"Results per month{about}"))
    elif intent.format == "timeline":
        out.append(timeline(hits, f"Timeline{about}"))
    elif intent.format == "graph":
        out.append(graph(hits, f"Entities and co-occurrence{about}"))
    return out
