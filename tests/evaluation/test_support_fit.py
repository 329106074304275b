"""The support model's fitting code on hand-made pages: the fit, the cross-validated threshold, the outcomes."""

from __future__ import annotations

import numpy as np

from groundsearch.evaluation.support_fit import Page, cross_validated_threshold, fit, out_of_fold, outcomes


def _pages() -> list[Page]:
    rows = []
    for i in range(30):  # answerable pages: most results agree on the value, few rivals
        rows.append(Page(f"q{i}", 1, "X", (0.5 + (i % 3) * 0.25, 0.6 + (i % 5) * 0.08, 0.7 + (i % 4) * 0.1), False))
        # negatives-only pages: one result mentions a name, rivals everywhere
        rows.append(Page(f"q{i}", 0, "Y", ((i % 3) * 0.25, 0.2 + (i % 4) * 0.1, (i % 5) * 0.15), False))
    rows.append(Page("gate", 1, "", None, True))  # stopped before the model: abstains whatever the weights
    rows.append(Page("label", 0, "Z", (0.0, 0.2, 0.0), False, labelled=True))
    return rows


def test_the_fit_weighs_each_feature_the_way_answerable_pages_differ() -> None:
    w = fit(_pages())
    assert w[0] < 0 and all(v > 0 for v in w[1:])
    assert np.allclose(fit(_pages()), w)  # convex, Newton from zero: the same weights every time
    # a stronger penalty shrinks the weights
    assert np.abs(fit(_pages(), l2=5.0)[1:]).sum() < np.abs(w[1:]).sum()


def test_outcomes_count_the_pages_the_model_never_decides() -> None:
    rows = _pages()
    probs = {i: 1.0 for i, p in enumerate(rows) if p.features is not None}  # the model states everything
    abst, false = outcomes(rows, probs, 0.5)
    assert false == 1 / 31  # the gate's page still abstains
    assert abst == 0.0  # ... and the labelled negatives-only page is stated
    probs = {i: 0.0 for i in probs}
    abst, false = outcomes(rows, probs, 0.5)
    assert false == 1.0 and abst == 30 / 31  # the labelled page is stated whatever the model says


def test_the_threshold_is_the_highest_within_the_false_abstention_budget_out_of_fold() -> None:
    rows = _pages()
    runs = out_of_fold(rows, repeats=3)
    assert all(len(probs) == sum(p.features is not None for p in rows) for probs in runs)
    t, abst, false = cross_validated_threshold(rows, runs, budget=0.10)
    assert false <= 0.10 and abst > 0.9
    higher = [v for probs in runs for v in probs.values() if v > t + 0.01]
    t2, _, false2 = cross_validated_threshold(rows, runs, budget=0.5)
    assert t2 >= t and false2 >= false and higher
