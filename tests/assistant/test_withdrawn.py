"""``redact_turn`` on hand-made turns: which sentences a withdrawn source takes with it, and what stays."""

from __future__ import annotations

from groundsearch.assistant.withdrawn import WITHDRAWN, WITHDRAWN_SENTENCE, redact_turn, visible_filter
from groundsearch.store.chat_base import StoredTurn

SECRET = "The valve leaks at 41 bar in the rig."


def _turn(reply: str) -> StoredTurn:
    sources = [{"n": 1, "id": "docs:x#0", "item_id": "docs:x", "title": "Valve memo",
                "text": f"# Valve memo\n\n{SECRET}", "url": "https://x.example/memo", "fields": {"product": "Valvo"},
                "entities": ["Valvo"]},
               {"n": 2, "id": "docs:y#0", "item_id": "docs:y", "title": "Pump", "text": "The pump runs at 12 bar.",
                "url": None, "fields": {}, "entities": []}]
    answer = [{"text": SECRET, "citations": [1]}, {"text": "The pump runs at 12 bar.", "citations": [2]}]
    return StoredTurn(seq=1, user="q", reply=reply, assistant="default",
                      dossier={"sources": sources, "answer": answer, "supported_entities": ["Valvo"],
                               "source_urls": ["https://x.example/memo"]},
                      audit={"text": reply, "units": [{"text": f"say: [1] [2] {SECRET}", "original": SECRET}]},
                      tools=({"name": "render_evidence_card", "arguments": {"quote": SECRET}, "by": "model"},))


def test_a_sentence_citing_only_a_withdrawn_source_becomes_the_marker_in_either_citation_style() -> None:
    extractive = redact_turn(_turn(f"Closest: [1] [2] {SECRET} [1] The pump runs at 12 bar. [2]"),
                             frozenset({"docs:x"}))
    assert extractive.reply == f"Closest: [1] [2] {WITHDRAWN_SENTENCE} The pump runs at 12 bar. [2]"
    model = redact_turn(_turn("The valve leaks at 41 bar [1]. The pump runs at 12 bar [2]."), frozenset({"docs:x"}))
    assert model.reply == f"{WITHDRAWN_SENTENCE} The pump runs at 12 bar [2]."


def test_the_withdrawn_entry_keeps_its_number_and_loses_its_content_everywhere() -> None:
    turn = redact_turn(_turn(f"{SECRET} [1]"), frozenset({"docs:x"}))
    gone, kept = turn.dossier["sources"]
    assert gone == {"n": 1, "id": "docs:x#0", "item_id": "docs:x", "title": WITHDRAWN, "text": WITHDRAWN, "url": None,
                    "fields": {}, "entities": [], "withdrawn": True}
    assert "withdrawn" not in kept and kept["text"] == "The pump runs at 12 bar."
    assert turn.dossier["answer"][0]["text"] == WITHDRAWN_SENTENCE and turn.dossier["answer"][1]["citations"] == [2]
    assert turn.dossier["supported_entities"] == [] and turn.dossier["source_urls"] == []
    flat = str(turn)
    assert SECRET not in flat and "Valve memo" not in flat and "41 bar" not in flat


def test_a_turn_citing_nothing_withdrawn_is_returned_unchanged() -> None:
    turn = _turn(f"{SECRET} [1]")
    assert redact_turn(turn, frozenset({"docs:other"})) is turn


def test_the_visibility_filter_admits_drafts_only_when_asked_and_keeps_published_history() -> None:
    viewer = visible_filter("t", ["docs:x"], drafts=False)
    assert viewer.statuses == ("published", "archived") and viewer.include_superseded and viewer.tenant == "t"
    assert "draft" in visible_filter(None, ["docs:x"], drafts=True).statuses
