"""Streamed answers never reach the logs, even when the operator turns logging up to DEBUG.

sse-starlette logs every event it sends at DEBUG (``chunk: b'event: results…'``), so an operator who sets the
root logger to DEBUG to chase a problem would copy every user's results — titles, snippets, source text of
every tenant — into the log files. The attack: a secret planted in a document, a streamed search that
returns it, and the log records of the whole request searched for the secret.
"""

from __future__ import annotations

import logging
from pathlib import Path

import httpx
import pytest

from groundsearch.interfaces.api import create_app
from tests.api.live import make_engine, serve
from tests.api.sse import parse

SECRET = "zyxwvut-payroll-4417"


def test_a_streamed_search_at_debug_level_logs_no_result_text(tmp_path: Path,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "data").mkdir()
    doc = tmp_path / "memo.md"
    doc.write_text(f"# Payroll memo\n\nThe payroll export code is {SECRET} for the March run.\n")
    with make_engine(tmp_path / "data") as engine:
        engine.ingest([doc], "docs")
        app = create_app(engine)
        with caplog.at_level(logging.DEBUG), serve(app) as url, httpx.Client(base_url=url, timeout=30) as client:
            with client.stream("POST", "/api/search?stream=true", json={"query": "payroll export code"}) as r:
                assert r.status_code == 200
                events = list(parse(r.iter_lines()))
        streamed = " ".join(str(data) for _, data in events)
        assert SECRET in streamed, "the stream must carry the secret for the log check to mean anything"
        assert caplog.records, "DEBUG capture must be on for the check to mean anything"
        leaked = [rec.name for rec in caplog.records if SECRET in rec.getMessage()]
        assert not leaked, f"result text logged by {sorted(set(leaked))}"
