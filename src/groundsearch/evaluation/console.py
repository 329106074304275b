"""Terminal output of ``groundsearch eval`` and ``bench``: progress bars on stderr and readable tables.

Kept apart from the runners (which only call a ``progress(task, done, total)`` callback) and out of
``interfaces/cli.py`` (which stays a thin parse-call-format layer).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from .runner import EvalReport, Progress as ProgressFn

__all__ = ["bench_table", "eval_table", "progress_bars"]


@contextmanager
def progress_bars(console: Console, *, enabled: bool = True) -> Iterator[ProgressFn]:
    """A ``progress(task, done, total)`` callback drawing one rich bar per task name on ``console``."""
    bars = Progress(TextColumn("[bold]{task.description:>10}[/]"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), console=console, disable=not enabled, transient=False)
    tasks: dict[str, Any] = {}

    def update(task: str, done: int, total: int) -> None:
        if task not in tasks:
            tasks[task] = bars.add_task(task, total=total)
        bars.update(tasks[task], completed=done, total=total)

    with bars:
        yield update


def eval_table(report: EvalReport) -> Table:
    table = Table(title=f"{report.dataset}: {report.queries} queries, embedder {report.embedder}")
    table.add_column("retriever")
    for col in ("nDCG@10", "Recall@5", "Recall@10", "MRR@10", "p50 ms", "p95 ms"):
        table.add_column(col, justify="right")
    for name, s in report.results.items():
        table.add_row(name, f"{s.ndcg10:.4f}", f"{s.recall5:.4f}", f"{s.recall10:.4f}", f"{s.mrr10:.4f}",
                      f"{s.p50_ms:.1f}", f"{s.p95_ms:.1f}")
    return table


def _flat(prefix: str, value: Any, out: dict[str, Any]) -> None:
    if isinstance(value, Mapping):
        for k, v in value.items():
            _flat(f"{prefix}.{k}" if prefix else str(k), v, out)
    else:
        out[prefix] = value


def bench_table(suite: str, result: Mapping[str, Any]) -> Table:
    """One suite's figures as a two-column table (nested keys joined with dots)."""
    rows: dict[str, Any] = {}
    _flat("", result, rows)
    table = Table(title=f"bench: {suite}")
    table.add_column("measure")
    table.add_column("value", justify="right")
    for key, value in rows.items():
        table.add_row(key, f"{value:,.3f}" if isinstance(value, float) else str(value))
    return table
