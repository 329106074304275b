"""The named weighted scoring profile: a linear blend of signals users can choose instead of RRF."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..settings import WeightedProfile
from ..store.text import analyze
from ..types import CollectionSpec, Item

__all__ = ["Signals", "feedback_boost", "recency", "term_overlap", "weighted_score"]


@dataclass(frozen=True, slots=True)
class Signals:
    cosine: float
    title_match: float
    keyword_field_match: float
    recency: float


def term_overlap(query_terms: frozenset[str], text_terms: Iterable[str]) -> float:
    """Share of the query's distinct terms present in ``text_terms`` (0..1); 0 for an empty query."""
    if not query_terms:
        return 0.0
    return len(query_terms & set(text_terms)) / len(query_terms)


def recency(date: dt.date | None, today: dt.date, window_days: int) -> float:
    """1 for today, falling linearly to 0 at ``window_days`` old; undated and future-dated items get 0 and 1.

    Linear rather than exponential decay so the boost is bounded and easy to reason about: it can
    reorder near-ties but never lift an item past one with clearly better content signals.
    """
    if date is None:
        return 0.0
    age = (today - date).days
    if age <= 0:
        return 1.0
    return max(0.0, 1.0 - age / window_days)


def keyword_field_terms(item: Item, spec: CollectionSpec | None) -> list[str]:
    if spec is None:
        return []
    terms: list[str] = []
    for field in spec.fields:
        if field.type not in ("keyword", "list"):
            continue
        value = item.fields.get(field.name)
        if value is None:
            continue
        values = value if isinstance(value, (list, tuple)) else (value,)
        for v in values:
            terms.extend(analyze(str(v)))
    return terms


def signals(
    query_terms: frozenset[str],
    item: Item,
    cosine: float,
    spec: CollectionSpec | None,
    today: dt.date,
    profile: WeightedProfile,
) -> Signals:
    return Signals(
        cosine=max(0.0, cosine),
        title_match=term_overlap(query_terms, analyze(item.title)),
        keyword_field_match=term_overlap(query_terms, keyword_field_terms(item, spec)),
        recency=recency(item.date, today, profile.recency_window_days),
    )


def weighted_score(s: Signals, profile: WeightedProfile) -> float:
    """``0.70·cosine + 0.15·title match + 0.10·keyword-field match + 0.05·recency`` with the default weights."""
    return (
        profile.cosine * s.cosine
        + profile.title_match * s.title_match
        + profile.keyword_field_match * s.keyword_field_match
        + profile.recency * s.recency
    )


def feedback_boost(useful: int, marks: int, profile: WeightedProfile) -> float:
    """``1 + feedback × win rate`` (default ×1.00…×1.03) once an item has ``feedback_min_marks`` marks, else 1.

    Multiplicative and capped, so feedback can only reorder items whose content scores are already within
    ``feedback`` (3 %) of each other; the win rate is never below 0, so an unmarked or disliked item never
    loses ground — a "not useful" mark only withholds the lift. Two marks at least: one click is not evidence.
    """
    if marks < profile.feedback_min_marks or marks <= 0:
        return 1.0
    return 1.0 + profile.feedback * min(1.0, max(0.0, useful / marks))


def specs_by_name(specs: Iterable[CollectionSpec]) -> Mapping[str, CollectionSpec]:
    return {s.name: s for s in specs}
