"""The terminal form of every drawable chart kind, on charts normalize drew from real demo records."""

from __future__ import annotations

import re

import pytest

from groundsearch.answer.charts import DRAWABLE
from groundsearch.answer.normalize import normalize
from groundsearch.interfaces.chart_text import chart_lines, unsupported_line
from groundsearch.types import ChartResult, Intent
from tests.answer.demo_hits import DEMO_SPECS, demo_hits
from tests.answer.test_normalize_charts import BENCH, RUNS

PAPERS = demo_hits("papers")[:40]
MIXED = demo_hits("papers", "releases")[:30]
RELEASES = demo_hits("releases")[:40]


def drawn(subtype: str, hits=PAPERS, specs=DEMO_SPECS) -> ChartResult:
    out = normalize(Intent(format="chart", chart_subtype=subtype), hits, specs)  # type: ignore[arg-type]
    [c] = [r for r in out if r.kind == "chart"]
    assert c.subtype == subtype
    return c


@pytest.mark.parametrize("subtype", ["pie", "donut", "treemap"])
def test_shares_print_count_and_percent_per_slice(subtype: str) -> None:
    c = drawn(subtype)
    lines = chart_lines(c)
    total = sum(p.value for p in c.points)
    for p in c.points:
        line = next(line for line in lines if line.strip().startswith(p.label[:20]))
        assert f" {p.value:.0f} ({100 * p.value / total:.0f}%)" in line
    assert lines[-1] == c.source


def test_counts_over_time_collapse_long_empty_stretches() -> None:
    c = drawn("line", MIXED)
    text = "\n".join(chart_lines(c))
    assert re.search(r"\d{4}-\d{2}…\d{4}-\d{2} · 0 each \(\d+\)", text)
    for p in c.points:
        if p.value:
            assert re.search(rf"{p.label} █+ {p.value:.0f}$", text, re.M)


def test_stacked_bar_has_a_total_per_bar_and_a_legend() -> None:
    c = drawn("stacked-bar")
    lines = chart_lines(c)
    for x in dict.fromkeys(p.label for p in c.points):
        total = sum(p.value for p in c.points if p.label == x)
        assert any(line.strip().startswith(x) and line.endswith(f" {total:.0f}") for line in lines)
    legend = lines[-2]
    assert all(s in legend for s in {p.series for p in c.points})


def test_heatmap_is_a_grid_with_one_row_per_series_and_the_counts_in_cells() -> None:
    c = drawn("heatmap", MIXED)
    lines = chart_lines(c)
    rows = {p.series for p in c.points}
    grid = [line for line in lines[2:-2]]
    assert {line.split()[0] for line in grid} == rows
    columns = lines[1].split()[1:]
    assert len(columns) == len({p.label for p in c.points})
    for line in grid:
        assert len(line.split()) - 1 == len(columns)  # a cell (or ·) under every column
    assert sum(int(n) for line in grid for n in re.findall(r"\d+", line.split(None, 1)[1])) == sum(
        p.value for p in c.points)


def test_histogram_box_scatter_tornado_and_sunburst_forms() -> None:
    h = chart_lines(drawn("histogram", RELEASES))
    assert all(re.match(r"\s*[\d,]+–[\d,]+ ", line) for line in h[1:-1])
    box = chart_lines(drawn("box", RELEASES))
    assert all("median" in line for line in box[1:-2])
    s = chart_lines(drawn("scatter", RUNS, {"bench": BENCH}))
    assert sum(line.count("•") + line.count("◆") for line in s) == len(RUNS)
    t = chart_lines(drawn("tornado", RUNS, {"bench": BENCH}))
    assert t[2].index("█") < t[2].index("│"), "a negative effect is drawn left of the axis"
    sb = chart_lines(drawn("sunburst"))
    assert any(line.startswith("arXiv") for line in sb)


def test_every_drawable_kind_has_a_text_form() -> None:
    bench = (RUNS, {"bench": BENCH})
    hits = {"scatter": bench, "bubble": bench, "tornado": bench, "box": (RELEASES, DEMO_SPECS),
            "histogram": (RELEASES, DEMO_SPECS)}
    for kind in sorted(DRAWABLE):
        h, specs = hits.get(kind, (MIXED, DEMO_SPECS))
        lines = chart_lines(drawn(kind, h, specs))
        assert len(lines) >= 3 and lines[0].endswith(f"({kind})")


def test_downgrade_line_names_the_asked_kind_and_what_is_shown() -> None:
    notice, _ = normalize(Intent(format="chart", chart_subtype="sankey", chart_requested="diagrama de Sankey"),
                          PAPERS, DEMO_SPECS)
    line = unsupported_line(notice)
    assert line.startswith("Can't show this as diagrama de Sankey: a Sankey diagram needs flows")
    assert line.endswith("Showing a heatmap chart instead.")
