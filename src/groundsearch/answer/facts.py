"""What the evidence offers to chart: categorical dimensions, dated items, numeric fields. Pure.

A chart kind is drawable when these facts can carry it (two numeric fields for a scatter, two dimensions for
a heatmap, …), so the same facts decide both what is drawn and why something can't be.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..types import CollectionSpec, EvidenceHit

__all__ = ["Dimension", "Facts", "NumericField", "display_name", "gather", "groups", "theme_counts",
           "unique_items"]

# More slices, stacks or heatmap rows than this and a reader stops telling them apart; the smallest are
# merged into one "other" group (its ids kept), so the counts still add up to the results.
MAX_GROUPS = 8
OTHER = "other"
# Version strings ("1.0.0b261015") repeat across unrelated products of one vendor: grouping by them would
# chart a coincidence of numbering, so a field whose values are mostly versions is not a dimension.
_VERSION = re.compile(r"^v?\d+(\.\d+)+")


def unique_items(hits: Sequence[EvidenceHit]) -> list[EvidenceHit]:
    """One hit per item, best first: a document with three matching sections is still one result."""
    seen: set[str] = set()
    out = []
    for hit in hits:
        if hit.item.id not in seen:
            seen.add(hit.item.id)
            out.append(hit)
    return out


@dataclass(frozen=True)
class Dimension:
    """A way to put each result in one group: a keyword field, the month of its date, or its collection."""

    name: str  # axis / legend label ("venue", "month", "collection")
    key: Callable[[EvidenceHit], str | None]
    covered: int  # results with a value
    distinct: int
    repeated: int  # results in groups of two or more: how much the grouping actually says
    ordered: bool = False  # months sort by time, not by size


@dataclass(frozen=True)
class NumericField:
    name: str
    collection: str
    values: tuple[tuple[EvidenceHit, float], ...]

    @property
    def signed(self) -> bool:
        return any(v < 0 for _, v in self.values) and any(v > 0 for _, v in self.values)


@dataclass(frozen=True)
class Facts:
    hits: tuple[EvidenceHit, ...]  # as retrieved: themes are counted per hit (a document section each)
    items: tuple[EvidenceHit, ...]
    dimensions: tuple[Dimension, ...]  # categorical ones, best first (month is separate)
    month: Dimension | None
    numeric: tuple[NumericField, ...]
    specs: Mapping[str, CollectionSpec]
    month_asked: bool = False  # "by month", "monthly": time is the grouping the request named
    dimension_asked: bool = False  # the first of ``dimensions`` is a grouping the request named ("by registry")

    @property
    def dated(self) -> int:
        return self.month.covered if self.month else 0

    def numeric_pairs(self) -> list[tuple[NumericField, NumericField, list[tuple[EvidenceHit, float, float]]]]:
        """Pairs of numeric fields of one collection, with the results that store both."""
        out = []
        for i, a in enumerate(self.numeric):
            for b in self.numeric[i + 1:]:
                if a.collection != b.collection:
                    continue
                bv = {h.id: v for h, v in b.values}
                both = [(h, v, bv[h.id]) for h, v in a.values if h.id in bv]
                if len(both) >= 2:
                    out.append((a, b, both))
        return out

    def field_types(self, *types: str) -> list[tuple[str, str]]:
        """(collection, field) declared with one of ``types`` in the collections present in the results."""
        present = {h.item.collection for h in self.items}
        return [(c, f.name) for c in sorted(present) if (spec := self.specs.get(c))
                for f in spec.fields if f.type in types]


def groups(hits: Iterable[EvidenceHit], key: Callable[[EvidenceHit], str | Iterable[str] | None], *,
           ordered: bool = False, limit: int = MAX_GROUPS) -> list[tuple[str, list[str]]]:
    """``(value, evidence ids)``: largest first (or in value order when ``ordered``), ties by value; past
    ``limit`` the rest are merged into one ``other`` group so no result silently disappears.

    ``key`` gives a hit one value, or several (a list field: a paper's authors), each counted once for that
    hit: a paper with three authors is in three groups, and one author written twice is still one paper."""
    by: dict[str, list[str]] = {}
    for hit in hits:
        value = key(hit)
        for v in (value,) if value is None or isinstance(value, str) else dict.fromkeys(value):
            if v is not None:
                by.setdefault(v, []).append(hit.id)
    ranked = sorted(by.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    if len(ranked) > limit:
        rest = [i for _, ids in ranked[limit - 1:] for i in ids]
        ranked = ranked[:limit - 1] + [(f"{OTHER} ({len(ranked) - limit + 1} values)", rest)]
    if ordered:
        ranked.sort(key=lambda kv: (kv[0].startswith(OTHER), kv[0]))
    return ranked


def _dimension(name: str, key: Callable[[EvidenceHit], str | None], items: Sequence[EvidenceHit],
               ordered: bool = False) -> Dimension:
    counts: dict[str, int] = {}
    for hit in items:
        value = key(hit)
        if value is not None:
            counts[value] = counts.get(value, 0) + 1
    return Dimension(name=name, key=key, covered=sum(counts.values()), distinct=len(counts),
                     repeated=sum(n for n in counts.values() if n >= 2), ordered=ordered)


def _field_key(field: str, collections: frozenset[str]) -> Callable[[EvidenceHit], str | None]:
    def key(hit: EvidenceHit) -> str | None:
        if hit.item.collection not in collections:
            return None
        value = hit.item.fields.get(field)
        return value.strip() if isinstance(value, str) and value.strip() else None
    return key


def _month(hit: EvidenceHit) -> str | None:
    return hit.item.date.strftime("%Y-%m") if hit.item.date is not None else None


def _versions(dim: Dimension, items: Sequence[EvidenceHit]) -> bool:
    values = [v for h in items if (v := dim.key(h)) is not None]
    return sum(bool(_VERSION.match(v)) for v in values) * 2 > len(values)


def gather(hits: Sequence[EvidenceHit], specs: Mapping[str, CollectionSpec],
           named: Iterable[str] = ()) -> Facts:
    """The chartable facts of ``hits``. A dimension whose name the request used (``named``: topic keywords)
    comes first; otherwise the one that groups the most results."""
    items = unique_items(hits)
    present = {h.item.collection for h in items}
    by_field: dict[str, set[str]] = {}
    numeric: list[NumericField] = []
    for name in sorted(present):
        spec = specs.get(name)
        if spec is None or spec.kind != "records":
            continue
        for f in spec.fields:
            if f.name in (spec.id_field, spec.url_field, spec.date_field):
                continue
            if f.type == "keyword":
                by_field.setdefault(f.name, set()).add(name)
            elif f.type in ("int", "float"):
                values = tuple((h, float(v)) for h in items if h.item.collection == name
                               and isinstance(v := h.item.fields.get(f.name), (int, float))
                               and not isinstance(v, bool))
                if values:  # drawers set their own minimum; a reason can then say how many there were
                    numeric.append(NumericField(f.name, name, values))
    dims = [_dimension(field.replace("_", " "), _field_key(field, frozenset(colls)), items)
            for field, colls in sorted(by_field.items())]
    if len(present) >= 2:
        dims.append(_dimension("collection", lambda h: h.item.collection, items))
    words = {w for n in named for w in re.findall(r"\w+", n.casefold())}

    def asked(d: Dimension) -> bool:
        return all(w in words or w + "s" in words for w in d.name.split())

    # A grouping where every result is alone (versions, arXiv ids), or all share one value, says nothing
    # about the results — unless the request asked for it by name: "by venue" over 20 arXiv papers is
    # answered by one slice, truthfully, not by a different grouping.
    dims = [d for d in dims if asked(d) or (d.distinct >= 2 and d.repeated >= 2 and not _versions(d, items))]
    dims = [d for d in dims if d.covered]
    dims.sort(key=lambda d: (not asked(d), -d.repeated, d.distinct, d.name))
    month = _dimension("month", _month, items, ordered=True)
    return Facts(hits=tuple(hits), items=tuple(items), dimensions=tuple(dims), month=month if month.covered else None,
                 numeric=tuple(numeric), specs=specs, month_asked=bool(words & {"month", "months", "monthly"}),
                 dimension_asked=bool(dims) and asked(dims[0]))


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
