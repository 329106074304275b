"""Every drawable chart kind in real Chromium through the real app: Plotly drew the trace the result asks for,
with one mark per point, and a downgrade is announced on the page.

The intent of each request is fixed here (the cascade that names chart kinds is tested in tests/intent):
this file tests drawing, so a request always reaches normalize as the kind under test. Everything after the
classifier is real: store, MiniLM, retrieval, normalize, the SSE stream, the page, Plotly.
"""

from __future__ import annotations

import json
import types
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from groundsearch.engine import Engine
from groundsearch.settings import load_settings
from groundsearch.types import ChartResult, Hints, Intent, SearchRequest
from tests.api.live import serve

from .conftest import Page, app_for
from .test_page import search_url


class FixedIntents:
    """The classifier for the requests below; any other request goes to the real cascade."""

    def __init__(self, cascade: Any, intents: dict[str, Intent]) -> None:
        self.cascade, self.intents = cascade, intents

    def classify(self, query: str, hints: Hints | None, **_: Any) -> Any:
        if query not in self.intents:
            return self.cascade.classify(query, hints)
        return types.SimpleNamespace(intent=self.intents[query], cache_hit=False, model=None, latency_ms={},
                                     degraded=())


class ChartEngine(Engine):
    intents: dict[str, Intent] = {}

    def answer_pipeline(self) -> Any:
        pipeline = super().answer_pipeline()
        if not isinstance(pipeline.classifier, FixedIntents):
            pipeline.classifier = FixedIntents(pipeline.classifier, self.intents)
        return pipeline


def chart_intent(subtype: str, *domains: str, **kw: Any) -> Intent:
    return Intent(format="chart", chart_subtype=subtype, domains=domains, confidence=1.0, tier="hint", **kw)  # type: ignore[arg-type]


# The Plotly trace each subtype is drawn with.
TRACE = {"bar": "bar", "ranked-bar": "bar", "tornado": "bar", "stacked-bar": "bar", "histogram": "histogram",
         "line": "scatter", "area": "scatter", "timeline": "scatter", "scatter": "scatter", "bubble": "scatter",
         "pie": "pie", "donut": "pie", "treemap": "treemap", "sunburst": "sunburst", "heatmap": "heatmap", "box": "box"}

# Ordinary requests on the demo corpus, each drawn as asked — except the last two, which the demo's stored
# fields can't carry (one numeric field; no flows) and must be downgraded on the page.
DEMO_CASES: dict[str, Intent] = {
    "share of research papers on language models by venue as a pie chart": chart_intent(
        "pie", "papers", topic_keywords=("language models", "venue")),
    "retrieval augmented generation papers by venue as a donut": chart_intent(
        "donut", "papers", chart_requested="donut", topic_keywords=("rag", "venue")),
    "papers on instruction tuning and alignment over time": chart_intent("line", "papers"),
    "agent framework releases over time as an area chart": chart_intent("area", "releases", "papers"),
    "papers and releases about agents per month, stacked": chart_intent("stacked-bar", "papers", "releases"),
    "heatmap of large language model papers by month and venue": chart_intent("heatmap", "papers"),
    "histogram of popularity of agent framework releases": chart_intent("histogram", "releases"),
    "box plot of popularity rank of llm releases by month": chart_intent("box", "releases"),
    "treemap of research papers by venue": chart_intent("treemap", "papers", topic_keywords=("venue",)),
    "sunburst of language model papers by venue and month": chart_intent("sunburst", "papers"),
    "bar chart of rag papers per month": chart_intent("bar", "papers"),
    "ranked bar of themes in agent releases": chart_intent("ranked-bar", "releases"),
    "scatter plot of releases popularity against version": chart_intent("scatter", "releases"),
    "sankey diagram of papers flowing between venues": chart_intent("sankey", "papers",
                                                                    chart_requested="diagrama de Sankey"),
}
DOWNGRADED = {"scatter", "sankey"}

# two numeric fields and a signed one, which the demo corpus does not store: a small records collection
BENCH_CONFIG = """
data_dir = "data"
embedder = "hash"

[collections.bench]
kind = "records"
description = "retrieval benchmark runs"
id_field = "id"
title = "{setup}"
text_fields = ["notes"]

[collections.bench.fields]
id = "keyword"
setup = "keyword"
notes = "text"
latency_ms = "float"
recall = "float"
memory_mb = "int"
recall_delta = "float"
"""
BENCH_ROWS = [
    ("bm25", 1.9, 0.61, 120, -0.05), ("dense", 7.4, 0.66, 410, 0.0), ("hybrid", 9.8, 0.71, 530, 0.05),
    ("hybrid+rerank", 41.0, 0.74, 900, 0.08), ("dense-int8", 4.1, 0.65, 150, -0.01),
    ("bm25+prf", 3.2, 0.63, 130, -0.03),
]
BENCH_CASES: dict[str, Intent] = {
    "scatter of recall against latency for retrieval benchmark runs": chart_intent("scatter", "bench"),
    "bubble chart of retrieval benchmark runs sized by memory": chart_intent("bubble", "bench"),
    "tornado diagram of recall change per retrieval benchmark run": chart_intent("tornado", "bench"),
}


@pytest.fixture(scope="module")
def demo_charts(demo_engine: Engine) -> Iterator[tuple[str, Engine]]:
    engine = ChartEngine(demo_engine.settings, demo_engine.store, demo_engine.embedder)
    engine.intents = dict(DEMO_CASES)
    with serve(app_for(engine)) as url:
        yield url, engine


@pytest.fixture(scope="module")
def bench_charts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Engine]]:
    root = tmp_path_factory.mktemp("bench")
    (root / "groundsearch.toml").write_text(BENCH_CONFIG)
    rows = root / "runs.jsonl"
    rows.write_text("".join(json.dumps({"id": s, "setup": s, "notes": f"retrieval benchmark run {s}", "latency_ms": lat,
                                        "recall": r, "memory_mb": m, "recall_delta": d}) + "\n"
                            for s, lat, r, m, d in BENCH_ROWS))
    with ChartEngine.open(load_settings(root / "groundsearch.toml", env={})) as engine:
        assert not engine.ingest([rows], "bench").errors
        engine.intents = dict(BENCH_CASES)
        with serve(app_for(engine)) as url:
            yield url, engine


def plotted(page: Any) -> dict[str, Any]:
    """What Plotly actually drew: trace types and the marks of each kind in its SVG."""
    return page.locator(".kind-chart .js-plotly-plot").first.evaluate("""gd => ({
        types: gd._fullData.map(t => t.type),
        holes: gd._fullData.map(t => t.hole || 0),
        fills: gd._fullData.map(t => t.fill || 'none'),
        barmode: gd._fullLayout.barmode,
        traces: gd._fullData.length,
        slices: gd.querySelectorAll('g.slice').length,
        bars: gd.querySelectorAll('g.trace.bars g.point').length,
        points: gd.querySelectorAll('g.trace.scatter g.points path.point').length,
        boxes: gd.querySelectorAll('g.trace.boxes').length,
        heat: gd.querySelectorAll('g.hm image').length,
        z: (gd._fullData[0].z || []).map(r => r.length),
        lines: gd.querySelectorAll('g.trace.scatter path.js-line').length,
        fillpaths: gd.querySelectorAll('g.trace.scatter path.js-fill').length,
    })""")


def check_marks(drawn: dict[str, Any], c: ChartResult) -> None:
    n = len(c.points)
    series = list(dict.fromkeys(p.series for p in c.points))
    kind = c.subtype
    if kind in ("pie", "donut"):
        assert drawn["slices"] == n
        assert drawn["holes"] == [0.5 if kind == "donut" else 0]
    elif kind == "treemap":
        assert drawn["slices"] == n + 1  # Plotly's root tile holds the parts
    elif kind == "sunburst":
        assert drawn["slices"] == n + len(series)  # one ring for the groups, one for their parts
    elif kind == "stacked-bar":
        assert drawn["barmode"] == "stack" and drawn["traces"] == len(series)
        assert drawn["bars"] == len({p.label for p in c.points}) * len(series)
    elif kind == "heatmap":
        assert drawn["heat"] == 1 and drawn["z"] == [len({p.label for p in c.points})] * len(series)
    elif kind in ("line", "area"):
        assert drawn["lines"] == 1 and drawn["points"] == n
        assert drawn["fills"] == ["tozeroy" if kind == "area" else "none"] and drawn["fillpaths"] == (kind == "area")
    elif kind in ("scatter", "bubble"):
        assert drawn["points"] == n
    elif kind == "box":
        assert drawn["boxes"] == len(series)
    elif kind == "histogram":
        # every bin is a point, an empty one drawn at zero height (the bins are set from the stored data)
        assert drawn["bars"] == n
    else:  # bar, ranked-bar, tornado
        assert drawn["bars"] == n


def run_case(desktop: Page, served: tuple[str, Engine], query: str, intent: Intent, downgraded: bool,
             shot: str) -> None:
    url, engine = served
    out = list(engine.search(SearchRequest(query=query)).structured_results)
    [c] = [r for r in out if r.kind == "chart"]
    assert c.points, f"{query}: the chart has no points to draw"
    notices = [r for r in out if r.kind == "unsupported-format"]
    assert bool(notices) == downgraded, (query, notices)
    assert bool(notices) == (c.subtype != intent.chart_subtype)
    page = desktop.page
    page.goto(search_url(url, query))
    plot = page.locator(".kind-chart .js-plotly-plot")
    expect(plot).to_be_visible(timeout=60_000)
    expect(page.locator("#results")).to_have_attribute("aria-busy", "false", timeout=60_000)
    expect(page.locator(".kind-chart .chart")).to_have_attribute("data-subtype", c.subtype)
    drawn = plotted(page)
    assert set(drawn["types"]) == {TRACE[c.subtype]}, drawn
    check_marks(drawn, c)
    notice = page.locator(".kind-unsupported-format")
    if notices:
        expect(notice).to_be_visible()
        expect(notice).to_contain_text(f"Can't show this as {notices[0].requested}")
        expect(notice).to_contain_text(f"a {c.subtype} chart instead")
    else:
        expect(notice).to_have_count(0)
    desktop.shot(shot)


@pytest.mark.parametrize("query", list(DEMO_CASES))
def test_each_kind_on_the_demo_corpus(desktop: Page, demo_charts: tuple[str, Engine], query: str) -> None:
    intent = DEMO_CASES[query]
    downgraded = intent.chart_subtype in DOWNGRADED
    run_case(desktop, demo_charts, query, intent, downgraded,
             f"chart-{intent.chart_subtype}{'-downgraded' if downgraded else ''}.png")


@pytest.mark.parametrize("query", list(BENCH_CASES))
def test_numeric_kinds_on_a_collection_that_stores_them(desktop: Page, bench_charts: tuple[str, Engine],
                                                        query: str) -> None:
    intent = BENCH_CASES[query]
    run_case(desktop, bench_charts, query, intent, False, f"chart-{intent.chart_subtype}.png")
