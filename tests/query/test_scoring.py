from __future__ import annotations

import datetime as dt

import pytest

from groundsearch.query.scoring import Signals, recency, term_overlap, weighted_score
from groundsearch.settings import WeightedProfile

TODAY = dt.date(2026, 11, 29)


def test_recency_is_linear_and_bounded() -> None:
    assert recency(None, TODAY, 365) == 0.0
    assert recency(TODAY, TODAY, 365) == 1.0
    assert recency(TODAY + dt.timedelta(days=3), TODAY, 365) == 1.0
    assert recency(TODAY - dt.timedelta(days=73), TODAY, 365) == pytest.approx(0.8)
    assert recency(TODAY - dt.timedelta(days=500), TODAY, 365) == 0.0


def test_term_overlap() -> None:
    assert term_overlap(frozenset(), ["a"]) == 0.0
    assert term_overlap(frozenset({"a", "b"}), ["a", "c", "a"]) == 0.5


def test_weighted_score_uses_the_documented_default_weights() -> None:
    p = WeightedProfile()
    assert (p.cosine, p.title_match, p.keyword_field_match, p.recency) == (0.70, 0.15, 0.10, 0.05)
    s = Signals(cosine=0.5, title_match=1.0, keyword_field_match=0.5, recency=0.2)
    assert weighted_score(s, p) == pytest.approx(0.7 * 0.5 + 0.15 + 0.10 * 0.5 + 0.05 * 0.2)
