"""Must-show: a full API and CLI session leaves no raw query text in the logs or the store unless opted in.

The session is real: ``groundsearch serve`` and ``groundsearch search/ask`` run as subprocesses with every
logger at DEBUG written to files, searches go over HTTP (JSON, SSE, GET), intent shadow mode is on and the
configured LLM is unreachable, so the cascade's LLM-failure, fallback and shadow paths — the ones that used to
log the query — all run. Then every byte under the data directory and every log line is searched for each
query and for its one distinctive word.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from groundsearch.settings import load_settings
from groundsearch.store.sqlite_telemetry import SQLiteTelemetry
from tests.api.live import CONFIG, make_engine, make_settings

# Every query carries a word found nowhere in the corpus or the code, so any leak of any part is caught.
QUERIES = {
    "post": "quokkazephyr vector search configuration",
    "stream": "how does tantalumvireo ingest work",
    "get": "marmosetquill releases table",
    "preview": "wombatlyric",
    "cli_search": "ocelotbrume keyword index rebuild",
    "cli_ask": "what is narwhalcitrine in the docs",
    "email": "billing for jane.quagga@example.com invoices",
}
MARKERS = ["quokkazephyr", "tantalumvireo", "marmosetquill", "wombatlyric", "ocelotbrume", "narwhalcitrine",
           "jane.quagga@example.com", "jane.quagga"]

# A CLI process logging to a file at INFO, groundsearch's own loggers at DEBUG: more than an operator's default.
# (Third-party DEBUG output is out of scope: sse_starlette at DEBUG dumps every response chunk, which holds the
# query by design — docs/operations.md says to keep it at INFO.)
WRAPPER = ("import logging, sys; logging.basicConfig(level=logging.INFO, filename=sys.argv.pop(1), "
           "format='%(asctime)s %(name)s %(levelname)s %(message)s'); "
           "logging.getLogger('groundsearch').setLevel(logging.DEBUG); "
           "from groundsearch.interfaces.cli import main; main(prog_name='groundsearch')")


def _closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@pytest.fixture
def session_dir(tmp_path: Path) -> Path:
    make_engine(tmp_path, make_settings(tmp_path)).close()  # ingests the fixture corpus into tmp/data
    (tmp_path / "server.toml").write_text(
        f'data_dir = "{tmp_path / "data"}"\nembedder = "hash"\n'
        f'[llm]\nbase_url = "http://127.0.0.1:{_closed_port()}/v1"\nmodels = ["m"]\ndialect = "openai"\n'
        f'timeout_s = 2\n[intent]\nshadow = true\n' + CONFIG, encoding="utf-8")
    return tmp_path


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GROUNDSEARCH_")}
    return {**env, "OMP_NUM_THREADS": "1", **extra}


def _cli(tmp: Path, log: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", WRAPPER, str(log), "--config", str(tmp / "server.toml"), *args],
                          capture_output=True, text=True, timeout=300, env=_env(**env), cwd=tmp)


def _serve_session(tmp: Path, log: Path) -> str:
    server = subprocess.Popen([sys.executable, "-c", WRAPPER, str(log), "--config", str(tmp / "server.toml"),
                               "serve", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, env=_env(), cwd=tmp)
    out = []
    try:
        assert server.stdout is not None
        for line in server.stdout:
            out.append(line)
            if m := re.search(r"http://127\.0\.0\.1:(\d+)/", line):
                base = f"http://127.0.0.1:{m.group(1)}"
                break
        else:
            raise AssertionError("server did not start: " + "".join(out))
        with httpx.Client(base_url=base, timeout=120) as c:
            r = c.post("/api/search", json={"query": QUERIES["post"]})
            assert r.status_code == 200, r.text
            rid = r.json()["diagnostics"]["request_id"]
            item = r.json()["results"][0]["item_id"]
            assert c.post("/api/feedback", json={"request_id": rid, "item_id": item, "useful": True}).status_code == 201
            with c.stream("POST", "/api/search?stream=true", json={"query": QUERIES["stream"]}) as s:
                assert s.status_code == 200 and "event: complete" in s.read().decode()
            assert c.get("/api/search", params={"q": QUERIES["get"]}).status_code == 200
            assert c.get("/api/search", params={"q": QUERIES["email"]}).status_code == 200
            assert c.get("/api/search/preview", params={"q": QUERIES["preview"]}).status_code == 200
            assert c.post("/api/search", json={"query": QUERIES["post"], "filters": {"colour": "red"}}).status_code == 400
    finally:
        server.send_signal(signal.SIGINT)
        rest, _ = server.communicate(timeout=60)
    return "".join(out) + rest


def _leaks(text_or_bytes: str | bytes) -> list[str]:
    data = text_or_bytes.encode() if isinstance(text_or_bytes, str) else text_or_bytes
    return [m for m in MARKERS if m.encode() in data]


def test_a_full_api_and_cli_session_leaves_no_raw_query_anywhere(session_dir: Path) -> None:
    tmp = session_dir
    server_log, cli_log = tmp / "server.log", tmp / "cli.log"
    console = _serve_session(tmp, server_log)
    runs = [_cli(tmp, cli_log, "search", QUERIES["cli_search"]), _cli(tmp, cli_log, "ask", QUERIES["cli_ask"]),
            _cli(tmp, cli_log, "search", "--json", QUERIES["email"])]
    for run in runs:
        assert run.returncode == 0, run.stderr
    logs = server_log.read_text() + cli_log.read_text()
    # the paths that used to log the query ran: the LLM tier failed and shadow mode compared
    assert "intent llm attempt failed" in logs and "intent shadow" in logs
    assert _leaks(logs) == [] and _leaks(console) == []
    assert all(_leaks(run.stderr) == [] for run in runs)
    stored = {p: _leaks(p.read_bytes()) for p in (tmp / "data").rglob("*") if p.is_file()}
    assert {p: m for p, m in stored.items() if m} == {}

    telemetry = SQLiteTelemetry.open(tmp / "data" / "store" / "telemetry.sqlite")
    try:
        records = telemetry.requests(dt.datetime.now(dt.UTC) - dt.timedelta(hours=1))
        shadows = telemetry.shadows(dt.datetime.now(dt.UTC) - dt.timedelta(hours=1))
    finally:
        telemetry.close()
    # one record per search: 4 over HTTP + the rejected one, 3 from the CLI; none holds text
    assert sorted(r.surface for r in records) == ["ask"] + ["search"] * 7
    assert sorted(r.status for r in records).count("invalid") == 1
    assert all(r.query_text is None and len(r.query_hash) == 64 for r in records)
    assert any(any("llm m: failed twice" in d for d in r.degraded) for r in records)
    assert shadows and all(s.agreed is None for s in shadows)  # the LLM was unreachable: nothing to compare


def test_raw_text_is_kept_only_when_opted_in_and_redacted(session_dir: Path) -> None:
    tmp = session_dir
    run = _cli(tmp, tmp / "cli.log", "search", QUERIES["email"], GROUNDSEARCH_TELEMETRY_RAW_QUERY="true")
    assert run.returncode == 0, run.stderr
    assert _leaks((tmp / "cli.log").read_text() + run.stderr) == []
    settings = load_settings(tmp / "server.toml", env={})
    telemetry = SQLiteTelemetry.open(settings.data_dir / "store" / "telemetry.sqlite")
    try:
        (record,) = telemetry.requests(dt.datetime.now(dt.UTC) - dt.timedelta(hours=1))
    finally:
        telemetry.close()
    assert record.query_text == "billing for [email] invoices"
    assert {p: m for p in (tmp / "data").rglob("*") if p.is_file() and (m := _leaks(p.read_bytes()))} == {}
