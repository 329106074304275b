"""End-to-end fidelity accounting: honoured, downgraded out loud, silently dropped, structure nobody asked for."""

from __future__ import annotations

from groundsearch.evaluation.intent_fidelity import judge, run_fidelity
from groundsearch.types import (
    ChartPoint,
    ChartResult,
    LowConfidenceResult,
    SearchRequest,
    SearchResponse,
    TableResult,
    UnsupportedFormatResult,
)

TABLE = TableResult(title="t", collection="papers", columns=("Title",), rows=(("x",),), row_ids=("e1",))
PIE = ChartResult(title="c", subtype="pie", x_label="venue", y_label="n", points=(ChartPoint(label="a", value=1),),
                  source="count")
LOW = LowConfidenceResult(reason="weak", best_score=0.2, threshold=0.35)


def resp(*results):
    return SearchResponse(query="q", structured_results=results)


def row(fmt, subtype=None, requested=None, **extra):
    return {"query": "q", "format": fmt, "chart_subtype": subtype, "chart_requested": requested, **extra}


def test_a_result_of_the_asked_kind_honours_it():
    assert judge(row("table"), resp(TABLE)) == "honoured"
    assert judge(row("chart", "pie", "gráfico circular"), resp(PIE)) == "honoured"


def test_a_downgrade_must_name_what_was_asked():
    named = UnsupportedFormatResult(requested="gráfico de anillo", reason="r", substitute="chart:pie")
    assert judge(row("chart", "donut", "gráfico de anillo"), resp(named, PIE)) == "downgraded"
    by_kind = UnsupportedFormatResult(requested="word-cloud", reason="r", substitute="chart:ranked-bar")
    assert judge(row("chart", "word-cloud", "nube de palabras"), resp(by_kind)) == "downgraded"
    other = UnsupportedFormatResult(requested="heatmap", reason="r", substitute="chart:pie")
    assert judge(row("chart", "donut", "donut chart"), resp(other, PIE)) == "dropped"


def test_another_kind_without_a_notice_is_a_silent_drop():
    assert judge(row("chart", "donut", "donut chart"), resp(PIE)) == "dropped"
    assert judge(row("table"), resp(LOW)) == "dropped"
    assert judge(row("chart", "other", "violin plot"), resp(PIE)) == "dropped"


def test_requests_that_ask_nothing_must_get_no_structure():
    assert judge(row("default"), resp(LOW)) == "clean"  # the gate's notice is not a format
    assert judge(row("default"), resp(TABLE)) == "unasked"
    assert judge(row("default"), resp(UnsupportedFormatResult(requested="x", reason="r", substitute="none"))) == "unasked"


def test_run_fidelity_counts_per_split_and_language():
    rows = [row("table", split="h", lang="en"), row("chart", "donut", "donut", split="h", lang="es"),
            row("default", split="h", lang="es", category="false-friend")]
    answers = {0: resp(TABLE), 1: resp(PIE, LOW), 2: resp(TABLE)}
    calls = iter(range(3))

    def search(request: SearchRequest) -> SearchResponse:
        return answers[next(calls)]

    report = run_fidelity(rows, search)
    h = report["splits"]["h"]
    assert (h["asked"], h["honoured"], h["silent_drops"], h["fidelity"]) == (2, 1, 1, 0.5)
    assert (h["not_asked"], h["unasked_structure"]) == (1, 1)
    assert report["gate_low_confidence"] == {"h:en": 0.0, "h:es": 0.5}
    assert {f["verdict"] for f in report["failures"]} == {"dropped", "unasked"}


def test_an_empty_shape_of_the_asked_kind_honours_nothing():
    # "timeline chart of vector-db milestones": twenty undated sections, a timeline of no events, counted honoured
    from groundsearch.types import TimelineResult

    assert judge(row("timeline"), resp(TimelineResult(title="t", events=()))) == "dropped"
    assert judge(row("table"), resp(TABLE.model_copy(update={"rows": (), "row_ids": ()}))) == "dropped"
