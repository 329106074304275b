"""The gate does not call an aggregate request over a collection it names "low confidence" (issue 10).

"pie of papers per venue" matches no single record, so its best MiniLM cosine on the demo corpus (0.18–0.34) sat
with off-topic text and the gate failed 44% of the English on-topic format requests of ``intents-dev``. The plan
now passes such a request when the request itself resolved the collection and names it or one of its grouping
fields; anything else keeps the cosine gate.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from groundsearch.query.gate import grounded_aggregate
from groundsearch.query.planner import plan_retrieval
from groundsearch.settings import load_settings
from groundsearch.types import Intent, SearchRequest

DEMO = Path(__file__).resolve().parents[2] / "demo" / "groundsearch.toml"
MINILM = "all-MiniLM-L6-v2-int8@8199be6f699a+tok@12345678"
TODAY = dt.date(2026, 12, 1)


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory):
    return load_settings(DEMO, env={}, data_dir=str(tmp_path_factory.mktemp("agg") / "data"))


def _plan(settings, query: str, intent: Intent, **request: object):
    return plan_retrieval(intent, SearchRequest(query=query, **request), settings, tenant=None, today=TODAY,
                          embedder_id=MINILM)


@pytest.mark.parametrize(("query", "fmt", "domain", "word"), [
    ("pie of papers per venue", "chart", "papers", "papers"),
    ("donut of the venue split", "chart", "papers", "venue"),
    ("boxplot of releases per product", "chart", "releases", "releases"),
    ("list the latest releases in a table", "table", "releases", "releases"),
    # an entity graph is drawn from the records as a whole too: no one paper is "the co-authorship network"
    ("visualize the co-author network of the papers", "graph", "papers", "papers"),
    ("nodes and edges: how products relate through shared authors", "graph", "papers", "authors"),
])
def test_an_aggregate_request_naming_its_collection_passes_and_the_plan_says_how(settings, query, fmt, domain, word):
    p = _plan(settings, query, Intent(format=fmt, domains=(domain,)))
    assert p.gate_threshold == 0.0 and p.reformulation is None
    assert any(r.startswith(f"gate passed by grounding: a {fmt} request over {domain}") and repr(word) in r
               for r in p.reasons), p.reasons


@pytest.mark.parametrize(("query", "intent"), [
    # names a releases field, but nothing in the request resolved a collection
    ("bar chart of coffee sales by product at my cafe", Intent(format="chart")),
    # a collection resolved, but the request is not an aggregate one
    ("papers on tabular data", Intent(domains=("papers",))),
    # an aggregate over papers that names no field papers has
    ("scatter chart of citations versus year", Intent(format="chart", domains=("docs",))),
])
def test_anything_else_keeps_the_cosine_gate(settings, query, intent):
    p = _plan(settings, query, intent)
    assert p.gate_threshold == pytest.approx(0.35)
    assert not any(r.startswith("gate passed by grounding") for r in p.reasons)


def test_a_request_threshold_still_wins(settings):
    p = _plan(settings, "pie of papers per venue", Intent(format="chart", domains=("papers",)), threshold=0.6)
    assert p.gate_threshold == 0.6


def test_only_grouping_fields_ground_a_request(settings):
    papers = settings.collection("papers")
    assert grounded_aggregate("table of papers", "table", [papers]) == ("papers", "papers")
    assert grounded_aggregate("chart of authors", "chart", [papers]) == ("papers", "authors")
    # url, id, title, date and text fields are words every request uses
    assert grounded_aggregate("table of the url and date of each title", "table", [papers]) is None
    assert grounded_aggregate("papers", "default", [papers]) is None


# ---- field-aggregate questions with no asked shape (session 11) ------------------------------------------------
# "which venue has the most papers?" scored a best cosine of 0.32–0.34 on the demo corpus and was called low
# confidence, though counting the stored venue of the papers answers it.

@pytest.mark.parametrize(("query", "domain", "field"), [
    ("which venue has the most papers?", "papers", "venue"),
    ("which product has the most releases?", "releases", "product"),
    ("which author wrote the most papers?", "papers", "authors"),
    ("how many papers per venue", "papers", "venue"),
    ("number of releases per registry", "releases", "registry"),
    # two fields named: the one after the grouping word groups
    ("which registry has the most releases of a product", "releases", "registry"),
])
def test_a_question_counting_a_collection_by_a_field_it_names_passes(settings, query, domain, field):
    p = _plan(settings, query, Intent(domains=(domain,)))
    assert p.gate_threshold == 0.0 and p.reformulation is None
    assert any(r.startswith(f"gate passed by grounding: a question counting {domain} by a stored field it names "
                            f"({field!r})") for r in p.reasons), p.reasons


@pytest.mark.parametrize(("query", "domain"), [
    ("which venue has the most seats in london", "papers"),  # a field word, not the collection
    ("how many papers does a ream of printer paper have", "papers"),  # the collection, no field
    ("how many releases did the beatles put out per year", "releases"),  # a date is no grouping field
    ("what is the venue of the attention paper", "papers"),  # names both, but counts nothing
])
def test_a_plain_question_without_cue_collection_and_field_keeps_the_cosine_gate(settings, query, domain):
    p = _plan(settings, query, Intent(domains=(domain,)))
    assert p.gate_threshold == pytest.approx(0.35)
    assert not any(r.startswith("gate passed by grounding") for r in p.reasons)


def test_a_field_aggregate_question_resolving_no_collection_keeps_the_cosine_gate(settings):
    p = _plan(settings, "which product has the most releases?", Intent())
    assert p.gate_threshold == pytest.approx(0.35)


@pytest.mark.parametrize(("query", "domain"), [
    # a field named as the value asked for, or in passing, is no grouping (learning splits heldout10 and heldout9)
    ("I didn't ask for a table!! just the version number of the newest transformers release", "releases"),
    ("I've got the venue counts already, what I still need is the list of papers on rerankers", "papers"),
])
def test_a_field_not_led_by_a_grouping_word_grounds_nothing(settings, query, domain):
    p = _plan(settings, query, Intent(domains=(domain,)))
    assert p.gate_threshold == pytest.approx(0.35)
