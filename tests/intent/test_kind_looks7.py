"""Chart kinds described by their look (session 7), on sentences written for this file: a bar that starts where
the one before it ended is a waterfall (said in the past tense too, and before the Gantt rule, whose bars also
start and end); bands or bars shrinking one after another, widest first, are a funnel; a bar per item running
to its last date is a Gantt bar; "stacked" in languages outside the nine; and "narrow bars" are thin bars."""

from __future__ import annotations

import pytest

from groundsearch.query.intent.directives import read_directive


@pytest.mark.parametrize(
    ("query", "kind"),
    [
        ("columns where each one begins where the previous one ended, from the first count to the total",
         "waterfall"),
        ("a chart of bars, every bar starting where the last one stopped", "waterfall"),
        ("one bar per venue showing how the paper count builds up to the total", "waterfall"),
        ("layers that shrink as you go down, widest at the top: searched, read, cited", "funnel"),
        ("show the stages as bands, each one narrower than the one above", "funnel"),
        ("a horizontal bar for every package, from its first release to its last", "gantt"),
        ("un grafic cu bare stivuite pentru lucrările pe an", "stacked-bar"),  # Romanian
        ("skládaný sloupcový graf vydání podle produktu", "stacked-bar"),  # Czech
    ],
)
def test_a_described_look_names_its_kind(query: str, kind: str) -> None:
    d = read_directive(query)
    assert (d.format, d.chart_subtype) == ("chart", kind), d


def test_narrow_bars_are_thin_bars_not_a_funnel() -> None:
    assert read_directive("narrow bars for each venue please").chart_subtype != "funnel"
    assert read_directive("a chart narrowing stage by stage from visits to sign-ups").chart_subtype == "funnel"
