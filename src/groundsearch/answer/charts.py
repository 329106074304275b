"""Chart kinds drawn from stored fields, and an open downgrade for every kind the data can't carry. Pure.

Each drawer returns a chart or the reason it can't be drawn from *these* results (a reason is computed from
the fields present, never a canned excuse). :func:`chart_results` walks the asked kind's substitutes until
one draws, and whenever the drawn kind differs from the asked one it says so with an ``unsupported-format``
result naming the kind as asked — a request for a chart kind is never silently swapped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from ..query.intent.kinds import named
from ..types import (
    ChartPoint,
    ChartResult,
    CollectionSpec,
    EvidenceHit,
    Intent,
    TimelineEvent,
    TimelineResult,
    UnsupportedFormatResult,
)
from .facts import MAX_GROUPS, OTHER, Dimension, Facts, display_name, gather, groups, theme_counts, unique_items

__all__ = ["DRAWABLE", "asked_name", "chart_results", "headline", "nothing_matched", "timeline"]

MAX_POINTS = 12  # bars / ranked items: past this a chart stops being readable; the rest stay in the results list
MAX_BINS = 12
MAX_SCATTER = 200
GEO_FIELDS = frozenset({"country", "country_code", "region", "state", "iso", "iso2", "iso3", "location", "city",
                        "lat", "latitude", "lon", "lng", "longitude"})

Drawn = ChartResult | TimelineResult
Outcome = Drawn | str  # a str: why these results can't be drawn as that kind


def timeline(hits: Sequence[EvidenceHit], title: str) -> TimelineResult:
    dated = sorted((h for h in unique_items(hits) if h.item.date is not None),
                   key=lambda h: (h.item.date, h.id))  # type: ignore[arg-type, return-value]
    return TimelineResult(title=title, events=tuple(
        TimelineEvent(date=h.item.date, label=h.item.title, source_id=h.id) for h in dated))  # type: ignore[arg-type]


def _chart(subtype: str, title: str, x: str, y: str, points: Sequence[ChartPoint], source: str,
           series: str | None = None) -> ChartResult:
    return ChartResult(title=title, subtype=subtype, x_label=x, y_label=y, points=tuple(points),  # type: ignore[arg-type]
                       source=source, series_label=series)


def _of(f: Facts) -> str:
    return f"the top {len(f.items)} results"


def _months_between(first: str, last: str) -> list[str]:
    """Every month from ``first`` to ``last`` ("YYYY-MM"): a count series over time must show its empty
    months, or a line would draw a trend through months that had none."""
    y, m = int(first[:4]), int(first[5:])
    out = []
    while f"{y:04d}-{m:02d}" <= last:
        out.append(f"{y:04d}-{m:02d}")
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    return out


def _per_month(f: Facts, fill: bool) -> list[ChartPoint]:
    by = dict(groups(f.items, f.month.key, ordered=True, limit=10**6)) if f.month else {}
    months = _months_between(min(by), max(by)) if fill and by else sorted(by)
    return [ChartPoint(label=m, value=float(len(by.get(m, ()))), source_ids=tuple(by.get(m, ()))) for m in months]


def _counted(parts: Sequence[tuple[str, Sequence[str]]]) -> list[ChartPoint]:
    """One point per group of :func:`.facts.groups`: its value, the number of results it names, and those ids."""
    return [ChartPoint(label=v, value=float(len(ids)), source_ids=tuple(ids)) for v, ids in parts]


# ---- drawers: facts → chart, or the reason these results can't be drawn as it ----------------------------


def _named_grouping(f: Facts) -> bool:
    """The request named a stored field ("by registry") and not the month, and the field groups the results (two or
    more share a value): that field is the axis. "product releases" names the product without grouping by it;
    ten products of one release each would say nothing the results list does not, so months are counted then."""
    return f.dimension_asked and not f.month_asked and f.dimensions[0].repeated >= 2


def _bar(f: Facts, about: str) -> Outcome:
    if f.month is not None and not _named_grouping(f):
        return _chart("bar", f"Results per month{about}", "month", "results", _per_month(f, fill=False),
                      f"stored dates of {_of(f)} ({f.dated} dated), counted per month")
    dim = f.dimensions[0] if f.dimensions else None
    key = dim.key if dim else (lambda h: h.item.collection)
    name = dim.name if dim else "collection"
    points = _counted(groups(f.items, key))
    return _chart("bar", f"Results by {name}{about}", name, "results", points,
                  f"stored {name} of {_of(f)}, counted per value")


def _ranked_bar(f: Facts, about: str) -> Outcome:
    if _named_grouping(f):  # "top products", a tornado "per registry" shown ranked: that field's values, not themes
        dim = f.dimensions[0]
        points = _counted(groups(f.items, dim.key, limit=MAX_POINTS))
        return _chart("ranked-bar", f"Results by {dim.name}{about}", dim.name, "results", points,
                      f"stored {dim.name} of {_of(f)}, counted per value, largest first")
    hits = f.hits
    ranked = [(e, ids) for e, ids in theme_counts(hits, f.specs) if len(ids) >= 2][:MAX_POINTS]
    if not ranked:
        return "no theme (an entity stored at ingest) is mentioned by two or more of the results"
    by_id = {h.id: h for h in hits}
    # spelled as in the results that mention it: scanning every result for a theme cost ~40 ms at 100 hits
    points = [ChartPoint(label=display_name(e, [by_id[i] for i in ids]), value=float(len(ids)), source_ids=tuple(ids))
              for e, ids in ranked]
    return _chart("ranked-bar", f"Theme frequency{about}", "theme", "results mentioning it", points,
                  f"entities stored for the top {len({h.id for h in hits})} results, counted once per result "
                  f"(a result's own product/author/venue names excluded; themes seen at least twice)")


def _over_time(subtype: str) -> Callable[[Facts, str], Outcome]:
    def draw(f: Facts, about: str) -> Outcome:
        if f.month is None:
            return "none of the results has a stored date, so there is no time axis"
        if f.month.distinct < 2:
            return f"all {f.dated} dated results fall in one month, so there is no change over time to draw"
        return _chart(subtype, f"Results per month{about}", "month", "results", _per_month(f, fill=True),
                      f"stored dates of {_of(f)} ({f.dated} dated), counted per month (months with none shown as 0)")
    return draw


def _share(subtype: str) -> Callable[[Facts, str], Outcome]:
    def draw(f: Facts, about: str) -> Outcome:
        by_month = f.month if f.month and (f.month_asked or f.month.distinct >= 2) else None
        dim = by_month if f.month_asked and by_month else f.dimensions[0] if f.dimensions else by_month
        if dim is None:
            return ("a share needs results grouped by a stored value (a keyword field such as product or venue, "
                    "or a month), and no such value is shared by two or more of the results")
        points = _counted(groups(f.items, dim.key, ordered=dim.ordered))
        return _chart(subtype, f"Share by {dim.name}{about}", dim.name, "results", points,
                      f"stored {dim.name} of {dim.covered} of {_of(f)}, counted per value (at most {MAX_GROUPS} "
                      f"groups; smaller ones merged into 'other')")
    return draw


def _two_dimensions(f: Facts) -> tuple[Dimension, Dimension] | None:
    """(x / columns, series / rows): time across when the results span months, else the two best groupings."""
    if f.month is not None and f.month.distinct >= 2 and f.dimensions:
        return f.month, f.dimensions[0]
    if len(f.dimensions) >= 2:
        return f.dimensions[0], f.dimensions[1]
    return None


def _cross(f: Facts, xd: Dimension, yd: Dimension) -> list[ChartPoint]:
    """Counts per (x, series) pair with their ids; each side capped like a single grouping."""
    label_of: list[dict[str, str]] = []
    for d in (xd, yd):
        lab = {}
        for value, ids in groups(f.items, d.key, ordered=d.ordered, limit=10**6 if d.ordered else MAX_GROUPS):
            lab.update({i: value for i in ids})
        label_of.append(lab)
    cells: dict[tuple[str, str], list[str]] = {}
    for hit in f.items:
        if hit.id in label_of[0] and hit.id in label_of[1]:
            cells.setdefault((label_of[0][hit.id], label_of[1][hit.id]), []).append(hit.id)
    return [ChartPoint(label=x, series=s, value=float(len(ids)), source_ids=tuple(ids))
            for (x, s), ids in sorted(cells.items())]


def _crossed(subtype: str, what: str) -> Callable[[Facts, str], Outcome]:
    def draw(f: Facts, about: str) -> Outcome:
        dims = _two_dimensions(f)
        if dims is None:
            have = ", ".join(d.name for d in f.dimensions) or "none"
            return (f"{what} needs two ways to group the results (e.g. month × venue, or two keyword fields), and "
                    f"these results offer {'one' if f.dimensions or f.month else 'none'} (groupings: {have}"
                    f"{'; months: ' + str(f.month.distinct) if f.month else ''})")
        xd, yd = dims
        points = _cross(f, xd, yd)
        n = int(sum(p.value for p in points))
        return _chart(subtype, f"Results by {xd.name} and {yd.name}{about}", xd.name, "results", points,
                      f"stored {xd.name} × {yd.name} of {n} of {_of(f)}, counted per pair", series=yd.name)
    return draw


def _histogram(f: Facts, about: str) -> Outcome:
    field = next((n for n in f.numeric if len(n.values) >= 2), None)
    if field is not None:
        values = np.array([v for _, v in field.values])
        edges = np.histogram_bin_edges(values, bins="auto")
        if len(edges) - 1 > MAX_BINS:
            edges = np.histogram_bin_edges(values, bins=MAX_BINS)
        slot = np.clip(np.searchsorted(edges, values, side="right") - 1, 0, len(edges) - 2)
        points = []
        fmt = "{:,.0f}" if edges[-1] - edges[0] >= 100 else "{:.3g}"
        for b in range(len(edges) - 1):
            ids = tuple(h.id for (h, _), s in zip(field.values, slot, strict=True) if s == b)
            lo, hi = float(edges[b]), float(edges[b + 1])
            points.append(ChartPoint(label=f"{fmt.format(lo)}–{fmt.format(hi)}", value=float(len(ids)),
                                     source_ids=ids, x=lo, x_end=hi))
        return _chart("histogram", f"Distribution of {field.name.replace('_', ' ')}{about}",
                      field.name.replace("_", " "), "results", points,
                      f"stored {field.name} of {len(field.values)} {field.collection} among {_of(f)}, in "
                      f"{len(points)} equal-width bins (numpy 'auto' rule)")
    if f.month is not None and f.month.distinct >= 2:
        return _chart("histogram", f"Distribution of dates{about}", "month", "results", _per_month(f, fill=True),
                      f"stored dates of {_of(f)} ({f.dated} dated), one bin per month")
    return ("a histogram needs a numeric field or dates spread over two or more months, and these results have "
            "neither")


def _numeric_names(f: Facts) -> str:
    return ", ".join(f"{n.collection}.{n.name}, stored on {len(n.values)}" for n in f.numeric) or "none"


def _scatter(f: Facts, about: str) -> Outcome:
    pairs = f.numeric_pairs()
    if not pairs:
        return (f"a scatter plot needs two numeric fields stored on the same results, and these results have "
                f"{len(f.numeric)} ({_numeric_names(f)})")
    a, b, both = pairs[0]
    points = [ChartPoint(label=h.item.title, x=x, value=y, source_ids=(h.id,)) for h, x, y in both[:MAX_SCATTER]]
    return _chart("scatter", f"{b.name} against {a.name}{about}", a.name, b.name, points,
                  f"stored {a.name} and {b.name} of {len(points)} {a.collection} among {_of(f)}, one dot per result")


def _bubble(f: Facts, about: str) -> Outcome:
    for a, b, both in f.numeric_pairs():
        for c in f.numeric:
            if c.collection != a.collection or c.name in (a.name, b.name):
                continue
            size = {h.id: v for h, v in c.values}
            rows = [(h, x, y, size[h.id]) for h, x, y in both if h.id in size]
            if len(rows) >= 2:
                points = [ChartPoint(label=h.item.title, x=x, value=y, size=s, source_ids=(h.id,))
                          for h, x, y, s in rows[:MAX_SCATTER]]
                return _chart("bubble", f"{b.name} against {a.name}, sized by {c.name}{about}", a.name, b.name,
                              points, f"stored {a.name}, {b.name} and {c.name} of {len(points)} {a.collection}",
                              series=c.name)
    return (f"a bubble chart needs three numeric fields stored on the same results, and these results have "
            f"{len(f.numeric)} ({_numeric_names(f)})")


def _box(f: Facts, about: str) -> Outcome:
    field = next((n for n in f.numeric if len(n.values) >= 3), None)
    if field is None:
        return (f"a box plot needs a numeric field with three or more stored values, and these results have "
                f"{_numeric_names(f)}")
    hits = [h for h, _ in field.values]
    dim = next((d for d in (*f.dimensions, f.month) if d is not None
                and sum(d.key(h) is not None for h in hits) == len(hits) and len({d.key(h) for h in hits}) >= 2), None)
    label = {i: v for v, ids in groups(hits, dim.key, ordered=dim.ordered)
             for i in ids} if dim else {h.id: "all" for h in hits}
    points = [ChartPoint(label=h.item.title, series=label[h.id], value=v, source_ids=(h.id,)) for h, v in field.values]
    return _chart("box", f"{field.name.replace('_', ' ')}{' by ' + dim.name if dim else ''}{about}",
                  dim.name if dim else "", field.name.replace("_", " "), points,
                  f"stored {field.name} of {len(points)} {field.collection} among {_of(f)}, one value per result",
                  series=dim.name if dim else None)


def _tornado(f: Facts, about: str) -> Outcome:
    field = next((n for n in f.numeric if n.signed), None)
    if field is None:
        return ("a tornado diagram needs a signed impact value (positive or negative effect) per factor, and no "
                f"numeric field of these results holds both signs ({_numeric_names(f)})")
    ranked = sorted(field.values, key=lambda hv: (-abs(hv[1]), hv[0].id))[:MAX_POINTS]
    points = [ChartPoint(label=h.item.title, value=v, source_ids=(h.id,)) for h, v in ranked]
    return _chart("tornado", f"{field.name} per result{about}", "result", field.name, points,
                  f"stored signed {field.name} of {len(ranked)} {field.collection}, largest effect first")


def _never(why: Callable[[Facts], str]) -> Callable[[Facts, str], Outcome]:
    return lambda f, about: why(f)


def _gantt_reason(f: Facts) -> str:
    per_collection = [c for c, _ in f.field_types("date")]
    if any(per_collection.count(c) >= 2 for c in per_collection):
        return "Gantt charts of start and end dates are not drawn by this version"
    return ("a Gantt chart needs a start and an end date per item, and the results' collections store one date "
            "each (a release or publication date), so there are no durations")


def _choropleth_reason(f: Facts) -> str:
    if any(name in GEO_FIELDS for _, name in f.field_types("keyword", "text", "float", "int")):
        return "maps are not drawn by this version (no map shapes are bundled)"
    return ("a choropleth map needs a geographic field (a country or region) per result, and none of the results' "
            "collections stores one")


def _venn_reason(f: Facts) -> str:
    return ("a Venn diagram needs results that belong to several named sets at once; each of these results has one "
            "collection and one value per keyword field, so there are no overlaps to count")


REASONS_ONLY: dict[str, Callable[[Facts], str]] = {
    "sankey": lambda f: ("a Sankey diagram needs flows — a source and a target per record (from → to) — and the "
                         "stored fields hold no such pairs"),
    "venn": _venn_reason,
    "choropleth": _choropleth_reason,
    "gantt": _gantt_reason,
    "radar": lambda f: ("a radar chart compares three or more numeric measures per item, and these results store "
                        f"{len(f.numeric)} numeric field(s) ({_numeric_names(f)})"),
    "waterfall": lambda f: ("a waterfall adds up signed changes step by step, and no numeric field of these results "
                            f"holds signed changes ({_numeric_names(f)})"),
    "funnel": lambda f: ("a funnel needs counts at the ordered stages of one process (e.g. visited → signed up → "
                         "paid), and no stored field of these results names such stages"),
    "word-cloud": lambda f: ("word clouds are not drawn (their word layout is not a chart the page's library "
                             "draws); the same theme counts follow as a ranked bar"),
}

DRAWERS: dict[str, Callable[[Facts, str], Outcome]] = {
    "bar": _bar, "ranked-bar": _ranked_bar, "line": _over_time("line"), "area": _over_time("area"),
    "timeline": _over_time("timeline"), "stacked-bar": _crossed("stacked-bar", "a stacked bar chart"),
    "heatmap": _crossed("heatmap", "a heatmap"), "sunburst": _crossed("sunburst", "a sunburst"),
    "pie": _share("pie"), "donut": _share("donut"), "treemap": _share("treemap"), "histogram": _histogram,
    "scatter": _scatter, "bubble": _bubble, "box": _box, "tornado": _tornado,
    **{k: _never(v) for k, v in REASONS_ONLY.items()},
}
DRAWABLE = frozenset(DRAWERS) - frozenset(REASONS_ONLY)

# What stands in for a kind the results can't carry, nearest first; "bar" always draws (it falls back to
# counting results per collection), so every chain ends in a chart.
SUBSTITUTES: dict[str, tuple[str, ...]] = {
    "tornado": ("ranked-bar",), "word-cloud": ("ranked-bar",), "other": ("ranked-bar",),
    "scatter": ("histogram",), "bubble": ("scatter", "histogram"), "box": ("histogram",),
    "sankey": ("heatmap", "stacked-bar"), "sunburst": ("pie",),
    "heatmap": ("stacked-bar",), "stacked-bar": ("heatmap",), "gantt": ("timeline-events",),
    "venn": ("heatmap",), "choropleth": ("pie",), "radar": ("heatmap",), "waterfall": ("line",),
}


def _count_words(n: float) -> str:
    return f"{n:,.0f}" if float(n).is_integer() else f"{n:.3g}"


_SMALL = ("no one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
          "seventeen eighteen nineteen twenty").split()


_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()


def _n(count: int) -> str:
    """A count in words below a hundred: it is a fact about the results, not a string in any one of them,
    so the audit (which looks for a sentence's digits in its cited text) has nothing to match it against."""
    if 0 <= count < len(_SMALL):
        return _SMALL[count]
    if count < 100:
        tens, ones = divmod(count, 10)
        return _TENS[tens - 2] + (f"-{_SMALL[ones]}" if ones else "")
    return f"{count:,}"


def headline(c: ChartResult) -> tuple[str, tuple[str, ...]] | None:
    """One true sentence about a chart and the ids it rests on, for the short paragraph beside it.

    Per kind, because "the largest point" means different things: a stacked bar's largest bar is the sum of
    its segments, a scatter's points are results (not counts), a tornado ranks by size of effect.
    """
    if not c.points:
        return None
    if c.subtype in ("stacked-bar", "heatmap", "sunburst"):
        totals: dict[str, list[str]] = {}
        for p in c.points:
            totals.setdefault(p.label, []).extend(p.source_ids)
        label, ids = max(totals.items(), key=lambda kv: (len(kv[1]), kv[0]))
        return (f"The chart splits {_n(len({i for p in c.points for i in p.source_ids}))} results by {c.x_label} and "
                f"{c.series_label}; the largest {c.x_label} is {label} with {_n(len(ids))}.", tuple(ids[:3]))
    if c.subtype in ("scatter", "bubble"):
        top = max(c.points, key=lambda p: p.value)
        return (f"The chart plots {_n(len(c.points))} results by {c.x_label} and {c.y_label}; the highest {c.y_label} "
                f"is {top.label} ({_count_words(top.value)} at {c.x_label} {_count_words(top.x or 0)}).",
                top.source_ids)
    if c.subtype == "box":
        top = max(c.points, key=lambda p: p.value)
        groups_n = len({p.series for p in c.points})
        return (f"The chart shows the {c.y_label} of {_n(len(c.points))} results in {_n(groups_n)} group(s); the highest is "
                f"{top.label} with {_count_words(top.value)}.", top.source_ids)
    if c.subtype == "tornado":
        top = c.points[0]
        return (f"The largest effect on {c.y_label} is {top.label} ({top.value:+g}).", top.source_ids)
    # the long tail merged into "other (N values)" is several values, never "the largest" one: each of them is
    # no larger than the smallest value shown beside it
    single = [p for p in c.points if not p.label.startswith(f"{OTHER} (")] or list(c.points)
    top = max(single, key=lambda p: p.value)
    if not top.source_ids:
        return None
    n = len({i for p in c.points for i in p.source_ids})
    tied = [p for p in single if p.value == top.value]
    if len(tied) > 1:
        names = ", ".join(p.label for p in tied[:3]) + (f" and {_n(len(tied) - 3)} more" if len(tied) > 3 else "")
        return (f"The chart counts {_n(n)} results by {c.x_label}; {_n(len(tied))} values share the largest count, "
                f"{_n(len(top.source_ids))} each: {names}.", tuple(i for p in tied[:3] for i in p.source_ids[:1]))
    return (f"The chart counts {_n(n)} results by {c.x_label}; the largest is {top.label} with {_n(len(top.source_ids))}.",
            tuple(top.source_ids[:3]))


def _draw(kind: str, f: Facts, hits: Sequence[EvidenceHit], about: str) -> Outcome:
    if kind == "timeline-events":
        tl = timeline(hits, f"Timeline{about}")
        return tl if tl.events else "none of the results has a stored date"
    if kind not in DRAWERS:
        return f"'{kind}' is not a chart kind groundsearch draws from stored fields"
    return DRAWERS[kind](f, about)


def nothing_matched(requested: str, to_do: str) -> UnsupportedFormatResult:
    """What a shape asked of an empty result set gets: its name, and why it is absent (never nothing at all)."""
    return UnsupportedFormatResult(requested=requested, substitute="none",
                                   reason=f"no stored results matched, so there is nothing to {to_do}")


def asked_name(intent: Intent) -> str:
    """The asked shape as a notice names it: the chart kind in the user's words when they gave some."""
    if intent.format != "chart":
        return intent.format
    asked_kind = intent.chart_subtype or ("other" if intent.chart_requested else "ranked-bar")
    return named(intent.chart_subtype, intent.chart_requested) if intent.chart_requested else asked_kind


def chart_results(intent: Intent, hits: Sequence[EvidenceHit], specs: Mapping[str, CollectionSpec],
                  topic: str = "") -> list[Drawn | UnsupportedFormatResult]:
    """The chart asked for by ``intent`` (or its nearest drawable substitute, announced), from ``hits``."""
    asked_kind = intent.chart_subtype or ("other" if intent.chart_requested else "ranked-bar")
    asked = asked_name(intent)
    about = f" — {topic}" if topic else ""
    if not hits:
        return [nothing_matched(asked, "chart")]
    f = gather(hits, specs, (*intent.topic_keywords, *intent.comparison_targets))
    if intent.chart_subtype is None and not intent.chart_requested:
        # "as a chart", no kind named: nothing to downgrade from, so the first default that draws is the answer
        drawn = _draw("ranked-bar", f, hits, about)
        return [drawn if not isinstance(drawn, str) else _draw("bar", f, hits, about)]  # type: ignore[list-item]
    first = _draw(asked_kind, f, hits, about)
    if not isinstance(first, str):
        return [first.model_copy(update={"requested": intent.chart_requested})
                if isinstance(first, ChartResult) else first]
    reason = first if asked_kind != "other" else f"'{asked}' is not a chart kind groundsearch draws from stored fields"
    for kind in (*SUBSTITUTES.get(asked_kind, ()), "bar"):
        drawn = _draw(kind, f, hits, about)
        if not isinstance(drawn, str):
            shown = f"chart:{drawn.subtype}" if isinstance(drawn, ChartResult) else drawn.kind
            return [UnsupportedFormatResult(requested=asked, reason=reason, substitute=shown), drawn]
    raise AssertionError("the bar chart always draws")  # pragma: no cover

