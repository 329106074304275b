"""The gate does not judge a request by a cosine of text its embedder cannot read (issue 10).

MiniLM was trained on English: on the demo corpus its best cosine for on-topic Spanish or Chinese requests was
no higher than for off-topic ones, so a "low confidence" verdict on them measured the language, not relevance.
"""

from __future__ import annotations

import datetime as dt

import pytest

pytest.importorskip("py3langid")

from groundsearch.query.gate import MULTILINGUAL_THRESHOLD  # noqa: E402
from groundsearch.query.language import MIN_PROBABILITY, detect, unreadable  # noqa: E402
from groundsearch.query.planner import plan_retrieval  # noqa: E402
from groundsearch.settings import Settings  # noqa: E402
from groundsearch.types import Intent, SearchRequest  # noqa: E402

MINILM = "all-MiniLM-L6-v2-int8@8199be6f699a+tok@12345678"
E5 = "multilingual-e5-small-q4@abcdef123456"
TODAY = dt.date(2026, 12, 1)


def _plan(query: str, embedder_id: str = MINILM, judge_id: str = "", settings: Settings | None = None,
          **request: object):
    return plan_retrieval(Intent(), SearchRequest(query=query, **request), settings or Settings(), tenant=None,
                          today=TODAY, embedder_id=embedder_id, judge_id=judge_id)


@pytest.mark.parametrize("query", [
    "gráfico circular de artículos por sede", "présente les articles ICLR sous forme de tableau",
    "wer hat das GAIA-Paper geschrieben?", "按会议统计论文的饼图", "会場別の論文の円グラフ",
    "mettimi in una tabella gli articoli ICLR", "zet de ICLR-papers in een tabel",
])
def test_a_request_minilm_cannot_read_is_not_judged_and_the_plan_says_why(query):
    p = _plan(query)
    assert p.gate_threshold == 0.0 and p.reformulation is None and p.gate_judge == "vector"
    assert any(r.startswith("gate not judged: the request reads as") for r in p.reasons)


@pytest.mark.parametrize("query", ["gráfico circular de artículos por sede", "按会议统计论文的饼图",
                                   "zet de ICLR-papers in een tabel"])
def test_with_a_multilingual_judge_such_a_request_is_judged_by_it(query):
    p = _plan(query, judge_id="multilingual-e5-small")
    assert p.gate_judge == "multilingual" and p.gate_threshold == pytest.approx(MULTILINGUAL_THRESHOLD)
    assert any(r.startswith("gate judged by multilingual-e5-small over the candidates") for r in p.reasons)
    off = Settings.model_validate({"retrieval": {"gate_multilingual_threshold": 0}})
    assert _plan(query, judge_id="multilingual-e5-small", settings=off).gate_judge == "vector"
    assert _plan(query, judge_id="multilingual-e5-small", settings=off).gate_threshold == 0.0


def test_english_requests_never_go_to_the_multilingual_judge():
    p = _plan("pie chart of papers per venue", judge_id="multilingual-e5-small")
    assert p.gate_judge == "vector" and p.gate_threshold == pytest.approx(0.35)


@pytest.mark.parametrize("query", ["who wrote RankVicuna?", "explain box plots", "funnel diagram of ingest stages",
                                   "how do I reset the admin password on my home wifi router"])
def test_english_requests_keep_the_calibrated_gate(query):
    assert _plan(query).gate_threshold == pytest.approx(0.35)


def test_a_multilingual_embedder_judges_every_language_and_a_request_threshold_always_wins():
    assert unreadable("按会议统计论文的饼图", E5) is None
    assert _plan("按会议统计论文的饼图", embedder_id=E5).gate_threshold == 0.0  # nothing calibrated for e5
    assert _plan("按会议统计论文的饼图", threshold=0.5).gate_threshold == 0.5


def test_only_a_sure_reading_counts():
    lang, p = detect("explain box plots")
    assert lang != "en" and p < MIN_PROBABILITY  # read as another language, but not surely: still judged
    assert unreadable("explain box plots", MINILM) is None
