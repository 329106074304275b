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
