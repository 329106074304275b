"""The intent evaluator's accounting on a small hand-computed file, its errors, and the packaged set's accuracy."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from groundsearch.errors import InvalidInput
from groundsearch.evaluation.intents import evaluate_intents, load_labelled
from groundsearch.query.intent import IntentCascade
from groundsearch.query.intent.cache import MemoryIntentCache


def _write(tmp_path, rows):
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def test_accounting_matches_hand_computed(tmp_path, settings, embedder):
    rows = [  # the rules answer all three; the second label is deliberately wrong on format and domains
        {"query": "show recent product releases as a table", "format": "table", "chart_subtype": None,
         "domains": ["releases"], "complexity": "medium", "split": "a"},
        {"query": "bar chart of releases by vendor", "format": "table", "chart_subtype": "bar",
         "domains": ["papers"], "complexity": "medium", "split": "a"},
        {"query": "papers and releases about agents", "format": "default", "chart_subtype": None,
         "domains": ["releases", "papers"], "complexity": "complex", "split": "b"},
    ]
    cascade = IntentCascade(settings, embedder, None, cache=MemoryIntentCache(0))
    report = evaluate_intents(_write(tmp_path, rows), cascade)
    assert report["n"] == 3
    assert report["accuracy"] == {"format": round(2 / 3, 4), "chart_subtype": 1.0, "domains": round(2 / 3, 4),
                                  "complexity": 1.0}
    assert report["splits"]["a"]["accuracy"]["format"] == 0.5 and report["splits"]["b"]["n"] == 1
    assert report["tiers"] == {"rules": 1.0}
    assert report["latency_ms"]["total_by_tier"]["rules"]["n"] == 3
    assert [e["query"] for e in report["errors"]] == ["bar chart of releases by vendor"]
    assert set(report["errors"][0]["fields"]) == {"format", "domains"}


def test_bad_files_are_named(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"query": "x"}\n')
    with pytest.raises(InvalidInput, match="line 1 lacks"):
        load_labelled(bad)
    bad.write_text("{nope\n")
    with pytest.raises(InvalidInput, match="line 1 is not JSON"):
        load_labelled(bad)
    with pytest.raises(InvalidInput, match="cannot read"):
        load_labelled(tmp_path / "missing.jsonl")


def test_packaged_set_is_large_and_varied():
    rows = load_labelled(None)
    assert len(rows) >= 200
    assert {r["split"] for r in rows} == {"tune", "heldout"}
    assert sum(r["split"] == "heldout" for r in rows) >= 50
    assert {r["format"] for r in rows} == {"default", "table", "chart", "timeline", "graph"}
    assert {r["complexity"] for r in rows} == {"simple", "medium", "complex"}
    assert sum(len(r["domains"]) >= 2 for r in rows) >= 15
    assert len({r["query"].casefold() for r in rows}) == len(rows)


@pytest.mark.slow
def test_tiers_1_2_reach_90_percent_per_field_with_real_minilm(tmp_path):
    """The issue's acceptance bar, overall and on the held-out split the rules were never tuned on."""
    from groundsearch.interfaces.cli import main

    result = CliRunner().invoke(
        main, ["--data-dir", str(tmp_path), "eval", "--intents",
               "src/groundsearch/evaluation/data/intents.jsonl", "--json"],
        env={"GROUNDSEARCH_LLM_BASE_URL": "", "GROQ_API_KEY": ""},
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    print({k: report[k] for k in ("accuracy", "splits", "tiers")})
    assert report["tier3"] is None
    for field, share in report["accuracy"].items():
        assert share >= 0.90, (field, share)
    for field, share in report["splits"]["heldout"]["accuracy"].items():
        assert share >= 0.90, ("heldout", field, share)
