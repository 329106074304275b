"""The ``groundsearch`` command line: parse, call ``Engine``, format. No retrieval logic lives here.

Exit codes: 0 success; 1 the work ran but something failed (e.g. some files could not be ingested);
2 bad input or usage (the message names the problem); 3 not found; 4 configuration, model or store problem
(a damaged, locked or too-new store).
"""

from __future__ import annotations

import contextlib
import functools
import json
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ..errors import ConfigError, GroundsearchError, InvalidInput, ModelError, NotFound, StoreError
from ..settings import Settings, load_settings
from ..types import SearchRequest
from .chart_text import chart_lines, unsupported_line

F = TypeVar("F", bound=Callable[..., Any])

err = Console(stderr=True, soft_wrap=True)  # error lines stay whole in logs and pipes (no wrap at 80 columns)
out = Console()


def exit_code(exc: GroundsearchError) -> int:
    if isinstance(exc, InvalidInput):
        return 2
    if isinstance(exc, NotFound):
        return 3
    if isinstance(exc, (ConfigError, ModelError, StoreError)):
        return 4
    return 1


def handles_errors(fn: F) -> F:
    """Turn the exception tree into one line on stderr and an exit code; tracebacks only for real bugs."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except GroundsearchError as exc:
            err.print(f"[bold red]error:[/] {exc.message}", highlight=False, markup=True)
            sys.exit(exit_code(exc))
        except ValueError as exc:  # pydantic validation of a request
            err.print(f"[bold red]error:[/] {exc}", highlight=False)
            sys.exit(2)
        except sqlite3.DatabaseError as exc:  # the truth itself is damaged: nothing to rebuild it from
            err.print(f"[bold red]error:[/] the database is damaged or unreadable ({exc}); restore it from a "
                      "backup or re-ingest into a new data directory", highlight=False)
            sys.exit(4)
        except BaseException as exc:
            from ..store.index_check import is_panic

            if not is_panic(exc):
                raise
            err.print(f"[bold red]error:[/] a native library failed ({exc}); a damaged index is the usual cause",
                      highlight=False)
            sys.exit(4)

    return wrapper  # type: ignore[return-value]


def settings_from(ctx: click.Context) -> Settings:
    obj = ctx.ensure_object(dict)
    if "settings" not in obj:
        overrides: dict[str, Any] = {}
        if obj.get("data_dir"):
            overrides["data_dir"] = obj["data_dir"]
        obj["settings"] = load_settings(obj.get("config"), **overrides)
    return obj["settings"]


def open_engine(ctx: click.Context, *, shared: bool = True):  # -> Engine, imported lazily so `--help` stays fast
    """``shared``: beside a running ``serve`` the CLI writes through the database as a log writer (the server
    indexes what it writes) and searches as a reader, instead of failing on the server's index lock."""
    from ..engine import Engine

    return Engine.open(settings_from(ctx), shared=shared)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--config", type=click.Path(dir_okay=False), envvar="GROUNDSEARCH_CONFIG",
              help="TOML config file (collections, settings). Default: ./groundsearch.toml if present.")
@click.option("--data-dir", type=click.Path(file_okay=False), help="Data directory (default ./groundsearch-data).")
@click.version_option(package_name="groundsearch")
@click.pass_context
def main(ctx: click.Context, config: str | None, data_dir: str | None) -> None:
    """Search a mixed knowledge base and answer in the shape you ask for."""
    ctx.ensure_object(dict).update(config=config, data_dir=data_dir)


# ---------------------------------------------------------------------------------------------- ingest


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--collection", "-c", help="Target collection (default: the configured default).")
@click.option("--tenant", default="", help="Tenant every ingested item belongs to (default: the default tenant ''); "
              "a file naming another tenant fails.")
@click.option("--no-embed", "--defer", "no_embed", is_flag=True,
              help="Write text only (keyword-searchable at once); vectors follow from `groundsearch embed` or a "
              "running server.")
@click.option("--prune", is_flag=True,
              help="Also delete items of files that were ingested from these folders and no longer exist.")
@click.option("--bulk", is_flag=True,
              help="Postgres only, for a first import of a large corpus: build the postings' and vector indexes "
              "once at the end instead of on every write (searches meanwhile are correct but slow).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
@handles_errors
def ingest(ctx: click.Context, paths: tuple[str, ...], collection: str | None, tenant: str, no_embed: bool,
           prune: bool, bulk: bool, as_json: bool) -> None:
    """Ingest files and folders (Markdown, text, HTML, PDF, JSON/JSONL/CSV records). Idempotent.

    The text is written first, so it is keyword-searchable at once; the vectors follow (here, or in a
    running server's background embedder)."""
    with open_engine(ctx) as engine, contextlib.ExitStack() as bulk_block, Progress(
        TextColumn("[bold]ingest[/]"), BarColumn(), MofNCompleteColumn(), TextColumn("files"),
        TextColumn("{task.fields[chunks]} chunks"), TimeElapsedColumn(), TextColumn("{task.fields[current]}"),
        console=err, transient=as_json, disable=as_json,
    ) as progress:
        if bulk:
            if not hasattr(engine.store, "bulk_import"):
                raise click.UsageError("--bulk needs the Postgres store (database_url); the embedded store has no "
                                       "per-write index upkeep to defer")
            bulk_block.enter_context(engine.store.bulk_import())  # left after the embedding below: one build
        task = progress.add_task("ingest", total=None, chunks=0, current="")

        def report(p: Any) -> None:
            progress.update(task, total=p.files_total, completed=p.files_done, chunks=p.chunks_done,
                            current=Path(p.current).name if p.current else "")

        result = engine.ingest(paths, collection, tenant=tenant, embed=not no_embed, prune=prune, progress=report,
                               defer_embedding=True)
        progress.stop()
        owner = getattr(engine.store, "owns_indexes", True)
        embedded = _embed_with_progress(engine, quiet=as_json) if owner and not no_embed else None
        pending = engine.store.count_pending_vectors()
    summary = {
        "added": result.added, "updated": result.updated, "unchanged": result.unchanged,
        "deleted": result.deleted, "chunks_written": result.chunks_written,
        "errors": [{"path": str(p), "message": m} for p, m in result.errors],
        "seconds": round(result.seconds + (embedded.seconds if embedded else 0.0), 3),
        "text_seconds": round(result.seconds, 3), "embedded": embedded.embedded if embedded else 0,
        "vectors_pending": pending, "wrote_through_server": not owner,
    }
    if as_json:
        click.echo(json.dumps(summary))
    else:
        err.print(
            f"added {result.added}, updated {result.updated}, unchanged {result.unchanged}, "
            f"deleted {result.deleted}; {result.chunks_written} chunks in {result.seconds:.1f}s"
            + (f"; embedded {embedded.embedded} in {embedded.seconds:.1f}s" if embedded else "")
        )
        if not owner:
            err.print("another process (a running `groundsearch serve`) owns this store: it indexes these items "
                      "and embeds them in the background")
        elif pending:
            err.print(f"{pending} chunks have no vector yet; `groundsearch embed` (or a running server) adds them")
        for path, message in result.errors:
            where = "" if Path(path).name in message else f"{path}: "
            err.print(f"[red]failed[/] {where}{message}", highlight=False)
    if result.errors:
        sys.exit(1)


def _embed_with_progress(engine: Any, *, quiet: bool) -> Any:
    """Embed the pending chunks with a progress bar; a kill here loses nothing (`groundsearch embed` resumes)."""
    total = engine.store.count_pending_vectors()
    with Progress(TextColumn("[bold]embed[/]"), BarColumn(), MofNCompleteColumn(), TextColumn("chunks"),
                  TimeElapsedColumn(), console=err, transient=quiet, disable=quiet) as progress:
        task = progress.add_task("embed", total=total)
        return engine.embed_pending(progress=lambda p: progress.update(task, completed=p.embedded))


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
@handles_errors
def embed(ctx: click.Context, as_json: bool) -> None:
    """Give a vector to every chunk stored without one (after `ingest --defer`, or an interrupted embed).
    Safe to interrupt and to run beside a server."""
    with open_engine(ctx) as engine:
        report = _embed_with_progress(engine, quiet=as_json)
    failed = [{"chunk_key": k, "message": m} for k, m in report.failed]
    if as_json:
        click.echo(json.dumps({"embedded": report.embedded, "remaining": report.remaining, "failed": failed,
                               "sentence_chunks": report.sentence_chunks, "seconds": round(report.seconds, 3)}))
    else:
        err.print(f"embedded {report.embedded} chunks (and the sentences of {report.sentence_chunks}) in "
                  f"{report.seconds:.1f}s; {report.remaining} still pending")
        for f in failed:
            err.print(f"[red]failed[/] chunk {f['chunk_key']}: {f['message']}", highlight=False)
    if failed:
        sys.exit(1)


# ---------------------------------------------------------------------------------------------- search


@main.command()
@click.argument("query")
@click.option("--collection", "-c", "collections", multiple=True, help="Restrict to a collection (repeatable).")
@click.option("--limit", "-n", default=10, show_default=True, type=click.IntRange(1, 100))
@click.option("--offset", default=0, show_default=True, type=click.IntRange(0, 10_000))
@click.option("--filter", "-f", "filters", multiple=True, metavar="FIELD=VALUE",
              help="Field filter; repeat a field for membership; date_from/date_to take YYYY-MM-DD or YYYY-MM.")
@click.option("--profile", type=click.Choice(["rrf", "weighted", "keyword", "vector"]), default="rrf",
              show_default=True, help="Scoring: both legs fused as retrieval.fusion says (z-scores unless it is "
                                      "rrf; the name predates z-score fusion), the weighted profile, or one leg alone.")
@click.option("--include-drafts", is_flag=True)
@click.option("--include-archived", is_flag=True)
@click.option("--include-superseded", is_flag=True)
@click.option("--json", "as_json", is_flag=True, help="Print the full response as JSON.")
@click.option("--explain", is_flag=True, help="Print the plan and each hit's per-leg rank and score.")
@click.pass_context
@handles_errors
def search(ctx: click.Context, query: str, collections: tuple[str, ...], limit: int, offset: int,
           filters: tuple[str, ...], profile: str, include_drafts: bool, include_archived: bool,
           include_superseded: bool, as_json: bool, explain: bool) -> None:
    """Search the knowledge base."""
    from ..query.filters import parse_filter_args, validate_query

    request = SearchRequest(
        query=validate_query(query), limit=limit, offset=offset, collections=collections or None,
        filters=parse_filter_args(filters) or None, profile=profile,  # type: ignore[arg-type]
        include_drafts=include_drafts, include_archived=include_archived, include_superseded=include_superseded,
    )
    with open_engine(ctx) as engine:
        response = engine.search(request)
    if as_json:
        click.echo(response.model_dump_json())
        return
    print_response(response, explain=explain)


def print_response(response: Any, *, explain: bool) -> None:
    d = response.diagnostics
    if explain and d.plan:
        out.rule("plan")
        for key, value in d.plan.items():
            if key != "reasons":
                out.print(f"[bold]{key}[/]: {value}", highlight=False)
        out.print("[bold]decisions[/]:", highlight=False)
        for reason in d.plan.get("reasons", ()):
            out.print(f"  - {reason}", highlight=False)
        if d.gate is not None:
            g = d.gate
            out.print(f"[bold]gate[/]: {'passed' if g['passed'] else 'failed'} — best cosine {g['best_score']:.3f} "
                      f"vs {g['threshold']:g}" + ("" if g["measured"] else " (not measured: no vector leg)")
                      + (f"; candidates from the reformulation {g['reformulated']!r}" if g["reformulated"] else ""),
                      highlight=False)
        if response.intent is not None:
            out.print(f"[bold]intent[/]: {response.intent.model_dump()}", highlight=False)
    if response.prose.sentences:
        out.rule("answer")
        out.print(response.prose.text, highlight=False)
    for result in response.structured_results:
        print_structured(result)
    table = Table(show_lines=False, title=f"results {response.offset + 1}–{response.offset + len(response.results)}"
                  + (" (more available)" if response.has_more else ""))
    table.add_column("#", justify="right")
    table.add_column("id")
    table.add_column("title")
    table.add_column("score", justify="right")
    if explain:
        table.add_column("legs (rank/score)")
    table.add_column("snippet")
    for i, r in enumerate(response.results, start=response.offset + 1):
        crumb = " › ".join(r.heading_path)
        row = [str(i), r.id, r.title + (f"\n[dim]{crumb}[/]" if crumb else ""), f"{r.score:.4f}"]
        if explain:
            row.append("\n".join(f"{leg} #{v['rank']:.0f} {v['score']:.3f}" for leg, v in r.legs.items()))
        row.append(r.snippet[:160])
        table.add_row(*row)
    out.print(table)
    if explain:
        out.print("latency ms: " + ", ".join(f"{k} {v:.1f}" for k, v in d.latency_ms.items()), highlight=False)
    for note in d.degraded:
        err.print(f"[yellow]degraded:[/] {note}", highlight=False)


def print_structured(result: Any) -> None:
    kind = result.kind
    if kind == "table":
        t = Table(title=result.title)
        for c in result.columns:
            t.add_column(c)
        for row in result.rows:
            t.add_row(*[("" if v is None else str(v)) for v in row])
        out.print(t)
    elif kind == "chart":
        head, *body, source = chart_lines(result)
        out.rule(head)
        for line in body:  # soft_wrap: a wrapped grid row would no longer line up with its columns
            out.print(line, markup=False, highlight=False, soft_wrap=True)
        out.print(source, style="dim", markup=False, highlight=False)
    elif kind == "timeline":
        out.rule(result.title)
        for e in result.events:
            out.print(f"{e.date}  {e.label}", highlight=False)
    elif kind == "graph":
        out.rule(result.title)
        for e in result.edges:
            out.print(f"{e.source} — {e.target} ({e.weight:g})", highlight=False)
    elif kind == "unsupported-format":
        err.print(unsupported_line(result), style="yellow", markup=False, highlight=False)
    elif kind == "low-confidence":
        err.print(f"[yellow]low confidence:[/] {result.reason}", highlight=False)


# ---------------------------------------------------------------------------------------------- items


@main.command()
@click.argument("item_id")
@click.pass_context
@handles_errors
def delete(ctx: click.Context, item_id: str) -> None:
    """Delete an item and every trace of it (keyword index, vectors, graph)."""
    with open_engine(ctx) as engine:
        engine.delete(item_id)
    err.print(f"deleted {item_id}")


@main.command()
@click.argument("item_id")
@click.option("--limit", "-n", default=10, type=click.IntRange(1, 100))
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@handles_errors
def similar(ctx: click.Context, item_id: str, limit: int, as_json: bool) -> None:
    """Items similar to ITEM_ID, flagging likely duplicates, plus exact duplicates by content hash."""
    with open_engine(ctx) as engine:
        hits = engine.similar(item_id, limit=limit)
        exact = engine.duplicates(item_id)
    rows = [{"id": h.item.id, "title": h.item.title, "cosine": round(h.cosine, 4),
             "likely_duplicate": h.likely_duplicate} for h in hits]
    if as_json:
        click.echo(json.dumps({"similar": rows, "exact_duplicates": [i.id for i in exact]}))
        return
    table = Table(title=f"similar to {item_id}")
    for col in ("id", "title", "cosine", "likely duplicate"):
        table.add_column(col)
    for r in rows:
        table.add_row(r["id"], r["title"], f"{r['cosine']:.3f}", "yes" if r["likely_duplicate"] else "")
    out.print(table)
    if exact:
        out.print("exact duplicates: " + ", ".join(i.id for i in exact), highlight=False)


@main.command("calibrate-gate")
@click.option("--questions", "questions_file", required=True, type=click.Path(exists=True, dir_okay=False),
              help="Questions this store should answer, one a line (at least 10; a sample of real queries).")
@click.option("--offtopic", "offtopic_file", default=None, type=click.Path(exists=True, dir_okay=False),
              help="Questions it should not answer, one a line (default: the 40 bundled everyday questions).")
@click.pass_context
@handles_errors
def calibrate_gate(ctx: click.Context, questions_file: str, offtopic_file: str | None) -> None:
    """Measure the relevance gate's threshold on this store and store it with the embedder's id."""
    from ..evaluation.bench_gate import OFFTOPIC_FILE

    def lines(path: str | Path) -> list[str]:
        return [t.strip() for t in Path(path).read_text(encoding="utf-8").splitlines() if t.strip()]

    with open_engine(ctx) as engine:
        try:
            cal = engine.calibrate_gate(lines(questions_file), lines(offtopic_file or OFFTOPIC_FILE))
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None
    click.echo(cal.to_json())
    if not cal.separated:
        err.print(f"warning: own questions' q05 {cal.own_q05} is not above off-topic q95 {cal.offtopic_q95}: "
                  "the gate cannot separate them well on this store")


# ---------------------------------------------------------------------------------------------- eval / bench


@main.command()
@click.argument("question")
@click.option("--collection", "-c", "collections", multiple=True, help="Restrict to a collection (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Print the full response as JSON.")
@click.pass_context
@handles_errors
def ask(ctx: click.Context, question: str, collections: tuple[str, ...], as_json: bool) -> None:
    """Answer a question in a few sentences, each citing its evidence, with the sources listed below."""
    from ..query.filters import validate_query

    request = SearchRequest(query=validate_query(question), limit=10, collections=collections or None)
    with open_engine(ctx) as engine:
        response = engine.search(request, surface="ask")
    if as_json:
        click.echo(response.model_dump_json())
        return
    for result in response.structured_results:
        print_structured(result)
    for sentence in response.prose.sentences:
        marks = "".join(f"[{response_index(response, c)}]" for c in sentence.citations)
        flag = "" if sentence.verified else " [yellow](could not verify)[/]"
        out.print(f"{sentence.text} {marks}{flag}", highlight=False)
    out.rule("sources")
    for i, r in enumerate(response.results, start=1):
        out.print(f"[{i}] {r.title} — {r.url or r.item_id}", highlight=False)


def response_index(response: Any, evidence_id: str) -> str:
    for i, r in enumerate(response.results, start=1):
        if r.id == evidence_id:
            return str(i)
    return evidence_id


@main.command()
@click.option("--database-url", envvar="GROUNDSEARCH_DATABASE_URL", required=True,
              help="postgresql:// DSN (default: GROUNDSEARCH_DATABASE_URL).")
@click.option("--refresh-keyword-impacts", is_flag=True,
              help="Also recompute the BM25 postings' impact order at the current mean chunk length: never needed "
                   "for correct results, it keeps the keyword leg's early termination tight after the corpus grew "
                   "or changed a lot (rewrites every posting; run it off-peak).")
@handles_errors
def migrate(database_url: str, refresh_keyword_impacts: bool) -> None:
    """Apply pending Postgres schema migrations (forward-only); prints what was applied."""
    from ..store.postgres import migrate as apply

    applied = apply(database_url)
    err.print("applied " + ", ".join(applied) if applied else "schema is up to date")
    if refresh_keyword_impacts:
        from ..store.postgres import refresh_keyword_impacts as refresh

        refs = refresh(database_url)
        err.print(f"keyword impacts recomputed at mean length {refs['reference']:.2f} "
                  f"(they were ordered at {refs['previous_reference']:.2f})")


def run_chat_eval_cli(ctx: click.Context, demo: Path, files: tuple[str, ...], limit: int | None,
                      cache_dir: str | None, records: str | None = None) -> dict[str, Any]:
    from importlib import resources

    from ..evaluation.chat import load_conversations, run_chat_eval

    data = resources.files("groundsearch.evaluation") / "data"
    paths = list(files) or [str(data / "chat-dev.jsonl"), str(data / "chat-heldout.jsonl")]
    rows = []
    for path in paths:
        rows += load_conversations([path])[:limit]
    llm = settings_from(ctx).llm
    cache = Path(cache_dir) if cache_dir else Path.home() / ".cache" / "groundsearch" / "eval"
    return run_chat_eval(rows, demo, cache / "chat-demo" / "data",
                         llm=llm.model_dump(exclude_none=True) if llm.enabled else None,
                         progress=lambda cid: err.print(f"conversation {cid} done", highlight=False),
                         records_out=Path(records) if records else None)


@main.command()
@click.argument("message", required=False)
@click.option("--conversation", "conversation_id", default=None, help="Continue this conversation id.")
@click.option("--assistant", default=None, help="Configured assistant that starts a new conversation.")
@click.option("--json", "as_json", is_flag=True, help="One turn (MESSAGE), printed as the JSON answer.")
@click.pass_context
@handles_errors
def chat(ctx: click.Context, message: str | None, conversation_id: str | None, assistant: str | None,
         as_json: bool) -> None:
    """Talk to the grounded assistant: an interactive session, or one turn with MESSAGE (--json for JSON)."""
    from ..assistant.turn import fold_chat, run_turn
    from .chat_text import turn_lines

    if as_json and not message:
        raise click.UsageError("--json answers one turn: give MESSAGE")
    with open_engine(ctx) as engine:
        while True:
            text = message if message is not None else click.prompt("you", default="", show_default=False)
            if not text.strip() or text.strip() in ("/quit", "/exit"):
                return
            answer = fold_chat(run_turn(engine, text, conversation_id=conversation_id, assistant=assistant))
            conversation_id = answer["conversation_id"]
            if as_json:
                click.echo(json.dumps(answer, default=str))
                return
            out.print(f"[bold]{answer['assistant']}[/]: " + "\n".join(turn_lines(answer)), highlight=False)
            if message is not None:
                err.print(f"conversation {conversation_id} (continue with --conversation {conversation_id})")
                return


@main.command("eval")
@click.option("--dataset", "dataset_dir", default=None, type=click.Path(file_okay=False),
              help="BEIR-layout folder: corpus.jsonl, queries.jsonl, qrels.tsv.")
@click.option("--intents", "intents_files", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="Labelled intent requests (JSONL, repeatable, e.g. src/groundsearch/evaluation/data/"
                   "intents-heldout.jsonl): per-field accuracy per split, reliability per tier and latency "
                   "instead of retrieval scores.")
@click.option("--fidelity-demo", "fidelity_demo", default=None, type=click.Path(exists=True, file_okay=False),
              help="With --intents: also run every request through Engine.search on this demo folder "
                   "(e.g. demo) and report end-to-end format fidelity and silent drops.")
@click.option("--tier1-timing", "tier1_only", is_flag=True,
              help="With --intents: only time tier 1 on those requests (wall and CPU per call, no model loaded; "
                   "seconds), the quick re-run of the tier-1 p99 on a quiet machine.")
@click.option("--answers", "answers_dir", default=None, type=click.Path(file_okay=False),
              help="BEIR-layout folder whose queries carry gold 'answers': answer recall, citation precision, "
                   "support, abstention, conflicts and latency of the full answer path.")
@click.option("--answers-demo", "answers_demo", default=None, type=click.Path(exists=True, file_okay=False),
              help="The labelled questions about the demo corpus (src/groundsearch/evaluation/data/demo-answers-*"
                   ".jsonl, or --answers-file) on this demo folder (e.g. demo; its store in DEMO/data, or "
                   "--cache-dir): answer-line recall, gold in the prose, abstention and false abstention per split.")
@click.option("--answers-file", "answers_files", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="With --answers-demo: question files (repeatable); default both shipped halves.")
@click.option("--chat", "chat_demo", default=None, type=click.Path(exists=True, file_okay=False),
              help="Scripted conversations (src/groundsearch/evaluation/data/chat-*.jsonl, or --chat-file) through the "
                   "chat turn loop on this demo folder (e.g. demo): citation validity, silent drops, marked share, "
                   "rerolls, handoff precision, latency vs 3 s / 8 s. With llm.base_url configured, the LLM path.")
@click.option("--chat-file", "chat_files", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="With --chat: conversation files (repeatable); default both shipped splits.")
@click.option("--chat-limit", type=click.IntRange(1), default=None, help="With --chat: the first N conversations "
              "of each file.")
@click.option("--chat-records", default=None, type=click.Path(dir_okay=False),
              help="With --chat: append each turn's record to this JSON-lines file as soon as the turn ends, so a "
                   "long LLM-path run that is stopped keeps every finished turn (score it with --chat-score).")
@click.option("--chat-score", default=None, type=click.Path(exists=True, dir_okay=False),
              help="Score a --chat-records file (its whole conversations) instead of running anything.")
@click.option("--judge-agreement", "judge_dir", default=None, type=click.Path(exists=True),
              help="The ares_judge_scoring folder: the configured LLM as a faithfulness judge against ARES' "
                   "labels (accuracy, Cohen's kappa). Needs llm.base_url or llm.gguf_path.")
@click.option("--judge", "with_judge", is_flag=True, help="With --answers: add the configured LLM's faithfulness "
              "verdict on each answer (the judge_faithful column).")
@click.option("--ceiling", is_flag=True, help="With --answers (an open set): where each gold answer is lost instead "
              "of the scores — not retrieved (and of those, in the top 100), on the page but not a candidate "
              "sentence, a candidate not chosen, in the prose (evaluation/ceiling.py).")
@click.option("--no-narration", is_flag=True, help="With --answers: extractive answers even when an LLM is "
              "configured (it still judges with --judge), for a same-command comparison.")
@click.option("--split", type=click.Choice(["all", "heldout", "tune"]), default="all", show_default=True,
              help="With --answers, --judge-agreement or --dataset (MuSiQue's committed held-out list): only the "
                   "held-out or tuning half (before --limit-queries).")
@click.option("--qrels", "qrels_file", type=click.Path(exists=True, dir_okay=False), default=None,
              help="With --dataset: these judgements instead of the folder's qrels.tsv (e.g. SciFact's "
                   "qrels_train.tsv, the tuning split).")
@click.option("--retrievers", default="bm25,dense,hybrid,weighted", show_default=True,
              help="Comma-separated plan profiles run through search's own planner and retriever: default (exactly "
                   "what search runs), bm25, dense, hybrid (RRF k=60), zscore (z-score fusion), weighted, graph, "
                   "hybrid+graph (RRF over three legs), zscore+graph (z-scores, then RRF with the graph), "
                   "zscore+rocchio, hybrid+prf, hybrid+rocchio, hybrid+multi, hybrid+rerank, zscore+rerank (the "
                   "configured reranker), zscore+hyde (needs an LLM); bm25s is the independent BM25 baseline.")
@click.option("--embedder", "embedder_name", type=click.Choice(["minilm", "e5"]), default="minilm", show_default=True)
@click.option("--limit-queries", type=click.IntRange(1), default=None, help="Evaluate only the first N queries.")
@click.option("--cache-dir", type=click.Path(file_okay=False),
              help="Where ingested eval corpora are cached (default ~/.cache/groundsearch/eval).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
@click.pass_context
@handles_errors
def eval_command(ctx: click.Context, dataset_dir: str | None, intents_files: tuple[str, ...],
                 fidelity_demo: str | None, tier1_only: bool, answers_dir: str | None, answers_demo: str | None,
                 answers_files: tuple[str, ...], chat_demo: str | None,
                 chat_files: tuple[str, ...], chat_limit: int | None, chat_records: str | None,
                 chat_score: str | None, judge_dir: str | None, with_judge: bool,
                 ceiling: bool, no_narration: bool, split: str, qrels_file: str | None, retrievers: str,
                 embedder_name: str,
                 limit_queries: int | None, cache_dir: str | None, as_json: bool) -> None:
    """Score retrievers on a BEIR dataset: nDCG@10, Recall@5/10, MRR@10, latency p50/p95."""
    if chat_score is not None:
        from ..evaluation.chat import format_chat_report, load_records, report_of

        scored = report_of(*load_records(Path(chat_score)))
        click.echo(json.dumps(scored) if as_json else format_chat_report(scored))
        return
    if chat_demo is not None:
        from ..evaluation.chat import format_chat_report

        chat_report = run_chat_eval_cli(ctx, Path(chat_demo), chat_files, chat_limit, cache_dir, chat_records)
        click.echo(json.dumps(chat_report) if as_json else format_chat_report(chat_report))
        return
    if judge_dir is not None:
        from ..evaluation.judge import run_judge_agreement

        judge_report = run_judge_agreement(settings_from(ctx).llm, Path(judge_dir), split,
                                           lambda n, t: err.print(f"judged {n}/{t}", highlight=False))
        click.echo(json.dumps(judge_report) if as_json else json.dumps(judge_report, indent=1))
        return
    if answers_demo is not None:
        from ..evaluation.console import progress_bars
        from ..evaluation.demo_answers import default_paths, format_demo_report, load_questions, run_demo_answers

        rows = [r for r in load_questions([Path(p) for p in answers_files] or default_paths())
                if split == "all" or ("heldout" in r.get("split", "")) == (split == "heldout")][:limit_queries]
        data_dir = Path(cache_dir) if cache_dir else Path(answers_demo) / "data"
        with progress_bars(err) as progress:
            demo_report = run_demo_answers(rows, Path(answers_demo), data_dir, progress)
        click.echo(json.dumps(demo_report) if as_json else format_demo_report(demo_report))
        return
    if answers_dir is not None:
        from ..evaluation.answers import format_answer_report, run_answer_eval
        from ..evaluation.console import progress_bars
        from ..evaluation.datasets import load_beir
        from ..evaluation.judge import configured_judge
        from ..settings import LLMSettings

        settings = settings_from(ctx)
        judge = configured_judge(settings.llm)[1] if with_judge else None
        if no_narration:
            settings = settings.model_copy(update={"llm": LLMSettings()})
        if ceiling:
            from ..evaluation.ceiling import format_ceiling, run_ceiling

            with progress_bars(err) as progress:
                found = run_ceiling(load_beir(answers_dir), embedder_name=embedder_name, base_settings=settings,
                                    limit_queries=limit_queries, split=split, progress=progress,
                                    cache_root=Path(cache_dir) if cache_dir else None)
            click.echo(json.dumps(found) if as_json else format_ceiling(found))
            return
        with progress_bars(err) as progress:
            answer_report = run_answer_eval(load_beir(answers_dir), embedder_name=embedder_name,
                                            base_settings=settings, limit_queries=limit_queries, split=split,
                                            cache_root=Path(cache_dir) if cache_dir else None, progress=progress,
                                            judge=judge)
        click.echo(json.dumps(answer_report) if as_json else format_answer_report(answer_report))
        return
    if intents_files:
        from ..evaluation.intents import format_intent_report, load_labelled, run_intent_eval, tier1_timing

        if tier1_only:
            timing = tier1_timing([r["query"] for r in load_labelled(list(intents_files))])
            click.echo(json.dumps(timing) if as_json else format_intent_report({"tier1_timing": timing}))
            return
        settings = settings_from(ctx).model_copy(update={"embedder": embedder_name})
        intent_report = run_intent_eval(list(intents_files), settings)
        if fidelity_demo is not None:
            from ..evaluation.intent_fidelity import run_demo_fidelity

            intent_report["fidelity"] = run_demo_fidelity(load_labelled(list(intents_files)), Path(fidelity_demo))
        click.echo(json.dumps(intent_report) if as_json else format_intent_report(intent_report))
        return
    if dataset_dir is None:
        raise click.UsageError("give --dataset (retrieval scores), --answers (answer quality) or --intents "
                               "(intent accuracy)")
    from ..evaluation.console import eval_table, progress_bars
    from ..evaluation.datasets import load_beir
    from ..evaluation.runner import run_eval

    dataset = load_beir(dataset_dir, qrels_file)
    with progress_bars(err) as progress:
        report = run_eval(dataset, retrievers.split(","), embedder_name=embedder_name, base_settings=settings_from(ctx),
                          cache_root=Path(cache_dir) if cache_dir else None, limit_queries=limit_queries,
                          progress=progress, split=split)
    if as_json:
        click.echo(json.dumps(report.as_json()))
    else:
        out.print(eval_table(report))


@main.command()
@click.option("--suite", default="all", show_default=True,
              help="Comma-separated: keyword, vector, scaling, ingest, memory, threads, auditor, or all.")
@click.option("--sizes", default="10000,100000", show_default=True, help="Chunk counts for the scaling suite.")
@click.option("--dataset", "dataset_dir", type=click.Path(file_okay=False), default=None,
              help="SciFact in BEIR layout (default ../shared/datasets/beir_scifact when present).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
@click.pass_context
@handles_errors
def bench(ctx: click.Context, suite: str, sizes: str, dataset_dir: str | None, as_json: bool) -> None:
    """Speed side by side in one process: keyword vs bm25s, vector vs numpy, scaling, ingest, memory."""
    from ..evaluation.bench import run_bench
    from ..evaluation.console import bench_table, progress_bars

    with progress_bars(err) as progress:
        result = run_bench(suite, sizes, dataset_dir=dataset_dir, base_settings=settings_from(ctx), progress=progress)
    if as_json:
        click.echo(json.dumps(result))
    else:
        for name, figures in result["suites"].items():
            out.print(bench_table(name, figures))


@main.command()
@click.option("--since", default="24h", show_default=True, help="Start: a duration back from now (30m, 24h, 7d) "
              "or an ISO date/datetime (UTC).")
@click.option("--until", default=None, help="End (same forms; default now).")
@click.option("--tenant", default=None, help="Only this tenant's requests (default: every tenant).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
@click.pass_context
@handles_errors
def report(ctx: click.Context, since: str, until: str | None, tenant: str | None, as_json: bool) -> None:
    """Traffic per tier, shadow disagreement, p50/p95 per stage, degraded reasons, tokens and cost."""
    import datetime as dt

    from ..telemetry.report import render_report
    from ..telemetry.wiring import parse_when, period_report

    now = dt.datetime.now(dt.UTC)
    rep = period_report(settings_from(ctx), parse_when(since, now), parse_when(until, now) if until else now,
                        tenant=tenant)
    click.echo(json.dumps(rep.as_dict(), default=str) if as_json else render_report(rep))


# ---------------------------------------------------------------------------------------------- serve, mcp, keys


@main.command()
@click.option("--host", help="Interface to bind (default: settings api.host, 127.0.0.1).")
@click.option("--port", type=click.IntRange(0, 65535), help="Port (default: settings api.port, 8000; 0 picks one).")
@click.option("--require-keys", is_flag=True, help="Turn local mode off: every request needs an API key.")
@click.pass_context
@handles_errors
def serve(ctx: click.Context, host: str | None, port: int | None, require_keys: bool) -> None:
    """Serve the HTTP API and the web page; prints the URL once the port is bound."""
    import socket

    import uvicorn

    from .api import create_app
    from .api.app import is_loopback_name, uvicorn_config

    settings = settings_from(ctx)
    if require_keys:
        settings = settings.model_copy(update={"api": settings.api.model_copy(update={"local_mode": False})})
    host = host or settings.api.host
    if settings.api.local_mode and not settings.api.local_mode_network and not is_loopback_name(host):
        # local mode's one trusted user is whoever reaches the port (tests/security/test_local_mode_network.py)
        raise click.UsageError(
            f"local mode has no API keys: served on {host} it makes every client that can reach the address an "
            "admin over every tenant. Serve with --require-keys (and `groundsearch keys create`), bind a loopback "
            "address, or set api.local_mode_network = true (GROUNDSEARCH_LOCAL_MODE_NETWORK=true) when the port "
            "is private anyway")
    # the app refuses Host names that are not loopback ones when it is bound to loopback (local mode)
    settings = settings.model_copy(update={"api": settings.api.model_copy(update={"host": host})})
    port = settings.api.port if port is None else port
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror}; choose another --port") from exc
    bound = sock.getsockname()[1]
    # listen now, before the URL is printed: a bound socket that is not yet listening refuses connections, and
    # uvicorn only listens once the engine is open and the app built — under load a client that read the URL got
    # "connection refused" (tests/security/test_proxy.py in a fresh-clone CI). Until uvicorn accepts, connections
    # wait in the backlog (uvicorn's own listen() on the same socket is harmless).
    sock.listen(2048)
    with open_engine(ctx, shared=False) as engine:
        engine.start_background_embedding()
        app = create_app(engine, settings)
        shown = f"[{host}]" if family == socket.AF_INET6 else host
        click.echo(f"groundsearch serving on http://{shown}:{bound}/ "
                   f"({'local mode, no API keys' if settings.api.local_mode else 'API keys required'}) "
                   f"- Ctrl+C to stop", err=False)
        sys.stdout.flush()
        uvicorn.Server(uvicorn_config(app, settings)).run(sockets=[sock])


@main.command()
@click.option("--tenant", default=None, help="The one tenant the tool sees (default: mcp.tenant, else '').")
@click.option("--all-tenants", is_flag=True, help="Let the tool see every tenant together.")
@click.pass_context
@handles_errors
def mcp(ctx: click.Context, tenant: str | None, all_tenants: bool) -> None:
    """Serve the MCP `find`, `feedback` and `chat` tools over stdio (for MCP clients such as desktop assistants),
    scoped to one tenant."""
    from .mcp_server import run_stdio, tenant_scope

    settings = settings_from(ctx)
    if tenant is not None or all_tenants:
        if tenant is not None and all_tenants:
            raise click.UsageError("give either --tenant or --all-tenants, not both")
        scope = {"tenant": tenant or "", "all_tenants": all_tenants}
        settings = settings.model_copy(update={"mcp": settings.mcp.model_copy(update=scope)})
    tenant_scope(settings)  # a reserved scope exits 2 before the store is opened
    run_stdio(settings)


@main.group()
def keys() -> None:
    """Manage API keys (stored hashed in the keys file; used when local mode is off)."""


def _key_store(ctx: click.Context) -> Any:
    from .api.auth import KeyStore, keys_path

    return KeyStore(keys_path(settings_from(ctx)))


@keys.command("create")
@click.option("--role", type=click.Choice(["viewer", "editor", "admin"]), required=True)
@click.option("--tenant", default=None,
              help="Tenant the key is scoped to (required unless --all-tenants; --tenant '' is the default tenant).")
@click.option("--all-tenants", is_flag=True, help="An operator admin key for every tenant (admin only).")
@click.option("--label", default="", help="A note to recognise the key by.")
@click.pass_context
@handles_errors
def keys_create(ctx: click.Context, role: str, tenant: str | None, all_tenants: bool, label: str) -> None:
    """Create a key and print it once (only its hash is stored). Its scope is always explicit."""
    if (tenant is None) == (not all_tenants):
        raise click.UsageError("give the key's scope: --tenant T (--tenant '' for the default tenant), or "
                               "--all-tenants for an operator admin key")
    if all_tenants and role != "admin":
        raise click.UsageError("--all-tenants is for admin keys only")
    store = _key_store(ctx)
    record, key = store.create(role, tenant=tenant or "", all_tenants=all_tenants, label=label)
    scope = "all tenants" if record.all_tenants else f"tenant {record.tenant!r}"
    err.print(f"created key {record.id} ({record.role}, {scope}) in {store.path}; it is shown only now:",
              highlight=False)
    click.echo(key)


@keys.command("list")
@click.pass_context
@handles_errors
def keys_list(ctx: click.Context) -> None:
    """List keys (ids, roles, tenants; never the keys themselves)."""
    table = Table(title="API keys")
    for col in ("id", "role", "tenant", "label", "created"):
        table.add_column(col)
    for r in _key_store(ctx).records():
        table.add_row(r.id, r.role, "(all tenants)" if r.all_tenants else repr(r.tenant), r.label, r.created_at)
    out.print(table)


@keys.command("revoke")
@click.argument("key_id")
@click.pass_context
@handles_errors
def keys_revoke(ctx: click.Context, key_id: str) -> None:
    """Revoke a key by id; requests using it fail with 401 from then on, and its feedback marks are deleted
    (they stop counting in its tenant's ranking)."""
    from .api.auth import marks_left

    store = _key_store(ctx)
    record = store.get(key_id)
    store.revoke(key_id)
    marks = 0
    if record is not None and not record.all_tenants:  # operators share owner '': their marks are no key's
        try:
            with _existing_telemetry(settings_from(ctx)) as telemetry:
                marks = telemetry.delete_owner_feedback(record.tenant, key_id) if telemetry is not None else 0
        except Exception as exc:  # the revoke is done: "error: the database is damaged" would say it failed
            err.print(f"revoked {key_id}; warning: {marks_left(key_id, record.tenant, str(exc) or type(exc).__name__)}",
                      highlight=False)
            sys.exit(1)
    err.print(f"revoked {key_id}" + (f" and deleted its {marks} feedback mark(s)" if marks else ""), highlight=False)


@contextlib.contextmanager
def _existing_telemetry(settings: Settings) -> Any:
    """The deployment's telemetry store (the server's database, or the file beside the embedded store), or
    ``None`` when telemetry is off or no file exists yet (then there are no marks, and no file is created)."""
    from ..store.sqlite_telemetry import FILE_NAME
    from ..telemetry.wiring import open_telemetry

    if not settings.telemetry.enabled or (not settings.database_url
                                          and not (settings.data_dir / "store" / FILE_NAME).exists()):
        yield None
        return
    telemetry = open_telemetry(settings)
    try:
        yield telemetry
    finally:
        telemetry.close()


@keys.command("purge-conversations")
@click.option("--yes", is_flag=True, help="Delete them; without it, only list what would be deleted.")
@click.pass_context
@handles_errors
def keys_purge_conversations(ctx: click.Context, yes: bool) -> None:
    """Delete the conversations no key reaches any more (revoked keys', and ones stored before owners existed),
    and the feedback marks of keys that no longer exist.

    Operators' and MCP conversations and every live key's are kept. Lists per tenant and owner, never content."""
    from ..assistant.purge import purge_unreachable, purge_unreachable_marks
    from ..store.chat_open import open_conversations

    store = _key_store(ctx)
    if not store.path.exists():
        raise InvalidInput(f"no API keys file at {store.path}: every key's conversations would count as "
                           "unreachable; point --config or GROUNDSEARCH_KEYS_FILE at the server's keys file",
                           details={"field": "api.keys_file"})

    def live() -> list[tuple[str, str]]:
        return [(r.tenant, r.id) for r in store.records() if not r.all_tenants]

    conversations = open_conversations(settings_from(ctx))
    try:
        found = purge_unreachable(conversations, live, dry_run=not yes)
    finally:
        conversations.close()
    with _existing_telemetry(settings_from(ctx)) as telemetry:
        marks = [] if telemetry is None else purge_unreachable_marks(telemetry, live, dry_run=not yes)
    verb = "deleted" if yes else "would delete (run again with --yes)"
    for what, owners in (("conversation(s)", found), ("feedback mark(s)", marks)):
        for u in owners:
            who = f"key {u.owner}" if u.owner else "no owner (stored before owners)"
            click.echo(f"tenant {u.tenant!r}\t{who}\t{u.conversations} {what}")
        err.print(f"{verb}: {sum(u.conversations for u in owners)} {what} of {len(owners)} unreachable owner(s)",
                  highlight=False)
