"""Load an evaluation set in BEIR layout: ``corpus.jsonl``, ``queries.jsonl`` and ``qrels.tsv``.

Only queries that appear in the qrels are evaluated (BEIR's ``queries.jsonl`` often holds train and test
claims together; the qrels file picks the split). Every problem is reported as
:class:`~groundsearch.errors.InvalidInput` naming the file, the line and what was wrong, because a
silently skipped line would quietly change the figures.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InvalidInput

__all__ = ["BeirDataset", "CorpusDoc", "load_beir", "read_corpus", "read_qrels", "read_queries"]

CORPUS_FILE = "corpus.jsonl"
QUERIES_FILE = "queries.jsonl"
QRELS_FILE = "qrels.tsv"


@dataclass(frozen=True, slots=True)
class CorpusDoc:
    id: str
    title: str
    text: str


@dataclass(frozen=True, slots=True)
class BeirDataset:
    """One dataset, fully in memory (BEIR sets used here are a few MB).

    ``queries`` holds only the evaluated queries (those with qrels), in qrels order; ``content_hash`` is
    the SHA-256 of the corpus file's bytes, which keys the cached ingested index.
    """

    name: str
    path: Path
    corpus: tuple[CorpusDoc, ...]
    queries: Mapping[str, str]
    qrels: Mapping[str, Mapping[str, int]]
    content_hash: str

    @property
    def corpus_file(self) -> Path:
        return self.path / CORPUS_FILE

    def only(self, query_ids: Sequence[str]) -> BeirDataset:
        """The dataset with only ``query_ids`` evaluated (a held-out or tuning half), in the file's order."""
        keep = [q for q in self.queries if q in set(query_ids)]
        return BeirDataset(name=self.name, path=self.path, corpus=self.corpus,
                           queries={q: self.queries[q] for q in keep}, qrels={q: self.qrels.get(q, {}) for q in keep},
                           content_hash=self.content_hash)

    def limited(self, n: int | None) -> BeirDataset:
        """The first ``n`` evaluated queries (all when ``n`` is None): for quick runs, never for reported figures."""
        if n is None or n >= len(self.queries):
            return self
        keep = list(self.queries)[:n]
        return BeirDataset(
            name=self.name,
            path=self.path,
            corpus=self.corpus,
            queries={q: self.queries[q] for q in keep},
            qrels={q: self.qrels[q] for q in keep},
            content_hash=self.content_hash,
        )


def _bad(path: Path, reason: str, line: int | None = None) -> InvalidInput:
    where = f"{path}, line {line}" if line is not None else str(path)
    details: dict[str, Any] = {"path": str(path), "reason": reason}
    if line is not None:
        details["line"] = line
    return InvalidInput(f"{where}: {reason}", details=details)


def _require(path: Path) -> Path:
    if not path.is_file():
        raise _bad(path, "file not found (a BEIR folder holds corpus.jsonl, queries.jsonl and qrels.tsv)")
    return path


def _json_lines(path: Path) -> list[tuple[int, dict[str, Any]]]:
    rows = []
    with open(_require(path), encoding="utf-8") as fh:
        for n, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise _bad(path, f"not valid JSON ({exc.msg})", n) from exc
            if not isinstance(obj, dict):
                raise _bad(path, "each line must be a JSON object", n)
            rows.append((n, obj))
    return rows


def _id(path: Path, obj: Mapping[str, Any], line: int) -> str:
    raw = obj.get("_id")
    if isinstance(raw, bool) or not isinstance(raw, (str, int)) or str(raw).strip() == "":
        raise _bad(path, "missing or empty '_id' (a string or integer)", line)
    return str(raw)


def _text(path: Path, obj: Mapping[str, Any], key: str, line: int, *, required: bool) -> str:
    raw = obj.get(key)
    if raw is None and not required:
        return ""
    if not isinstance(raw, str):
        raise _bad(path, f"'{key}' must be a string" if key in obj else f"missing '{key}'", line)
    return raw


def read_corpus(path: Path) -> tuple[CorpusDoc, ...]:
    docs: list[CorpusDoc] = []
    seen: set[str] = set()
    for n, obj in _json_lines(path):
        doc_id = _id(path, obj, n)
        if doc_id in seen:
            raise _bad(path, f"duplicate _id {doc_id!r}", n)
        seen.add(doc_id)
        docs.append(CorpusDoc(doc_id, _text(path, obj, "title", n, required=False), _text(path, obj, "text", n,
                                                                                          required=True)))
    if not docs:
        raise _bad(path, "the corpus is empty")
    return tuple(docs)


def read_queries(path: Path) -> dict[str, str]:
    queries: dict[str, str] = {}
    for n, obj in _json_lines(path):
        qid = _id(path, obj, n)
        text = _text(path, obj, "text", n, required=True)
        if not text.strip():
            raise _bad(path, f"query {qid!r} has empty text", n)
        queries[qid] = text
    return queries


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    """``query-id <TAB> corpus-id <TAB> score`` rows; a header row is recognised by its non-integer score."""
    qrels: dict[str, dict[str, int]] = {}
    header_allowed = True
    with open(_require(path), encoding="utf-8") as fh:
        for n, line in enumerate(fh, start=1):
            line = line.rstrip("\r\n")
            if not line.strip():
                continue
            cols = line.split("\t")
            if len(cols) != 3:
                raise _bad(path, f"expected 3 tab-separated columns (query-id, corpus-id, score), got {len(cols)}",
                           n)
            qid, doc_id, raw = (c.strip() for c in cols)
            first, header_allowed = header_allowed, False
            try:
                grade = int(raw)
            except ValueError:
                if first:
                    continue
                raise _bad(path, f"score {raw!r} is not an integer", n) from None
            if not qid or not doc_id:
                raise _bad(path, "empty query-id or corpus-id", n)
            qrels.setdefault(qid, {})[doc_id] = grade
    if not qrels:
        raise _bad(path, "no judgements found")
    return qrels


def _hash_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def load_beir(folder: str | Path, qrels_file: str | Path | None = None) -> BeirDataset:
    """Read and check a BEIR folder. Queries in qrels but missing from ``queries.jsonl`` are an error.

    ``qrels_file`` picks other judgements than the folder's ``qrels.tsv`` (SciFact's ``qrels_train.tsv``, the
    tuning split); the corpus, and so the cached index, stay the folder's."""
    path = Path(folder)
    if not path.is_dir():
        raise InvalidInput(f"{path}: dataset folder not found", details={"path": str(path)})
    corpus = read_corpus(path / CORPUS_FILE)
    all_queries = read_queries(path / QUERIES_FILE)
    qrels_path = Path(qrels_file) if qrels_file is not None else path / QRELS_FILE
    qrels = read_qrels(qrels_path)
    missing = [q for q in qrels if q not in all_queries]
    if missing:
        raise _bad(qrels_path, f"{len(missing)} query ids are not in {QUERIES_FILE}, e.g. {missing[:3]}")
    return BeirDataset(
        name=path.resolve().name,
        path=path,
        corpus=corpus,
        queries={q: all_queries[q] for q in qrels},
        qrels=qrels,
        content_hash=_hash_file(path / CORPUS_FILE),
    )
