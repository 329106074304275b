"""Searchable at once: time to the first keyword hit, deferred-ingest throughput, and background embedding
against raw onnxruntime on the same texts — through the product's own ingest and embed worker.

Run: ``python -m groundsearch.evaluation.bench_deferred --dataset ../shared/datasets/beir_scifact-… \
[--backend sqlite|postgres] [--embed-docs 600]``

* The corpus is written as one Markdown file per document (a folder of notes, the common case) and
  ingested with embedding deferred, on a thread, while the main thread polls a keyword search for a word
  of the first document every 20 ms: the first hit's time after the ingest started is the figure.
* Background embedding runs :func:`~groundsearch.ingest.embed_worker.embed_pending` over the first
  ``embed_docs`` documents' chunks (store reads, SQLite/Postgres writes and vector-index updates included).
  "Raw onnxruntime" is the same texts through the tokenizer and ``InferenceSession.run`` alone, length-sorted
  and padded per batch exactly as the embedder does, with no pooling and no store. The two alternate
  (raw, worker, raw) and the ratio uses the mean of the raw runs. The worker also embeds each chunk's quotable
  sentences for answers, so both sides count chunk texts plus those sentences.
* Thread settings: raw onnxruntime on a sample at each intra-op thread count, so the chosen default is
  measured, not assumed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from ..answer.sentences import embed_text, quotable
from ..engine import Engine
from ..ingest.embed_worker import embed_pending
from ..ingest.pipeline import embedding_text
from ..settings import load_settings
from .datasets import read_corpus

__all__ = ["main", "raw_onnx_seconds"]


def write_notes(corpus: Any, folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, doc in enumerate(corpus):
        path = folder / f"d{i:05d}.md"
        path.write_text(f"# {doc.title or doc.id}\n\n{doc.text}\n", encoding="utf-8")
        paths.append(path)
    return paths


def raw_onnx_seconds(embedder: Any, texts: list[str], threads: int | None = None) -> float:
    """Tokenize + ``session.run`` over ``texts`` in the embedder's own length-sorted batches; nothing else."""
    import onnxruntime as ort

    session = embedder._session
    if threads is not None:
        from ..models.files import MINILM_MODEL, verified_path
        from ..models.onnx import session_options

        session = ort.InferenceSession(str(verified_path(MINILM_MODEL, None)), sess_options=session_options(threads),
                                       providers=["CPUExecutionProvider"])
    tok, batch = embedder._tokenizer, embedder.batch_size
    started = time.perf_counter()
    enc = tok.encode_batch(texts)
    order = sorted(range(len(texts)), key=lambda i: len(enc[i].ids))
    for s in range(0, len(order), batch):
        ids = [enc[i].ids for i in order[s : s + batch]]
        width = max(len(x) for x in ids)
        input_ids = np.zeros((len(ids), width), dtype=np.int64)
        mask = np.zeros_like(input_ids)
        for r, x in enumerate(ids):
            input_ids[r, : len(x)] = x
            mask[r, : len(x)] = 1
        session.run(["last_hidden_state"], {"input_ids": input_ids, "attention_mask": mask,
                                            "token_type_ids": np.zeros_like(input_ids)})
    return time.perf_counter() - started


def _first_hit(engine: Engine, folder: Path, probe: str) -> dict[str, Any]:
    from ..types import SearchFilter

    result: dict[str, Any] = {}

    def run() -> None:
        result["report"] = engine.ingest([folder], "docs", defer_embedding=True)

    started, cpu = time.perf_counter(), time.process_time()
    worker = threading.Thread(target=run)
    worker.start()
    first = None
    while worker.is_alive() or first is None:
        if engine.store.keyword_search(probe, SearchFilter(), 1).hits:
            first = time.perf_counter() - started
            break
        if not worker.is_alive():
            break
        time.sleep(0.02)
    worker.join()
    cpu = time.process_time() - cpu
    report = result["report"]
    return {"first_keyword_hit_s": round(first, 3) if first is not None else None,
            "files": report.files, "chunks": report.chunks_written, "ingest_s": round(report.seconds, 2),
            "chunks_per_s": round(report.chunks_written / report.seconds, 1), "cpu_s": round(cpu, 2),
            # what a quiet core would give: the machine is shared, so wall time mostly measures the queue
            "chunks_per_cpu_s": round(report.chunks_written / cpu, 1)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    ap.add_argument("--embed-docs", type=int, default=600)
    ap.add_argument("--thread-sample", type=int, default=200)
    args = ap.parse_args()
    corpus = read_corpus(Path(args.dataset) / "corpus.jsonl")
    out: dict[str, Any] = {"backend": args.backend, "docs": len(corpus), "load_before": os.getloadavg()}
    with tempfile.TemporaryDirectory(prefix="gs-bench-deferred-") as tmp:
        root = Path(tmp)
        server = None
        overrides: dict[str, Any] = {"data_dir": root / "data"}
        if args.backend == "postgres":
            import psycopg

            from ..store.pg_embedded import start_embedded_postgres

            server = start_embedded_postgres()
            with psycopg.connect(server.dsn(), autocommit=True) as conn:
                conn.execute("CREATE DATABASE deferred_a")
                conn.execute("CREATE DATABASE deferred_b")
            overrides["database_url"] = server.dsn("deferred_a")
        try:
            settings = load_settings(None, env={}, **overrides)
            write_notes(corpus, root / "all")
            probe = next(w for w in corpus[0].text.split() if len(w) > 6)
            with Engine.open(settings) as engine:
                out["deferred_ingest"] = _first_hit(engine, root / "all", probe)
                out["deferred_ingest"]["probe"] = probe
            # embedding: a fresh store holding the first embed_docs documents, text only
            sub = root / "sub"
            write_notes(corpus[: args.embed_docs], sub)
            settings_b = load_settings(None, env={}, data_dir=root / "data_b",
                                       **({"database_url": server.dsn("deferred_b")} if server else {}))
            with Engine.open(settings_b) as engine:
                engine.ingest([sub], "docs", defer_embedding=True)
                keys = engine.store.pending_vectors(0, 10**9)
                views = engine.store.hydrate(keys)
                texts = [embedding_text(views[k].item, views[k].chunk, "documents") for k in keys]
                # the worker also embeds every chunk's quotable sentences (for answers) in the same run, so
                # the raw baseline embeds those texts too, in the same two passes: chunks, then sentences
                sentences = [embed_text(s) for k in keys for s in quotable(views[k].item, views[k].chunk)]
                emb = engine.embedder
                sample = texts[: args.thread_sample]
                out["threads"] = {t: round(len(sample) / raw_onnx_seconds(emb, sample, t), 1) for t in (1, 2)}

                def raw_pass() -> float:
                    return raw_onnx_seconds(emb, texts) + (raw_onnx_seconds(emb, sentences) if sentences else 0.0)

                c0 = time.process_time()
                raw = [raw_pass()]
                c1 = time.process_time()
                report = embed_pending(engine.store, emb, {"docs": "documents"})
                c2 = time.process_time()
                raw.append(raw_pass())
                c3 = time.process_time()
                raw_cpu, worker_cpu = ((c1 - c0) + (c3 - c2)) / 2, c2 - c1
                n_texts = len(texts) + len(sentences)
                raw_rate = n_texts / statistics.mean(raw)
                worker_rate = n_texts / report.seconds
                out["embedding"] = {
                    "chunks": len(texts), "sentences": len(sentences), "sentence_chunks": report.sentence_chunks,
                    "embedder_threads": emb.threads, "batch_size": emb.batch_size,
                    "raw_onnxruntime_texts_per_s": round(raw_rate, 2),
                    "raw_runs_s": [round(r, 2) for r in raw],
                    "background_worker_texts_per_s": round(worker_rate, 2),
                    "worker_s": round(report.seconds, 2),
                    "worker_over_raw": round(worker_rate / raw_rate, 3),
                    "pending_after": report.remaining,
                    "raw_cpu_s": round(raw_cpu, 2), "worker_cpu_s": round(worker_cpu, 2),
                    "worker_over_raw_cpu": round(raw_cpu / worker_cpu, 3),
                }
        finally:
            if server is not None:
                server.stop()
    out["load_after"] = os.getloadavg()
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
