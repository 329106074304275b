"""eval --chat scoring against hand-computed cases, and the shipped conversation files' shape."""

from __future__ import annotations

from importlib import resources

from groundsearch.evaluation.chat import load_conversations, score_conversations


def rec(conv, turn, reply, n_sources, *, expect=None, handoff=None, audit=None, mode="offline", ms=(100.0, 200.0)):
    r = {"conversation": conv, "split": "dev", "turn": turn, "expect_handoff": expect, "first_ms": ms[0],
         "total_ms": ms[1], "dossier": {"sources": [{"n": i + 1} for i in range(n_sources)]},
         "reply": {"text": reply, "mode": mode}, "audit": audit or {"units": [], "trace": []}}
    if handoff:
        r["handoff"] = {"target": handoff}
    return r


def test_scores_by_hand() -> None:
    records = [
        rec("a", 1, "x [1] y [2]", 2, expect="retrieval-expert",
            audit={"units": [{"text": "x", "original": "x"}, {"text": "[could not verify]", "original": "z"}],
                   "marked": 1, "rerolls": 2, "trace": []}),
        rec("a", 2, "z [3]", 2, expect="retrieval-expert", handoff="retrieval-expert", ms=(4000.0, 9000.0)),
        rec("b", 1, "w [1]", 1, handoff="papers-expert",
            audit={"units": [{"text": "", "original": "gone without a word"}], "trace": []}),
    ]
    s = score_conversations(records)
    assert s["citations"] == 4 and s["citation_validity"] == 0.75  # [3] names no source of its turn
    assert s["marked_share"] == round(1 / 3, 4) and s["rerolls_per_turn"] == round(2 / 3, 3)
    assert s["silent_drops"] == 1
    assert s["handoffs"] == 2 and s["handoff_precision"] == 0.5 and s["handoff_recall"] == 1.0
    assert s["total_ms"]["within"] == round(2 / 3, 4) and s["first_token_ms"]["within"] == round(2 / 3, 4)


def test_shipped_conversations() -> None:
    data = resources.files("groundsearch.evaluation") / "data"
    rows = load_conversations([str(data / "chat-dev.jsonl"), str(data / "chat-heldout.jsonl")])
    assert len(rows) >= 30 and all(len(r["turns"]) >= 3 for r in rows)
    assert {r["split"] for r in rows} == {"dev", "heldout"}
    assert {r["expect_handoff"] for r in rows} == {None, "retrieval-expert", "papers-expert"}


def test_a_streamed_turn_is_scored_on_its_whole_audit_and_timed_at_its_first_token() -> None:
    import time

    from groundsearch.evaluation.chat import run_conversation
    from groundsearch.types import Event

    whole = {"units": [{"text": "a", "original": "a"}, {"text": "[m]", "original": "b"}], "marked": 1, "rerolls": 2,
             "trace": []}

    def turn(message, conversation_id):  # a streamed turn's events, paced like a slow writer
        yield Event("dossier", {"sources": [{"n": 1}]})
        yield Event("token", {"text": "a [1]\n\n"})
        yield Event("audit", {"paragraph": 0, "text": "a [1]", "units": whole["units"][:1], "marked": 0,
                              "rerolls": 0, "trace": []})
        time.sleep(0.3)
        yield Event("audit", {"paragraph": 1, "text": "[m]", "units": whole["units"][1:], "marked": 1,
                              "rerolls": 2, "trace": []})
        yield Event("reply", {"text": "a [1]\n\n[m]", "mode": "llm", "audit": whole})
        yield Event("complete", {"conversation_id": conversation_id})

    (record,) = run_conversation(turn, {"id": "s", "split": "dev", "turns": ["q"]})
    assert record["audit"] == whole  # the turn's audit, not its last paragraph's
    assert record["first_ms"] < record["total_ms"] - 250  # the first token, not the reply
    assert score_conversations([record])["marked_share"] == 0.5


def test_model_prose_counts_only_replies_the_model_wrote() -> None:
    by = lambda who: {"diagnostics": {"reply_by": who}}  # noqa: E731
    records = [rec("a", 1, "x [1]", 1, mode="llm"), rec("a", 2, "y [1]", 1, mode="llm"),
               rec("a", 3, "z [1]", 1, mode="llm", audit={"units": [{"text": "[m]", "original": "z"}], "marked": 1,
                                                         "trace": []})]
    records[0]["complete"], records[1]["complete"], records[2]["complete"] = by("model"), by("extractive"), by("model")
    s = score_conversations(records)
    assert (s["llm_turns"], s["model_prose_turns"], s["model_prose_passed"]) == (3, 2, 1)


def test_records_are_written_as_each_turn_ends_and_only_whole_conversations_are_scored(tmp_path) -> None:
    from groundsearch.evaluation.chat import load_records, report_of, run_conversation
    from groundsearch.types import Event

    out = tmp_path / "records.jsonl"
    seen_on_disk: list[int] = []

    def turn(message, conversation_id):
        seen_on_disk.append(len(out.read_text().splitlines()) if out.exists() else 0)
        if message == "boom":
            raise RuntimeError("the run is stopped mid-conversation")
        yield Event("dossier", {"sources": [{"n": 1}]})
        yield Event("reply", {"text": f"{message} [1]", "mode": "llm", "audit": {"units": [], "trace": []}})

    import json

    def keep(record):
        with open(out, "a") as f:
            f.write(json.dumps(record) + "\n")

    run_conversation(turn, {"id": "a", "split": "dev", "turns": ["one", "two"]}, keep)
    try:
        run_conversation(turn, {"id": "b", "split": "dev", "turns": ["three", "boom"]}, keep)
    except RuntimeError:
        pass
    assert seen_on_disk == [0, 1, 2, 3]  # each turn was on disk before the next one started
    records, mode = load_records(out)
    assert [(r["conversation"], r["turn"]) for r in records] == [("a", 1), ("a", 2)]  # b was cut off: left out
    assert mode == "llm" and report_of(records, mode)["all"]["conversation_ids"] == ["a"]
