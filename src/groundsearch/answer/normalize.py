"""Intent + evidence → structured results (tables, charts, timelines, graphs). Pure.

Every cell, point, event and node comes from a stored field of an evidence hit and carries that hit's id,
so a user (and the tests) can trace each row back to the store. Nothing here calls a model: a table row
a model wrote would be a row nobody stored.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ..query.gate import GateOutcome
from ..types import (
    CollectionSpec,
    EvidenceHit,
    FieldValue,
    GraphEdge,
    GraphNode,
    GraphResult,
    Intent,
    LowConfidenceResult,
    TableResult,
    UnsupportedFormatResult,
)
from .charts import asked_name, chart_results, nothing_matched, timeline
from .facts import display_name, theme_counts
from .facts import unique_items as _unique_items

__all__ = ["cell", "could_not_build", "display_name", "normalize", "theme_counts"]

MAX_GRAPH_NODES = 30
MAX_GRAPH_EDGES = 60  # the heaviest; 30 nodes can have 435 pairs, which no reader can follow
DOCUMENT_COLUMNS = ("Title", "Section", "Link")


def cell(value: FieldValue) -> Any:
    """A stored field value as a table cell: dates as ISO text, lists joined, the rest unchanged."""
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, tuple):
        return ", ".join(str(v) for v in value)
    return value


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
    ``low-confidence`` result first and the shape asked for is still built from the broader results. Charts
    are :func:`.charts.chart_results`: the asked kind, or an ``unsupported-format`` and its substitute.
    """
    out: list[Any] = []
    if gate is not None and gate.measured and not gate.passed:
        out.append(LowConfidenceResult(
            reason=(f"nothing clearly relevant was found (best similarity {gate.best_score:.2f} is below the "
                    f"threshold {gate.threshold:.2f}); showing the broader results"),
            best_score=gate.best_score, threshold=gate.threshold))
    if intent.format == "chart":
        # even with no evidence: a chart that was asked for is answered, if only by saying why it is absent
        out.extend(chart_results(intent, hits, specs, topic))
        return out
    if not hits:
        if intent.format in ("table", "timeline", "graph"):  # the wish is answered, if only by saying why not
            out.append(nothing_matched(intent.format, f"put in a {intent.format}"))
        return out
    about = f" — {topic}" if topic else ""
    if intent.format == "table":
        out.extend(tables(hits, specs, collections))
    elif intent.format == "timeline":
        drawn = timeline(hits, f"Timeline{about}")
        out.extend([drawn] if drawn.events else _empty_shape("timeline", hits, specs, collections,
                                                             "has a stored date, so there is nothing to place in time"))
    elif intent.format == "graph":
        drawn_graph = graph(hits, f"Entities and co-occurrence{about}")
        out.extend([drawn_graph] if drawn_graph.nodes else _empty_shape(
            "graph", hits, specs, collections, "mentions an entity stored at ingest, so there is nothing to connect"))
    return out


def _empty_shape(asked: str, hits: Sequence[EvidenceHit], specs: Mapping[str, CollectionSpec],
                 collections: Sequence[str], why: str) -> list[Any]:
    """A timeline with no events or a graph with no nodes, said out loud, and the results as a table instead.

    An empty shape is a silent drop wearing the asked kind's name: "timeline chart of vector-db milestones" found
    twenty undated documentation sections, and the response held a timeline of nothing, with no notice."""
    reason = f"no result among the {len(_unique_items(hits))} found {why}"
    return [UnsupportedFormatResult(requested=asked, reason=reason, substitute="table"),
            *tables(hits, specs, collections)]


def could_not_build(intent: Intent, error: BaseException) -> list[UnsupportedFormatResult]:
    """What an asked shape gets when building it failed: its name and that it failed, never nothing at all (the
    orchestrator keeps the results list and says why in diagnostics). A request that asked no shape gets none."""
    if intent.format == "default":
        return []
    return [UnsupportedFormatResult(requested=asked_name(intent), substitute="none",
                                    reason=f"building it from the stored results failed ({type(error).__name__})")]
