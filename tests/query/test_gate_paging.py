"""The relevance gate judges the fused candidates before paging: one query, one verdict, on every page.

Before this was fixed the gate judged only the page shown: with a threshold of 0.5 page 1 passed and the
same query at ``offset=3`` answered "nothing clearly relevant" with a ``low-confidence`` result. These tests
go through ``Engine.search`` (classify → plan → retrieve → normalize → synthesize) on a real SQLite store;
the hash embedder gives an exact text match cosine 1 and unrelated texts cosines near 0.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from groundsearch.engine import Engine
from groundsearch.models.fake import HashEmbedder
from groundsearch.orchestrate import NOTHING_RELEVANT
from groundsearch.settings import Settings
from groundsearch.types import CollectionSpec, SearchRequest

QUERY = "zebra umbrella migration"
FILLER = ["zebra grazing on savanna grass", "umbrella repair shop hours", "migration of birds in autumn",
          "zebra crossing near the school", "umbrella stand made of oak", "bird migration across the sea",
          "zebra stripes and camouflage"]


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    root = tmp_path_factory.mktemp("gate")
    docs = root / "docs"
    docs.mkdir()
    (docs / "exact.md").write_text(f"# Exact\n\n{QUERY}\n")
    for i, text in enumerate(FILLER):
        (docs / f"f{i}.md").write_text(f"# Note {i}\n\n{text}\n")
    settings = Settings(data_dir=root / "data", embedder="hash", collections=(CollectionSpec("docs", "documents"),))
    with Engine.open(settings, embedder=HashEmbedder(dim=256)) as e:
        assert e.ingest([docs], "docs").errors == ()
        yield e


def verdict(response) -> tuple[bool, bool]:  # (low-confidence shown, "nothing relevant" said)
    return (any(r.kind == "low-confidence" for r in response.structured_results),
            response.prose.text == NOTHING_RELEVANT)


def test_page_one_and_offset_three_get_the_same_verdict(engine: Engine) -> None:
    first = engine.search(SearchRequest(query=QUERY, limit=3, threshold=0.5))
    later = engine.search(SearchRequest(query=QUERY, limit=3, offset=3, threshold=0.5))
    assert first.results and later.results
    assert first.results[0].title == "Exact"  # the only candidate above 0.5 is on page 1 ...
    assert all(r.legs.get("vector", {}).get("score", 0) < 0.5 for r in later.results)  # ... and not on page 2
    assert verdict(first) == verdict(later) == (False, False)
    notes = [[n for n in r.diagnostics.degraded if n.startswith(("gate", "retrieve"))] for r in (first, later)]
    assert notes[0] == notes[1]


def test_a_failing_verdict_is_the_same_on_every_page(engine: Engine) -> None:
    pages = [engine.search(SearchRequest(query="zebra grazing", limit=2, offset=o, threshold=0.99)) for o in (0, 2, 4)]
    assert all(verdict(p)[0] for p in pages)
    lows = [next(r for r in p.structured_results if r.kind == "low-confidence") for p in pages]
    assert len({low.best_score for low in lows}) == 1  # judged on the same fused top-N, not on each page


def test_the_plan_says_what_the_gate_judges(engine: Engine) -> None:
    response = engine.search(SearchRequest(query=QUERY, limit=3, offset=3, threshold=0.5))
    plan = response.diagnostics.plan
    assert plan["gate_threshold"] == 0.5 and plan["gate_depth"] == 10
    assert any("before paging" in r for r in plan["reasons"])


def test_horizon_relaxation_is_the_same_on_every_page(tmp_path: Path) -> None:
    from groundsearch.orchestrate import Orchestrator, fold
    from groundsearch.types import Intent

    class Fixed:
        def classify(self, query: str, hints: object, **_: object) -> object:
            return type("C", (), {"intent": Intent(horizon_days=7), "cache_hit": False, "model": None,
                                  "latency_ms": {}, "degraded": ()})()

    settings = Settings(data_dir=tmp_path / "data", embedder="hash", collections=(CollectionSpec("docs", "documents"),))
    (tmp_path / "a.md").write_text("# A\n\nold zebra note\n")
    (tmp_path / "b.md").write_text("# B\n\nanother old zebra note\n")
    with Engine.open(settings, embedder=HashEmbedder(dim=64)) as e:
        e.ingest([tmp_path / "a.md", tmp_path / "b.md"], "docs")  # undated documents: outside any horizon
        o = Orchestrator(e.settings, e.retriever, Fixed())
        pages = [fold(o.run(SearchRequest(query="zebra note", limit=1, offset=off))) for off in (0, 1)]
    assert all(len(p.results) == 1 for p in pages)
    assert pages[0].results[0].id != pages[1].results[0].id  # page 2 continues page 1's relaxed ranking
    assert all(any("showing its best matches from any date" in n for n in p.diagnostics.degraded) for p in pages)
