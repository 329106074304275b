"""The rule of combination chosen in session 7: a classifier that disagrees with a sure tier 1 decides from the
probability at which its own measured accuracy beats tier 1's measured precision in that case; from session 10, in
a sure case whose own measured precision is below 0.95, from 0.5 (tier 1 defers)."""

from __future__ import annotations

import numpy as np

from groundsearch.evaluation.format_training import beats_overrides, decide_blind
from groundsearch.query.intent.format_model import FORMATS


def _reading(evidence: str, fmt: str, gold: str, top: str, p_top: float) -> dict:
    p = np.array([p_top if f == top else (1 - p_top) / (len(FORMATS) - 1) for f in FORMATS])
    return {"query": "papers per venue", "format": fmt, "subtype": None, "evidence": evidence, "sure": True,
            "candidates": [], "gold": gold, "p": p, "framed": False, "holds": False, "asks": False,
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


def test_a_sure_case_whose_own_record_is_below_095_defers_to_the_classifiers_first_reading_bin() -> None:
    from groundsearch.evaluation.format_training import DEFER_FLOOR, deferring_overrides

    record = [{**r, "split": "b"} for r in _classifier_record() + _case("used", 94, 6) + _case("refused", 200, 0)]
    new = {**_reading("used", "table", "default", "default", 0.6), "split": "a"}  # the split left out
    beats = beats_overrides([r for r in record if r["split"] != "a"])
    # "used" 0.936 precise: only the classifier's top bin (0.951) beats it, so "beats" asks for 0.95
    assert beats == {"used": 0.95}
    assert decide_blind(new, beats, abstain_unread=False)[::2] == ("table", "rules")
    # its stated confidence (0.936, measured without "a") is below 0.95: a disagreeing classifier decides from 0.5
    defer = deferring_overrides(record + [new], "a")
    assert defer == {"used": DEFER_FLOOR} and DEFER_FLOOR == 0.5
    assert decide_blind(new, defer, abstain_unread=False)[::2] == ("default", "classifier")
    # below one half the classifier's top choice is not a reading: tier 1 stands
    faint = {**_reading("used", "table", "default", "default", 0.45), "split": "a"}
    assert decide_blind(faint, defer, abstain_unread=False)[::2] == ("table", "rules")
