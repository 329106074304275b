"""Charts as plain text for a terminal: one readable form per kind, every number printed beside its mark.

Pure (result in, lines out), so the CLI only prints and the forms are testable without a terminal.
Proportional bars for counts and shares, a shaded grid for heatmaps, a dot grid for scatter plots, a
five-number summary for box plots.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

__all__ = ["chart_lines", "unsupported_line"]

WIDTH = 32  # bar cells; keeps label + bar + number inside an 80-column terminal
LABEL = 28
SHADES = " ░▒▓█"
SEGMENTS = "█▓▒░#=+:"  # one glyph per stack segment, told apart without colour


def _num(v: float) -> str:
    return f"{v:,.0f}" if float(v).is_integer() or abs(v) >= 100 else f"{v:.3g}"


def _cut(text: str, n: int = LABEL) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _bars(points: Sequence[Any], *, share: bool = False) -> list[str]:
    top = max((abs(p.value) for p in points), default=0) or 1
    total = sum(p.value for p in points) or 1
    lines = []
    run: list[Any] = []  # consecutive empty months, printed as one line: a series over years is mostly zeros

    def flush() -> None:
        if len(run) >= 3:
            lines.append(f"{_cut(run[0].label + '…' + run[-1].label):>{LABEL}} · 0 each ({len(run)})")
        else:
            lines.extend(f"{_cut(p.label):>{LABEL}}  0" for p in run)
        run.clear()

    for p in points:
        if p.value == 0 and not share:
            run.append(p)
            continue
        flush()
        bar = "█" * max(1 if p.value else 0, round(WIDTH * abs(p.value) / top))
        tail = f" {_num(p.value)}" + (f" ({100 * p.value / total:.0f}%)" if share else "")
        lines.append(f"{_cut(p.label):>{LABEL}} {bar}{tail}")
    flush()
    return lines


def _tornado(points: Sequence[Any]) -> list[str]:
    half = WIDTH // 2
    top = max((abs(p.value) for p in points), default=0) or 1
    lines = []
    for p in points:
        n = max(1, round(half * abs(p.value) / top))
        left = ("█" * n).rjust(half) if p.value < 0 else " " * half
        right = "█" * n if p.value > 0 else ""
        lines.append(f"{_cut(p.label):>{LABEL}} {left}│{right.ljust(half)} {_num(p.value)}")
    return lines


def _order(values: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(values))


def _stacked(c: Any) -> list[str]:
    series = _order(p.series for p in c.points)
    glyph = {s: SEGMENTS[i % len(SEGMENTS)] for i, s in enumerate(series)}
    xs = _order(p.label for p in c.points)
    totals = {x: sum(p.value for p in c.points if p.label == x) for x in xs}
    top = max(totals.values(), default=0) or 1
    lines = []
    for x in xs:
        bar = "".join(glyph[p.series] * max(1, round(WIDTH * p.value / top)) for p in c.points if p.label == x)
        lines.append(f"{_cut(x):>{LABEL}} {bar} {_num(totals[x])}")
    lines.append(f"{'':>{LABEL}} " + "  ".join(f"{glyph[s]} {s}" for s in series))
    return lines


def _heatmap(c: Any) -> list[str]:
    cols = sorted(_order(p.label for p in c.points))
    rows = _order(p.series for p in sorted(c.points, key=lambda p: -p.value))
    cell = {(p.series, p.label): p.value for p in c.points}
    top = max(cell.values(), default=0) or 1
    w = max(5, *(len(_num(v)) + 1 for v in cell.values()))
    head = " ".join(col[-w:].rjust(w) for col in cols)
    lines = [f"{c.series_label or '':>{LABEL}} {head}"]
    for r in rows:
        cells = []
        for col in cols:
            v = cell.get((r, col), 0)
            shade = SHADES[min(len(SHADES) - 1, round((len(SHADES) - 1) * v / top))] if v else "·"
            cells.append((shade + (_num(v) if v else "")).rjust(w))
        lines.append(f"{_cut(r):>{LABEL}} " + " ".join(cells))
    lines.append(f"{'':>{LABEL}} columns: {c.x_label}; cells: {c.y_label} (darker = more)")
    return lines


def _sunburst(c: Any) -> list[str]:
    lines = []
    for parent in _order(p.series for p in sorted(c.points, key=lambda p: p.series or "")):
        kids = [p for p in c.points if p.series == parent]
        lines.append(f"{_cut(parent or ''):<{LABEL}} {_num(sum(p.value for p in kids))}")
        lines.extend("  " + line for line in _bars(kids))
    return lines


def _scatter(c: Any, rows: int = 12, cols: int = 48) -> list[str]:
    xs, ys = [p.x for p in c.points], [p.value for p in c.points]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    grid = [[" "] * cols for _ in range(rows)]
    for x, y in zip(xs, ys, strict=True):
        col = round((cols - 1) * (x - x0) / ((x1 - x0) or 1))
        row = rows - 1 - round((rows - 1) * (y - y0) / ((y1 - y0) or 1))
        grid[row][col] = "•" if grid[row][col] == " " else "◆"  # ◆: two or more results on one cell
    lines = [f"{c.y_label} {_num(y1)}"]
    lines += ["  │" + "".join(r) for r in grid]
    lines.append("  └" + "─" * cols)
    lines.append(f"   {_num(x0)}{_num(x1).rjust(cols - len(_num(x0)))}  {c.x_label}")
    lines.append(f"{c.y_label} from {_num(y0)}; {len(c.points)} results"
                 + (f"; dot size ({c.series_label}) not shown in text" if c.subtype == "bubble" else ""))
    return lines


def _box(c: Any) -> list[str]:
    groups = sorted(_order(p.series for p in c.points))
    values = {g: sorted(p.value for p in c.points if p.series == g) for g in groups}
    lo, hi = min(min(v) for v in values.values()), max(max(v) for v in values.values())

    def at(v: float) -> int:
        return round((WIDTH - 1) * (v - lo) / ((hi - lo) or 1))

    lines = []
    for g in groups:
        v = values[g]
        q1, med, q3 = statistics.quantiles(v, n=4, method="inclusive") if len(v) >= 2 else (v[0], v[0], v[0])
        row = [" "] * WIDTH
        for i in range(at(v[0]), at(v[-1]) + 1):
            row[i] = "─"
        for i in range(at(q1), at(q3) + 1):
            row[i] = "█"
        row[at(med)] = "│"
        lines.append(f"{_cut(str(g)):>{LABEL}} {''.join(row)} min {_num(v[0])} · median {_num(med)} · "
                     f"max {_num(v[-1])} (n={len(v)})")
    lines.append(f"{'':>{LABEL}} {_num(lo)} … {_num(hi)} {c.y_label}; █ middle half, │ median")
    return lines


def chart_lines(c: Any) -> list[str]:
    """The text form of a chart result (a ``ChartResult`` or its JSON dump as attributes)."""
    head = [f"{c.title} ({c.subtype}{', as asked: ' + c.requested if c.requested else ''})"]
    if not c.points:
        return [*head, "  (no data points)", c.source]
    if c.subtype in ("pie", "donut", "treemap"):
        body = _bars(c.points, share=True)
    elif c.subtype == "tornado":
        body = _tornado(c.points)
    elif c.subtype == "stacked-bar":
        body = _stacked(c)
    elif c.subtype == "heatmap":
        body = _heatmap(c)
    elif c.subtype == "sunburst":
        body = _sunburst(c)
    elif c.subtype in ("scatter", "bubble"):
        body = _scatter(c)
    elif c.subtype == "box":
        body = _box(c)
    else:
        body = _bars(c.points)
    return [*head, *body, c.source]


def unsupported_line(u: Any) -> str:
    kind, _, subtype = str(u.substitute).partition(":")
    shown = "nothing" if kind == "none" else f"a {subtype} {kind}" if subtype else f"a {kind}"
    return f"Can't show this as {u.requested}: {u.reason}. Showing {shown} instead."
