"""Trending topics: which entities are mentioned more in the latest window than in their own past. Pure.

Input is what the store holds and nothing else: ``(entity, item id, date)`` once per dated item mentioning the
entity (``Store.dated_mentions``), and each item's source (who published it). Every number a topic carries —
the window's item count, each baseline window's count, the sources — is a count of those rows, so a caller can
recompute it from the store (tests/curation/test_trending.py does).

The burst statistic is a Poisson z-score of the latest window against the mean of the ``BASELINE_WINDOWS``
windows of the same length before it: ``(recent − mean) / sqrt(mean + 1)``. Why this and not Kleinberg's
automaton: with a handful of windows per topic there is nothing for a state machine to fit, and a z-score is
one line a curator can check by hand. The ``+ 1`` keeps a topic new in this window from scoring infinity.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from ..errors import InvalidInput
from ..types import TableResult

__all__ = [
    "BASELINE_WINDOWS", "asks_for_trending", "trending_table", "MIN_VERIFIED_ITEMS", "MIN_VERIFIED_SOURCES", "TrendMode", "TrendTopic", "Trending",
    "Window", "burst_score", "quality_tier", "trending", "windows",
]

TrendMode = Literal["default", "temporal", "thematic"]
Tier = Literal["VERIFIED", "EMERGING", "SPECULATIVE"]

BASELINE_WINDOWS = 4
# VERIFIED: enough items from enough independent sources that one publisher cannot make a trend alone.
MIN_VERIFIED_ITEMS = 5
MIN_VERIFIED_SOURCES = 3
RELATED_PER_TOPIC = 3


@dataclass(frozen=True, slots=True)
class Window:
    start: dt.date
    end: dt.date  # inclusive

    def holds(self, day: dt.date) -> bool:
        return self.start <= day <= self.end


@dataclass(frozen=True, slots=True)
class TrendTopic:
    topic: str
    items: int  # distinct items mentioning it in the latest window
    sources: int  # distinct sources among those items
    baseline: tuple[int, ...]  # items per baseline window, oldest first
    baseline_mean: float
    score: float  # the burst z-score
    tier: Tier
    item_ids: tuple[str, ...]  # the latest window's items (the evidence)
    related: tuple[tuple[str, int], ...] = ()  # thematic: topics sharing the most of those items, with the count


@dataclass(frozen=True, slots=True)
class Trending:
    mode: TrendMode
    window: Window
    baseline_windows: tuple[Window, ...]  # oldest first
    topics: tuple[TrendTopic, ...]
    items_considered: int  # dated items in the whole span


def burst_score(recent: int, baseline: Iterable[int]) -> float:
    counts = list(baseline)
    mean = sum(counts) / len(counts) if counts else 0.0
    return (recent - mean) / math.sqrt(mean + 1.0)


def quality_tier(items: int, sources: int) -> Tier:
    """VERIFIED: ≥ 5 items from ≥ 3 sources; SPECULATIVE: a single source (or a single item); else EMERGING."""
    if items >= MIN_VERIFIED_ITEMS and sources >= MIN_VERIFIED_SOURCES:
        return "VERIFIED"
    if sources <= 1 or items <= 1:
        return "SPECULATIVE"
    return "EMERGING"


def windows(as_of: dt.date, horizon_days: int) -> tuple[Window, tuple[Window, ...]]:
    """The latest window (ending ``as_of``) and the baseline windows of the same length before it."""
    reach = (BASELINE_WINDOWS + 1) * horizon_days
    if (as_of - dt.date.min).days < reach:
        raise InvalidInput(f"as_of {as_of.isoformat()} leaves no room for {BASELINE_WINDOWS} baseline windows of "
                           f"{horizon_days} days before it", details={"field": "as_of"})

    def nth(k: int) -> Window:
        end = as_of - dt.timedelta(days=k * horizon_days)
        return Window(end - dt.timedelta(days=horizon_days - 1), end)

    return nth(0), tuple(nth(k) for k in range(BASELINE_WINDOWS, 0, -1))


def trending(
    mentions: Iterable[tuple[str, str, dt.date]],
    sources: Mapping[str, str],
    *,
    as_of: dt.date,
    horizon_days: int,
    mode: TrendMode = "default",
    limit: int = 10,
) -> Trending:
    """Topics of ``mentions`` ranked for ``mode``.

    ``default``: rising topics (more items in the window than their baseline mean), by burst score.
    ``temporal``: the same topics, by momentum — the window's count minus the window just before it — for
    "what is picking up right now". ``thematic``: every topic of the window by its item count, rising or not,
    each with the topics it shares most items with (its theme).
    """
    window, baseline = windows(as_of, horizon_days)
    span = Window(baseline[0].start, window.end)
    recent: dict[str, set[str]] = defaultdict(set)
    past: dict[str, Counter[int]] = defaultdict(Counter)
    considered: set[str] = set()
    for entity, item_id, day in mentions:
        if not span.holds(day):
            continue
        considered.add(item_id)
        if window.holds(day):
            recent[entity].add(item_id)
            continue
        for k, w in enumerate(baseline):
            if w.holds(day):
                past[entity][k] += 1
                break

    topics = []
    for entity, items in recent.items():
        counts = tuple(past[entity][k] for k in range(len(baseline)))
        mean = sum(counts) / len(counts)
        n_sources = len({sources.get(i, i) for i in items})
        topics.append(TrendTopic(
            topic=entity, items=len(items), sources=n_sources, baseline=counts, baseline_mean=round(mean, 3),
            score=round(burst_score(len(items), counts), 3), tier=quality_tier(len(items), n_sources),
            item_ids=tuple(sorted(items)),
        ))
    if mode == "thematic":
        ranked = sorted(topics, key=lambda t: (-t.items, -t.sources, t.topic))[:limit]
        ranked = [_with_related(t, recent) for t in ranked]
    else:
        rising = [t for t in topics if t.items > t.baseline_mean]
        if mode == "temporal":
            ranked = sorted(rising, key=lambda t: (-(t.items - t.baseline[-1]), -t.score, t.topic))[:limit]
        else:
            ranked = sorted(rising, key=lambda t: (-t.score, -t.items, t.topic))[:limit]
    return Trending(mode, window, baseline, tuple(ranked), len(considered))


def _with_related(topic: TrendTopic, recent: Mapping[str, set[str]]) -> TrendTopic:
    own = set(topic.item_ids)
    shared = [(other, len(own & items)) for other, items in recent.items() if other != topic.topic]
    best = sorted((p for p in shared if p[1] > 0), key=lambda p: (-p[1], p[0]))[:RELATED_PER_TOPIC]
    return dataclasses.replace(topic, related=tuple(best))


# "what's trending", "trending topics", "hot topics", "what is rising": a request *about* trends in the corpus.
_ASKS = re.compile(r"\b(trending|what'?s hot|(hot|rising|popular) (topics|subjects|themes)|top trends)\b", re.I)


def asks_for_trending(query: str) -> bool:
    """Whether a search asks what is trending (then the answer carries the trending table beside its results)."""
    return bool(_ASKS.search(query))


def trending_table(result: Trending) -> TableResult:
    """The trending topics as a table result: every cell is a count of stored items (see the module doc)."""
    w = result.window
    rows = tuple((t.topic, t.tier, t.items, t.sources, "/".join(map(str, t.baseline)), t.score,
                  ", ".join(t.item_ids[:3]) + (" …" if len(t.item_ids) > 3 else "")) for t in result.topics)
    return TableResult(
        title=f"Trending topics, {w.start.isoformat()} – {w.end.isoformat()} against the "
              f"{len(result.baseline_windows)} windows before",
        collection="trending",
        columns=("Topic", "Tier", "Items in window", "Sources", "Items per earlier window", "Burst score", "Items"),
        rows=rows,
        row_ids=(),  # rows are topics, not evidence hits; the Items column names the stored items behind each
    )
