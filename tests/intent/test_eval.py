"""The intent evaluator's accounting on a small hand-computed file, its errors, and the packaged set's accuracy."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from importlib import resources
from typing import get_args

import pytest
from click.testing import CliRunner

from groundsearch.errors import InvalidInput
from groundsearch.evaluation.intents import evaluate_intents, load_labelled, reliability
from groundsearch.query.intent import IntentCascade
from groundsearch.query.intent.cache import MemoryIntentCache
from groundsearch.query.intent.format_model import TRAINING_FILES, load_calibration, training_rows, training_sha256
from groundsearch.query.intent.format_step import FormatStep
from groundsearch.types import ChartSubtype


def _write(tmp_path, rows):
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def test_accounting_matches_hand_computed(tmp_path, settings, embedder):
    rows = [  # the rules answer all three; the second label is deliberately wrong on format and domains
        {"query": "show recent product releases as a table", "format": "table", "chart_subtype": None,
         "domains": ["releases"], "complexity": "medium", "split": "a", "lang": "en"},
        {"query": "bar chart of releases by vendor", "format": "table", "chart_subtype": "bar",
         "domains": ["papers"], "complexity": "medium", "split": "a", "lang": "en"},
        {"query": "gráfico de barras de lanzamientos", "format": "chart", "chart_subtype": "bar",
         "split": "b", "lang": "es"},  # no domains/complexity label: those fields are not scored
    ]
    cascade = IntentCascade(settings, embedder, None, cache=MemoryIntentCache(0), format_step=FormatStep(None))
    report = evaluate_intents(load_labelled(_write(tmp_path, rows)), cascade)
    assert report["n"] == 3
    assert report["splits"]["a"]["accuracy"] == {"format": 0.5, "chart_subtype": 1.0, "domains": 0.5,
                                                 "complexity": 1.0}
    assert report["splits"]["b"]["accuracy"] == {"format": 1.0, "chart_kind": 1.0, "chart_subtype": 1.0}
    assert report["splits"]["b"]["counts"] == {"format": 1, "chart_kind": 1, "chart_subtype": 1}
    assert report["by_lang"]["b:es"]["accuracy"]["format"] == 1.0
    assert report["format_tiers"] == {"a:rules": 2, "b:rules": 1}
    assert [e["query"] for e in report["errors"]] == ["bar chart of releases by vendor"]
    assert set(report["errors"][0]["fields"]) == {"format", "domains"}


def test_reliability_buckets_hold_each_tiers_measured_accuracy(tmp_path):
    rows = load_labelled(_write(tmp_path, [
        {"query": "as a table please: new releases", "format": "table", "split": "x"},
        {"query": "what is a tornado diagram", "format": "default", "split": "x"},
        {"query": "what is a tornado diagram, draw one for RAG", "format": "chart", "split": "x"},
    ]))
    rel = reliability(rows, FormatStep(None))
    rules = rel["tables"]["x"]["rules"]
    assert sum(b["n"] for b in rules["buckets"].values()) == 3
    for bucket, figures in rules["buckets"].items():
        low, high = (float(v) for v in bucket.strip("[]").split(","))
        assert low <= figures["mean_confidence"] <= high
    assert "classifier" not in rel["tables"]["x"]  # no classifier: that tier is not reported, not invented
    assert rel["latency_ms"]["tier1"]["n"] == 3


class _SaysDefault:
    """A classifier that reads every request as asking for no format, sure of it."""

    def predict(self, query, candidates=()):
        return "default", 0.99


def test_reliability_holds_tier1_where_it_decided_apart_from_tier1_alone(tmp_path):
    """Tier 1's confidence is the precision of the readings it still decides once the classifier has overruled
    it; a reading the classifier overrules is counted for tier 1 alone, never under decided:rules."""
    rows = load_labelled(_write(tmp_path, [
        {"query": "as a table please: the new releases", "format": "default", "split": "x"},  # overruled, rightly
        {"query": "what is a tornado diagram", "format": "default", "split": "x"},  # a mention tier 1 decides
    ]))
    cal = replace(load_calibration(), overrides={"used": 0.9})
    rel = reliability(rows, FormatStep(lambda: _SaysDefault(), cal))
    alone, decided = rel["tables"]["x"]["rules"], rel["tables"]["x"]["decided:rules"]
    assert sum(b["n"] for b in alone["buckets"].values()) == 2 and alone["accuracy"] == 0.5
    assert sum(b["n"] for b in decided["buckets"].values()) == 1 and decided["accuracy"] == 1.0
    overruled = rel["tables"]["x"]["decided:classifier"]
    assert sum(b["n"] for b in overruled["buckets"].values()) == 1 and overruled["accuracy"] == 1.0


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
    multi = [r for r in rows if "lang" in r]  # the multilingual held-out and dev splits
    assert len(multi) >= 600
    assert {r["lang"] for r in multi} == {"en", "es", "fr", "de", "pt", "it", "nl", "zh", "ja"}
    assert {r["category"] for r in multi} >= {"paraphrase", "typo", "language", "chart-kind", "other-kind",
                                              "false-friend", "negation", "plain"}
    kinds = {r["chart_subtype"] for r in multi if r["format"] == "chart"}
    assert kinds >= set(get_args(ChartSubtype)) - {"timeline"}  # a timeline is its own format
    assert all(r["chart_requested"] for r in multi if r["chart_subtype"] == "other")
    assert len({r["query"].casefold() for r in multi}) == len(multi)


def test_no_request_of_a_blind_split_is_trained_on():
    """The classifier learns from the files in TRAINING_FILES only; any other labelled split (the next blind ones,
    heldout26 and heldout27, kept for a session's one final blind measurement) shares no request with its training
    rows or the prototypes. heldout24 and heldout25 (committed alone in session 16, 02aabfe and 7325431) were
    measured blind in session 17 on b240cd7 and are learning splits from session 17; heldout26 and heldout27
    are committed by the lead during session 17 (e7b9b6f, a57c0dd), so the check reads either only when it is
    there. Only a yes/no is
    asserted, so a failure never prints a blind split's requests."""
    data = resources.files("groundsearch.evaluation") / "data"
    trained = {r["query"].casefold() for r in training_rows()}
    others = [p.name for p in data.iterdir() if p.name.startswith("intents") and p.name.endswith(".jsonl")
              and p.name not in TRAINING_FILES]
    for learning in ("intents-heldout21.jsonl", "intents-heldout22.jsonl", "intents-heldout23.jsonl",
                     "intents-heldout24.jsonl", "intents-heldout25.jsonl"):
        assert learning in TRAINING_FILES and learning not in others
    for blind in ("intents-heldout26.jsonl", "intents-heldout27.jsonl"):
        assert blind not in TRAINING_FILES
        if (data / blind).is_file():
            assert blind in others  # there, so the overlap check below reads its requests
    for name in others:
        shared = bool({r["query"].casefold() for r in load_labelled(data / name)} & trained)
        assert not shared, name


def test_the_shipped_weights_were_fitted_on_the_training_files_as_they_are():
    """calibration.json records the digest of the data it was fitted on; a changed split means a refit."""
    cal = json.loads((resources.files("groundsearch.query.intent") / "calibration.json").read_text("utf-8"))
    assert cal["training_sha256"] == training_sha256()
    assert cal["training_files"] == list(TRAINING_FILES)


def test_heldout_split_is_the_committed_one():
    """The held-out file's hash is the one recorded before tuning (evaluation/data/README.md)."""
    data = resources.files("groundsearch.evaluation") / "data"
    digest = hashlib.sha256((data / "intents-heldout.jsonl").read_bytes()).hexdigest()
    assert digest == "757b4becff633eafe37561418a17f0499f6ecc7126e6f46e8db4f32fe62d9df2"
    assert digest in (data / "README.md").read_text("utf-8")
    second = hashlib.sha256((data / "intents-heldout2.jsonl").read_bytes()).hexdigest()
    assert second == "70c34a036e43c1461bb47d61f8575716bac77c52a73e3c2ff83ab2b3c3167b16"
    assert second in (data / "README.md").read_text("utf-8")
    third = hashlib.sha256((data / "intents-heldout3.jsonl").read_bytes()).hexdigest()
    assert third == "be6d127d3fa109598e25a3f819afc3ccfec3a7bde5cb3ae1160a32cf960458b5"
    assert third in (data / "README.md").read_text("utf-8")
    offtopic = hashlib.sha256((data / "offtopic-heldout.jsonl").read_bytes()).hexdigest()
    assert offtopic == "a6ab31602f61f622353138e5297d00b715027cb8744cb16d67df55be2424b990"
    assert offtopic in (data / "README.md").read_text("utf-8")


def test_later_blind_heldout_splits_are_the_committed_ones():
    """Written blind and committed alone (36edd40: heldout4-5; 18f8984: heldout6-7; 5a6e78f: heldout8; 3a43bfa:
    heldout9; 81c381f: heldout10; 8221fbb: heldout11; b8efdc7: heldout12; a56774b: heldout13; 6905614:
    heldout14; a65618d: heldout15) before any measurement. heldout7 was measured once at the end of session 4 and is a learning split from session 5;
    heldout9 was measured blind once at the start of session 6 and is one from then; heldout10 was measured blind
    once at the end of session 6 and is one from session 7; heldout11 was measured blind once at the end of session
    7 and is one from session 8; heldout12 was measured blind once at the end of session 8 and is one from session
    9; heldout13 was measured blind once at the end of session 9 and is one from session 10; heldout14 and
    heldout15 were measured blind once at the end of session 10 (on 9653996) and are ones from session 11; heldout16
    and heldout17 (51f557e, 3466fe0) were measured blind once in session 12 (on f71ccff) and are ones from then;
    heldout18 (0e15fd1) and heldout19 (5fd4c1a) were measured blind once at the end of session 12 (on 8733119) and
    are ones from session 13; heldout20 (5061680) and heldout21 (4a6ffca) were measured blind once in session 13
    (on a327510) and are ones from session 15; heldout22 (3e4968c) and heldout23 (3f273e7) were measured blind in
    session 15 (on eb0cf9d) and are ones from session 16; heldout24 (02aabfe) and heldout25 (7325431) were
    measured blind in session 17 (on b240cd7) and are ones from then.

    heldout11's digest is not its commit's: session 10 fixed one label, q11-159 ("sparklines of ..."), from `line`
    to `other` / `other-kind` (the README's convention: a sparkline is a kind outside the schema, as d050 and q9-033
    hold it); 0e27a9e5... was its digest as committed. The data README records the fix."""
    data = resources.files("groundsearch.evaluation") / "data"
    readme = (data / "README.md").read_text("utf-8")
    for name, want in (("intents-heldout4.jsonl", "58b1b701fbdae4bf8f325aa09ba4323e8d8a3061f8713d9e4528a93c2c0ad9cf"),
                       ("intents-heldout5.jsonl", "cc0dc4a43e0547a2c1968d8c2c46485cb27924caf09aba8e9af0f2fbfc81daaf"),
                       ("intents-heldout6.jsonl", "ea9348da88ba39de0298e3341ed0a9175bffef53aef856c568c8968da154498c"),
                       ("intents-heldout7.jsonl", "bdf20dc6478ee690f5388f24a94822ba6d0c6e4b6ec57782ccf81ccc1521a2fc"),
                       ("intents-heldout8.jsonl", "53a9300c3fbe60cf4192bd057925b3ede8443d065078eaf08db5a8310b7736fd"),
                       ("intents-heldout9.jsonl", "e8007c7944cf993669d7dce8568c4ff6743b877c2fa405557ca6c7fcea3c592a"),
                       ("intents-heldout10.jsonl", "e3250a55146870a71f929cc48c25a75e4b50f7d85c4eebac9ef2ce7d287e0688"),
                       ("intents-heldout11.jsonl", "6cc9618d86fc2fdf8d620fb416ebc83b8621be7ff1ddfb645a0c6b15bc41f00e"),
                       ("intents-heldout12.jsonl", "e28c0e363e23346eeb69830bec78d14c0d2115904280948b652573141df5d90a"),
                       ("intents-heldout13.jsonl", "3642bafd92af4f1ac5ce1023c7cda577c323f568c5eb194b756d682db4f69f20"),
                       ("intents-heldout14.jsonl", "4e6275ab8a62fad5e5bf8b48a6a7885fcd100278a7ed27a386bc7d928680e5c7"),
                       ("intents-heldout15.jsonl", "4bdcb5745c84f5c3be3324c35f71a3f8f9e881510be722c473ca5194c44dfc7b"),
                       ("intents-heldout16.jsonl", "7ef5cee6ae2ec1d6bba1908676466fa3ccb62a40c32bc62fb2424d027fce2811"),
                       ("intents-heldout17.jsonl", "ef25bf47a8155c06cb217de6f7b77c0837a1ce4f249b5314996eae8d8a133d90"),
                       ("intents-heldout18.jsonl", "1ec039ea72004aefc0baeaa766b26b6ec700aff0179735dc1c2ec9f98037d975"),
                       ("intents-heldout19.jsonl", "8ca266f8fa3e12ee00d7bc4d0054350d3a2727543f45f20ab6359cfe481246b7"),
                       ("intents-heldout20.jsonl", "ad0091bc86a0dcac1299943a39edbfe1bc563dbb211aee135aef4047bea08194"),
                       ("intents-heldout21.jsonl", "dfa50c27ba4c0ebe63741bb4ba83c18315078f0f33728d8e04240d4849ada0f7"),
                       ("intents-heldout22.jsonl", "38ff304da424bc7919e77cc1297532b046130d4bbabfaf5a607e1f204d0917ed"),
                       ("intents-heldout23.jsonl", "08055a3cc874449801ac327487724c68d23b3e1e6405e54722d63fdaed61e865"),
                       ("intents-heldout24.jsonl", "1807a479375f46484b9a7965f1468ed508bda00d85bef39818b2995afcb779a4"),
                       ("intents-heldout25.jsonl", "71538c6728fe6559f8f157788f1389c1150fdb1eb4c31cd55ceae2784353e8cc")):
        digest = hashlib.sha256((data / name).read_bytes()).hexdigest()
        assert digest == want and digest in readme, name


def test_the_final_blind_split_is_never_a_training_file():
    # session 17's blind splits, committed by the lead
    assert not [f for f in TRAINING_FILES if f.startswith(("intents-heldout26", "intents-heldout27"))]
    # measured blind in session 17 on b240cd7: learning splits
    assert {"intents-heldout24.jsonl", "intents-heldout25.jsonl"} <= set(TRAINING_FILES)


def test_tier1_timing_reports_cpu_and_wall_per_call_with_the_load():
    from groundsearch.evaluation.intents import tier1_timing

    t = tier1_timing(["a table of the papers", "按会议统计论文的饼图"], runs=2, repeats=3)
    assert t["calls_per_run"] == 6 and t["runs"] == 2
    assert set(t["cpu"]) == set(t["wall"]) == {"p50", "p95", "p99"}
    assert all(v >= 0 for kind in ("cpu", "wall") for v in t[kind].values())
    assert len(t["load_avg_before"]) == 3 and len(t["load_avg_after"]) == 3


def test_eval_tier1_timing_times_tier_1_alone_through_the_cli(tmp_path):
    from groundsearch.interfaces.cli import main

    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"query": "a table of the papers", "format": "table"}\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["--data-dir", str(tmp_path), "eval", "--intents", str(rows),
                                       "--tier1-timing", "--json"])
    assert result.exit_code == 0, result.output
    timing = json.loads(result.output)
    assert timing["calls_per_run"] == 5 and set(timing["cpu"]) == {"p50", "p95", "p99"}
    text = CliRunner().invoke(main, ["--data-dir", str(tmp_path), "eval", "--intents", str(rows), "--tier1-timing"])
    assert "tier 1 per call" in text.output


@pytest.mark.slow
def test_heldout_format_and_chart_kind_meet_the_bar(tmp_path):
    """Issue 10's bar on the held-out split, through the CLI with the real MiniLM and e5 (tier 3 off)."""
    from groundsearch.interfaces.cli import main

    result = CliRunner().invoke(
        main, ["--data-dir", str(tmp_path), "eval", "--intents",
               "src/groundsearch/evaluation/data/intents-heldout.jsonl", "--json"],
        env={"GROUNDSEARCH_LLM_BASE_URL": "", "GROQ_API_KEY": ""},
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    held = report["splits"]["heldout"]["accuracy"]
    print(held, report["format_tiers"])
    assert report["tier3"] is None
    assert held["format"] >= 0.97 and held["chart_kind"] >= 0.95, held
    assert report["other_kind_named"]["heldout:named"] == report["other_kind_named"]["heldout:n"]
