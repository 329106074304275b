"""Where an open set's gold answer is lost on the way to the prose: ``eval --answers DATASET --ceiling``.

Each question's gold string (or alias) is followed down the path the extractive answer takes, and the
question is counted at the first stage that still holds it:

* **in prose** — the answer's prose holds it (what ``prose_recall`` counts);
* **not chosen** — a candidate sentence of the page holds it (:func:`..answer.extractive.candidates`: every
  quotable sentence of the page the answer draws on — the response's own results, so the hits a multi-hop
  follow-up added after the first page count, not only what plain retrieval returns) but the answer quoted
  others: sentence selection's loss;
* **not a candidate** — a chunk of the page holds it, or its record's title, yet no quotable sentence does
  (a title, a heading, a table row): lost to what may be quoted;
* **not retrieved** — nothing on the page holds it; **in top-100** counts those of them whose gold is in one
  of the top 100 results of the same plan: a deeper page or a second hop could reach it.

``ceiling`` is the share in prose or not chosen: what a perfect sentence selection would reach on this page.
Only an open set (no ``doc_labels.tsv``): the breakdown follows the open condition's requests.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..answer.extractive import candidates
from ..errors import InvalidInput
from ..types import EvidenceHit, SearchRequest, SearchResponse
from .answers import OPEN_LIMIT, contains_answer, load_cases, load_doc_labels, only_split, plain_retrieval
from .datasets import BeirDataset
from .runner import Progress, open_eval_engine

__all__ = ["STAGES", "answered_page", "ceiling_stage", "format_ceiling", "run_ceiling"]

DEEP = 100  # the deeper page "not retrieved" is checked against
STAGES = ("in prose", "not chosen", "not a candidate", "not retrieved")


def ceiling_stage(answers: Sequence[str], prose: str, sentences: Sequence[str], page: Sequence[str]) -> str:
    """The first stage (of :data:`STAGES`) whose text holds a gold string: the prose, the candidate
    sentences, the page's chunk texts (titles included)."""
    if contains_answer(prose, answers):
        return "in prose"
    if any(contains_answer(s, answers) for s in sentences):
        return "not chosen"
    if any(contains_answer(t, answers) for t in page):
        return "not a candidate"
    return "not retrieved"


def _texts(hits: Sequence[Any]) -> list[str]:
    return [f"{h.item.title or ''}\n{h.chunk.text}" for h in hits]


def answered_page(store: Any, response: SearchResponse) -> list[EvidenceHit]:
    """The page the answer drew on, in order: the response's results read back from the store. Plain retrieval
    of the same request misses the hits the multi-hop follow-up adds (``Orchestrator._follow_up``), so a gold
    sentence among them would be counted "not retrieved" instead of "not chosen"."""
    views = store.chunks([r.id for r in response.results])
    return [EvidenceHit(chunk=views[r.id].chunk, item=views[r.id].item, score=r.score)
            for r in response.results if r.id in views]


def run_ceiling(dataset: BeirDataset, *, embedder_name: str = "minilm", embedder: Any = None, base_settings: Any = None,
                cache_root: Path | None = None, limit_queries: int | None = None, split: str = "all",
                progress: Progress | None = None) -> dict[str, Any]:
    """Counts per stage (and the qids at each), for ``split`` (all / tune / heldout) of an open set."""
    if load_doc_labels(dataset) is not None:
        raise InvalidInput("--ceiling needs an open set (one without doc_labels.tsv)", details={"field": "ceiling"})
    dataset = only_split(dataset, split)
    data = dataset.limited(limit_queries)
    cases = load_cases(data)
    report = progress or (lambda task, done, total: None)
    engine = open_eval_engine(data, embedder_name=embedder_name, embedder=embedder, base_settings=base_settings,
                              cache_root=cache_root, progress=report)
    stages: dict[str, list[str]] = {s: [] for s in STAGES}
    deep: list[str] = []
    try:
        for i, (qid, case) in enumerate(cases.items(), start=1):
            request = SearchRequest(query=case.text, limit=OPEN_LIMIT)
            response = engine.search(request)
            page = answered_page(engine.store, response)
            stage = ceiling_stage(case.answers, response.prose.text, [c.text for c in candidates(page)], _texts(page))
            stages[stage].append(qid)
            if stage == "not retrieved":
                hits = plain_retrieval(engine, request.model_copy(update={"limit": DEEP})).hits
                if any(contains_answer(t, case.answers) for t in _texts(hits)):
                    deep.append(qid)
            report("ceiling", i, len(cases))
    finally:
        engine.close()
    n = len(cases)
    return {"dataset": data.name, "split": split, "queries": n,
            "stages": {s: len(q) for s, q in stages.items()}, "not_retrieved_in_top_100": len(deep),
            "ceiling": round((len(stages["in prose"]) + len(stages["not chosen"])) / n, 4) if n else None,
            "qids": {**stages, "in top-100": deep}}


def format_ceiling(report: Mapping[str, Any]) -> str:
    s = report["stages"]
    return "\n".join([
        f"{report['dataset']} ({report['split']}): {report['queries']} questions, ceiling {report['ceiling']}",
        f"  not retrieved    {s['not retrieved']:4}  ({report['not_retrieved_in_top_100']} of them in top-{DEEP})",
        f"  not a candidate  {s['not a candidate']:4}",
        f"  not chosen       {s['not chosen']:4}",
        f"  in prose         {s['in prose']:4}"])
