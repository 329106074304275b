"""Answer quality on a BEIR-layout set whose queries carry gold ``answers``: the engine behind ``eval --answers``.

Every question goes through ``Engine.search`` — intent, plan, retrieval, gate, synthesis and audit, the
path users get — and its prose is scored against the gold strings and the qrels:

* **answer recall** — a gold string (or alias) in the one-line answer, and anywhere in the prose;
* **citation precision** — the share of cited evidence that the qrels call relevant;
* **support rate** — the share of prose sentences the audit passed (``verified``);
* **abstention** — the prose says it found no answer (the gate's notice, or synthesis saying so);
* **conflict flagged** — the prose says its sources disagree; **fake stated** — a ``fake_answers`` string
  is in the one-line answer.

A set with ``doc_labels.tsv`` (RGB: ``positive``, ``positive_wrong``, ``negative`` snippets per question) is
run in the three RGB conditions by restricting each search to that question's snippets with an ``_id``
filter: ``positive`` (answerable: recall, false abstention, false conflicts), ``negative`` (only
snippets that hold no answer: abstention) and ``counterfactual`` (``positive`` beside ``positive_wrong``:
the conflict must be flagged). Any other set is run ``open`` (the whole corpus is searched: every question is
answerable, so abstaining is false abstention) and ``no_relevant``, a negatives-only condition built from the
qrels (protocol: ``data/musique_abstain.txt``): the question's own open page of ``NEGATIVES_POOL`` results,
minus its relevant documents, is all it may see, so the answer must say it found none. Beside its abstention
it reports ``abstention_where_open_stated``: among the questions whose open answer states a line, the share
that abstains once the relevant documents are gone (the questions whose abstention the check can test).

Latency is wall-clock per search; the plain retrieval of the same request is timed beside it, interleaved
query by query, so the ratio is measured under the same load. Figures are reported for all questions and
for the tuning and held-out halves named in ``data/answers_heldout.json``.
"""

from __future__ import annotations

import csv
import json
import re
import time
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import InvalidInput
from ..types import SearchRequest, SearchResponse
from .datasets import QUERIES_FILE, BeirDataset
from .metrics import percentile
from .runner import Progress, open_eval_engine

__all__ = ["AnswerCase", "AnswerScores", "CONDITIONS", "OPEN_CONDITIONS", "abstained", "answer_line", "contains_answer",
           "conflict_flagged", "load_cases", "run_answer_eval", "score_case"]

DOC_LABELS_FILE = "doc_labels.tsv"
HELDOUT_FILE = "answers_heldout.json"
OPEN_LIMIT = 20  # evidence the user sees on an open search: the answer draws on the same page
NEGATIVES_POOL = 50  # the open page the negatives-only condition draws from (the _id filter's limit too)
CONDITIONS: Mapping[str, tuple[str, ...]] = {
    "positive": ("positive",),
    "negative": ("negative",),
    "counterfactual": ("positive", "positive_wrong"),
}
OPEN_CONDITIONS = ("open", "no_relevant")  # a set without doc labels (see the module docstring)


@dataclass(frozen=True, slots=True)
class AnswerCase:
    qid: str
    text: str
    answers: tuple[str, ...]
    fake_answers: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CaseResult:
    qid: str
    line_hit: bool
    prose_hit: bool
    has_line: bool
    cited: int
    cited_relevant: int
    sentences: int
    verified: int
    abstained: bool
    conflict: bool
    fake_stated: bool
    answer_ms: float
    retrieve_ms: float
    judged: bool | None = None  # the LLM judge's verdict on the prose (None: no judge, or it failed)
    narrated: bool = False  # the prose is the LLM's (not the extractive fallback)


@dataclass(frozen=True, slots=True)
class AnswerScores:
    queries: int
    answer_line_recall: float
    prose_recall: float
    answer_line_rate: float
    citation_precision: float
    support_rate: float
    abstention: float
    conflict_flagged: float
    fake_stated: float
    p50_ms: float
    p95_ms: float
    retrieve_p50_ms: float
    retrieve_p95_ms: float
    narrated: float = 0.0  # share of answers the LLM narrated (the rest fell back to extractive)
    judge_faithful: float | None = None  # share of judged answers the LLM judge called supported
    judged: int = 0

    def as_json(self) -> dict[str, float | None]:
        out: dict[str, float | None] = {k: None if getattr(self, k) is None else round(getattr(self, k), 4)
                                        for k in self.__slots__}  # type: ignore[attr-defined]
        out["p95_ratio_to_retrieval"] = round(self.p95_ms / self.retrieve_p95_ms, 2) if self.retrieve_p95_ms else 0.0
        return out


# ---- reading the gold answers -----------------------------------------------------------------------


def load_cases(dataset: BeirDataset) -> dict[str, AnswerCase]:
    """The evaluated queries with their gold ``answers`` (and RGB's ``meta.fake_answers``)."""
    path = dataset.path / QUERIES_FILE
    cases: dict[str, AnswerCase] = {}
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            obj = json.loads(line)
            qid = str(obj["_id"])
            if qid not in dataset.queries:
                continue
            answers = obj.get("answers")
            if not isinstance(answers, list) or not answers or not all(isinstance(a, str) for a in answers):
                raise InvalidInput(f"{path}, line {n}: 'answers' must be a non-empty list of strings for an "
                                   f"answers eval", details={"path": str(path), "line": n})
            fakes = (obj.get("meta") or {}).get("fake_answers") or ()
            cases[qid] = AnswerCase(qid, dataset.queries[qid], tuple(answers), tuple(str(f) for f in fakes))
    return cases


def load_doc_labels(dataset: BeirDataset) -> dict[str, dict[str, list[str]]] | None:
    """query id → kind → doc ids, from ``doc_labels.tsv`` when the set has one."""
    path = dataset.path / DOC_LABELS_FILE
    if not path.is_file():
        return None
    labels: dict[str, dict[str, list[str]]] = {}
    with open(path, encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            labels.setdefault(row["query-id"], {}).setdefault(row["label"], []).append(row["corpus-id"])
    return labels


def heldout_ids(dataset: BeirDataset) -> frozenset[str]:
    doc = json.loads(resources.files("groundsearch.evaluation.data").joinpath(HELDOUT_FILE).read_text("utf-8"))
    return frozenset(doc["heldout"].get(dataset.name, ()))


def only_split(dataset: BeirDataset, split: str) -> BeirDataset:
    """``dataset`` cut to one half of its committed split (``heldout`` / ``tune``); ``all`` keeps it whole."""
    if split == "all":
        return dataset
    held = heldout_ids(dataset)
    return dataset.only([q for q in dataset.queries if (q in held) == (split == "heldout")])


# ---- judging one answer -----------------------------------------------------------------------------


def _norm(text: str) -> str:
    """SQuAD-style answer normalisation: case, accents, punctuation and articles do not count."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c)).casefold()
    text = re.sub(r"[^\w\s]", " ", text)
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def contains_answer(text: str, answers: Sequence[str]) -> bool:
    """A gold string occurs in ``text`` as whole words, after normalisation."""
    hay = f" {_norm(text)} "
    return any(f" {_norm(a)} " in hay for a in answers if _norm(a))


def answer_line(response: SearchResponse) -> str | None:
    from ..answer.extractive import ANSWER_PREFIX

    first = response.prose.sentences[0].text if response.prose.sentences else ""
    return first[len(ANSWER_PREFIX):] if first.startswith(ANSWER_PREFIX) else None


def abstained(response: SearchResponse) -> bool:
    """The prose says no answer was found: the gate's notice, synthesis' own, or no prose at all."""
    from ..answer.extractive import NO_ANSWER
    from ..orchestrate import NOTHING_RELEVANT

    text = response.prose.text
    return not response.prose.sentences or NOTHING_RELEVANT in text or NO_ANSWER in text


def conflict_flagged(response: SearchResponse) -> bool:
    from ..answer.extractive import CONFLICT_PREFIX

    return any(s.text.startswith(CONFLICT_PREFIX) for s in response.prose.sentences)


def score_case(case: AnswerCase, response: SearchResponse, relevant: set[str], answer_ms: float,
               retrieve_ms: float, judged: bool | None = None) -> CaseResult:
    docs = {r.id: doc_id_of_out(r) for r in response.results}
    cited = list(dict.fromkeys(c for s in response.prose.sentences for c in s.citations))
    line = answer_line(response)
    return CaseResult(
        qid=case.qid,
        line_hit=line is not None and contains_answer(line, case.answers),
        prose_hit=contains_answer(response.prose.text, case.answers),
        has_line=line is not None,
        cited=len(cited),
        cited_relevant=sum(1 for c in cited if docs.get(c) in relevant),
        sentences=len(response.prose.sentences),
        verified=sum(1 for s in response.prose.sentences if s.verified),
        abstained=abstained(response),
        conflict=conflict_flagged(response),
        fake_stated=line is not None and contains_answer(line, case.fake_answers),
        answer_ms=answer_ms,
        retrieve_ms=retrieve_ms,
        judged=judged,
        narrated=response.prose.mode == "llm",
    )


def doc_id_of_out(result: Any) -> str:
    return _doc_id(result.fields, result.item_id)


def _doc_id(fields: Mapping[str, Any], item_id: str) -> str:
    value = fields.get("_id")
    return str(value) if value is not None else item_id.split(":", 1)[-1]


def aggregate(results: Sequence[CaseResult]) -> AnswerScores:
    n = len(results) or 1
    cited = sum(r.cited for r in results)
    sentences = sum(r.sentences for r in results)
    return AnswerScores(
        queries=len(results),
        answer_line_recall=sum(r.line_hit for r in results) / n,
        prose_recall=sum(r.prose_hit for r in results) / n,
        answer_line_rate=sum(r.has_line for r in results) / n,
        citation_precision=sum(r.cited_relevant for r in results) / cited if cited else 0.0,
        support_rate=sum(r.verified for r in results) / sentences if sentences else 0.0,
        abstention=sum(r.abstained for r in results) / n,
        conflict_flagged=sum(r.conflict for r in results) / n,
        fake_stated=sum(r.fake_stated for r in results) / n,
        p50_ms=percentile([r.answer_ms for r in results], 50),
        p95_ms=percentile([r.answer_ms for r in results], 95),
        retrieve_p50_ms=percentile([r.retrieve_ms for r in results], 50),
        retrieve_p95_ms=percentile([r.retrieve_ms for r in results], 95),
        narrated=sum(r.narrated for r in results) / n,
        judge_faithful=(sum(bool(r.judged) for r in results if r.judged is not None) /
                        max(1, sum(r.judged is not None for r in results))) if any(r.judged is not None for r in results)
        else None,
        judged=sum(r.judged is not None for r in results),
    )


# ---- running --------------------------------------------------------------------------------------------


def _requests(cases: Mapping[str, AnswerCase], labels: Mapping[str, Mapping[str, list[str]]] | None,
              condition: str) -> dict[str, SearchRequest]:
    if labels is None:
        return {q: SearchRequest(query=c.text, limit=OPEN_LIMIT) for q, c in cases.items()}
    out = {}
    for q, c in cases.items():
        ids = [d for kind in CONDITIONS[condition] for d in labels.get(q, {}).get(kind, ())]
        if ids:  # a question without snippets of this kind says nothing about the condition
            out[q] = SearchRequest(query=c.text, limit=min(len(ids), 50), filters={"_id": ids[:50]})
    return out


def _without_relevant(engine: Any, cases: Mapping[str, AnswerCase],
                      qrels: Mapping[str, Mapping[str, int]]) -> dict[str, SearchRequest]:
    """The negatives-only requests of an open set: each question restricted to its own open page of
    ``NEGATIVES_POOL`` results minus the documents its qrels call relevant — hard negatives, on the topic
    and chosen by the retriever, as RGB's negatives are by a search engine."""
    out = {}
    for q, c in cases.items():
        relevant = {d for d, g in qrels.get(q, {}).items() if g > 0}
        evidence = plain_retrieval(engine, SearchRequest(query=c.text, limit=NEGATIVES_POOL))
        docs = dict.fromkeys(_doc_id(h.item.fields, h.item.id) for h in evidence.hits)
        ids = [d for d in docs if d not in relevant][:NEGATIVES_POOL]
        if ids:
            out[q] = SearchRequest(query=c.text, limit=OPEN_LIMIT, filters={"_id": ids})
    return out


def _plan(engine: Any, request: SearchRequest) -> Any:
    pipeline = engine.answer_pipeline()
    if hasattr(pipeline, "plan"):
        return pipeline.plan(request)[1]
    return engine.plan(request)  # engines from before the orchestrator took over planning


def plain_retrieval(engine: Any, request: SearchRequest) -> Any:
    """The same request classified, planned and retrieved, with no answer built: the latency baseline."""
    return engine.retrieve(_plan(engine, request))


def _timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    t = time.perf_counter()
    value = fn()
    return value, (time.perf_counter() - t) * 1000


def judged_prose(judge: Callable[[str, str, str], bool | None], store: Any, question: str,
                 response: SearchResponse) -> bool | None:
    """The judge's verdict on the prose against the full text of the passages it cites (the first three
    shown when it cites none)."""
    if not response.prose.sentences:
        return None
    cited = list(dict.fromkeys(c for s in response.prose.sentences for c in s.citations))
    ids = cited or [r.id for r in response.results[:3]]
    views = store.chunks(ids)
    passages = [" ".join(views[i].chunk.text.split()) for i in ids if i in views]
    return judge(question, "\n\n".join(passages), response.prose.text)


def run_condition(engine: Any, cases: Mapping[str, AnswerCase], requests: Mapping[str, SearchRequest],
                  qrels: Mapping[str, Mapping[str, int]], tick: Callable[[int], None],
                  judge: Callable[[str, str, str], bool | None] | None = None,
                  seen: Callable[[str, SearchResponse], None] | None = None) -> list[CaseResult]:
    """``seen(qid, response)``, when given, receives each response (the demo eval lists its misses)."""
    results = []
    first = next(iter(requests.values()), None)
    if first is not None:  # warm-up: model sessions and index readers load lazily
        engine.search(first)
    for i, (qid, request) in enumerate(requests.items(), start=1):
        # One untimed retrieval first: the first touch of a new request (its classification, its filter's rows,
        # the index pages it reads) would otherwise fall on whichever timing runs first, and the ratio would not
        # be the answer's own cost against retrieval's.
        plain_retrieval(engine, request)
        engine.retriever.clear_cache()  # both timings embed the query afresh
        _, retrieve_ms = _timed(lambda r=request: plain_retrieval(engine, r))
        engine.retriever.clear_cache()
        response, answer_ms = _timed(lambda r=request: engine.search(r))
        relevant = {d for d, g in qrels.get(qid, {}).items() if g > 0}
        verdict = judged_prose(judge, engine.store, cases[qid].text, response) if judge is not None else None
        results.append(score_case(cases[qid], response, relevant, answer_ms, retrieve_ms, verdict))
        if seen is not None:
            seen(qid, response)
        tick(i)
    return results


def run_answer_eval(dataset: BeirDataset, *, embedder_name: str = "minilm", embedder: Any = None,
                    base_settings: Any = None, cache_root: Path | None = None, limit_queries: int | None = None,
                    progress: Progress | None = None, split: str = "all",
                    judge: Callable[[str, str, str], bool | None] | None = None) -> dict[str, Any]:
    """Scores per condition and split, as one JSON-ready dict (see the module docstring). ``split``
    (heldout / tune) keeps only that half before ``limit_queries`` takes its first N; ``judge(question,
    passages, prose)`` adds the LLM judge's faithfulness column."""
    if limit_queries is not None and limit_queries < 1:
        raise InvalidInput("--limit-queries must be at least 1", details={"field": "limit_queries"})
    dataset = only_split(dataset, split)
    data = dataset.limited(limit_queries)
    cases = load_cases(data)
    labels = load_doc_labels(data)
    report = progress or (lambda task, done, total: None)
    engine = open_eval_engine(data, embedder_name=embedder_name, embedder=embedder, base_settings=base_settings,
                              cache_root=cache_root, progress=report)
    heldout = heldout_ids(data)
    out: dict[str, Any] = {"dataset": data.name, "queries": len(cases), "embedder": engine.embedder.model_id,
                           "split": split, "llm": getattr(engine.llm, "name", None),
                           "heldout_queries": len(heldout & set(cases)), "conditions": {}}
    stated: set[str] = set()  # questions whose open answer states a line
    try:
        for condition in (OPEN_CONDITIONS if labels is None else tuple(CONDITIONS)):
            if condition == "no_relevant":
                requests = _without_relevant(engine, cases, data.qrels)
            else:
                requests = _requests(cases, labels, condition)
            report(condition, 0, len(requests))
            results = run_condition(engine, cases, requests, data.qrels,
                                    lambda n, c=condition, t=len(requests): report(c, n, t), judge)
            if condition == "open":
                stated = {r.qid for r in results if r.has_line}
            splits = {"all": results, "tune": [r for r in results if r.qid not in heldout],
                      "heldout": [r for r in results if r.qid in heldout]}
            out["conditions"][condition] = {name: aggregate(rs).as_json() for name, rs in splits.items() if rs}
            if condition == "no_relevant":
                for name, rs in splits.items():
                    tested = [r for r in rs if r.qid in stated]
                    if rs:
                        out["conditions"][condition][name]["open_stated"] = len(tested)
                        out["conditions"][condition][name]["abstention_where_open_stated"] = (
                            round(sum(r.abstained for r in tested) / len(tested), 4) if tested else None)
    finally:
        engine.close()
    return out


def format_answer_report(report: Mapping[str, Any]) -> str:
    cols = ("queries", "prose_recall", "answer_line_recall", "citation_precision", "support_rate", "abstention",
            "conflict_flagged", "fake_stated", "p50_ms", "p95_ms", "p95_ratio_to_retrieval", "narrated",
            "judge_faithful")
    lines = [f"{report['dataset']}: {report['queries']} questions ({report['heldout_queries']} held out), "
             f"embedder {report['embedder']}", "condition/split       " + " ".join(f"{c[:10]:>10}" for c in cols)]
    for condition, splits in report["conditions"].items():
        for split, scores in splits.items():
            lines.append(f"{condition + '/' + split:22}" + " ".join(f"{str(scores.get(c)):>10}" for c in cols))
    return "\n".join(lines)
