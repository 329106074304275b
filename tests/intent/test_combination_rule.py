"""The rule of combination chosen in session 7: a classifier that disagrees with a sure tier 1 decides from the
probability at which its own measured accuracy beats tier 1's measured precision in that case."""

from __future__ import annotations

import numpy as np

from groundsearch.evaluation.format_training import beats_overrides, decide_blind
from groundsearch.query.intent.format_model import FORMATS


def _reading(evidence: str, fmt: str, gold: str, top: str, p_top: float) -> dict:
    p = np.array([p_top if f == top else (1 - p_top) / (len(FORMATS) - 1) for f in FORMATS])
    return {"query": "papers per venue", "format": fmt, "subtype": None, "evidence": evidence, "sure": True,
            "candidates": [], "gold": gold, "p": p, "framed": False, "contrasted": False, "asks": False,
            "split": "s"}


def _case(evidence: str, right: int, wrong: int) -> list[dict]:
    # tier 1 right on ``right`` readings and wrong on ``wrong``; the classifier unsure (p 0.55) and right
    return ([_reading(evidence, "table", "table", "table", 0.55)] * right
            + [_reading(evidence, "table", "default", "default", 0.55)] * wrong)


def _classifier_record() -> list[dict]:
    # the classifier's record in its bins, where tier 1 was unsure: 0.95+ right 38 of 40 (0.951 smoothed),
    # 0.85-0.95 right 18 of 20 (0.9), 0.7-0.85 right 7 of 10 (0.707)
    rows = ([("default", 0.97)] * 38 + [("chart", 0.97)] * 2 + [("default", 0.9)] * 18 + [("chart", 0.9)] * 2
            + [("default", 0.75)] * 7 + [("chart", 0.75)] * 3)
    return [{**_reading("bare", "default", gold, "default", p), "sure": False} for gold, p in rows]


def test_the_classifier_decides_from_the_bin_whose_record_beats_the_cases_precision() -> None:
    readings = _classifier_record() + _case("used", 85, 15) + _case("refused", 200, 0) + _case("none", 9, 1)
    got = beats_overrides(readings)
    # "used" 0.847 precise: the 0.85-0.95 bin (0.9) and the top bin beat it, the 0.7-0.85 bin (0.707) does not
    # (the lowest bin, where the cases' own 0.55 readings sit all right, is never reached past a bin that fails)
    assert got["used"] == 0.85
    # "refused" 0.998 precise: not even the top bin beats it, tier 1 keeps the case
    assert "refused" not in got
    # "none" 0.864 precise on ten readings: the same bins as "used" beat it
    assert got["none"] == 0.85 and "bare" not in got  # an unsure case is the classifier's already


def test_a_chosen_threshold_lets_a_disagreeing_classifier_decide() -> None:
    overrides = beats_overrides(_classifier_record() + _case("used", 85, 15))
    assert overrides == {"used": 0.85}
    wrong = _reading("used", "chart", "default", "default", 0.9)  # a topic tier 1 took for a wish
    assert decide_blind(wrong, overrides, abstain_unread=False)[::2] == ("default", "classifier")
    unsure = _reading("used", "chart", "chart", "default", 0.75)  # below the case's threshold: tier 1 stands
    assert decide_blind(unsure, overrides, abstain_unread=False)[::2] == ("chart", "rules")


def test_the_gate_tried_in_session_8_calls_only_a_plain_format_word_in_a_plain_wish_plain() -> None:
    from groundsearch.evaluation.format_training import plain_wish

    assert plain_wish("show the SIGIR papers as a table")
    assert plain_wish("make a bar chart of releases per month")
    assert not plain_wish("show the SIGIR papers as a tabble")  # read through a typo
    assert not plain_wish("what is a tornado diagram?")  # a question
    assert not plain_wish("timeline of the langchain releases; scratch that, just tell me the latest version")
    assert not plain_wish("could you take every paper from the reranking section and lay them out in a table")
