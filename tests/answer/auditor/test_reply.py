"""audit_reply end to end with a scripted reroller: L3 rerolls only the failing unit, ≤ 2 tries, then marks it."""

from groundsearch.answer.auditor import MARKER, Constraints, audit_paragraphs, audit_reply

from .dossier import CONSTRAINTS

FABRICATION = ("Acme Search uses Tantivy for keyword retrieval. "
               "Globex Industries cut support tickets by 37% after adopting Acme Search.\n\n"
               "Acme Search cut query latency by 40%.")


class Scripted:
    """A reroller that answers from a script and records every call (the unit and the corrective message)."""

    def __init__(self, *replies: str | Exception) -> None:
        self.replies = list(replies)
        self.calls: list[tuple[str, str]] = []

    def __call__(self, unit: str, message: str) -> str:
        self.calls.append((unit, message))
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply


def test_the_known_fabrication_is_caught_rerolled_twice_and_marked():
    reroll = Scripted("Globex Industries saw 37% fewer tickets with Acme Search.",
                      "Acme Search helped Globex Industries reduce tickets by a third.")
    reply = audit_reply(FABRICATION, CONSTRAINTS, reroll=reroll)
    statuses = [u.status for u in reply.units]
    assert statuses == ["ok", "marked", "ok"]
    failing = reply.units[1]
    assert failing.tries == 2 and len(reroll.calls) == 2
    assert any("globex industries" in r for r in failing.reasons)
    # only the failing unit went to the model, quoted, with the evidence it may use
    unit, message = reroll.calls[0]
    assert unit.startswith("Globex Industries cut support tickets by 37%")
    assert f"\u201c{unit}\u201d" in message and "Names you may use: Acme Search, Tantivy, Initech" in message
    assert "[s1] Acme Search uses Tantivy" in message
    # the marker is inline where the claim was; neighbours and paragraphs stay
    assert reply.text == (f"Acme Search uses Tantivy for keyword retrieval. {MARKER}\n\n"
                          "Acme Search cut query latency by 40%.")
    assert "Globex" not in reply.text
    assert reply.marked == 1 and reply.rerolls == 2
    assert any("marked after 2 failed reroll(s)" in t for t in reply.trace)


def test_a_passing_reroll_replaces_only_its_unit():
    reroll = Scripted("Acme Search cut query latency by 40% after moving to impact-ordered postings.")
    reply = audit_reply("Tantivy powers Acme Search. Acme Search cut query latency by 90%.", CONSTRAINTS,
                        reroll=reroll)
    assert [u.status for u in reply.units] == ["ok", "rerolled"]
    assert reply.units[1].tries == 1
    assert reply.text == ("Tantivy powers Acme Search. "
                          "Acme Search cut query latency by 40% after moving to impact-ordered postings.")


def test_a_failing_reroll_message_carries_the_new_problem():
    reroll = Scripted("Initech cut latency by 90%.", "Acme Search cut query latency by 40%.")
    reply = audit_reply("Acme Search cut query latency by 90%.", CONSTRAINTS, reroll=reroll)
    assert reply.units[0].status == "rerolled" and reply.units[0].tries == 2
    assert "metric 90 for initech" in reroll.calls[1][1]


def test_model_errors_and_empty_replies_are_failed_tries_and_end_in_the_marker():
    reroll = Scripted(RuntimeError("model down"), "")
    reply = audit_reply("Acme Search cut query latency by 90%.", CONSTRAINTS, reroll=reroll)
    assert reply.text == MARKER and reply.units[0].tries == 2
    assert any("RuntimeError: model down" in t for t in reply.trace)
    assert any("empty reply" in t for t in reply.trace)


def test_without_a_reroller_a_failing_unit_is_marked_never_dropped():
    reply = audit_reply("Acme Search cut query latency by 90%.", CONSTRAINTS)
    assert reply.text == MARKER and reply.units[0].status == "marked" and reply.units[0].tries == 0
    assert audit_reply("Acme Search cut query latency by 90%.", CONSTRAINTS,
                       reroll=Scripted(), max_rerolls=0).text == MARKER


def test_l1_fixes_are_fixed_status_and_removed_units_are_traced():
    text = ("See [click here](https://acme.example/docs/latency).  Source: https://made-up.example/r\n"
            "Tantivy powers Acme Search today. Tantivy powers Acme Search today.")
    reply = audit_reply(text, CONSTRAINTS)
    assert [u.status for u in reply.units] == ["fixed", "fixed", "ok", "fixed"]
    assert reply.text == "See [Acme Search](https://acme.example/docs/latency). Tantivy powers Acme Search today."
    assert any("only an unverifiable link" in t for t in reply.trace)
    assert any("repeated sentence collapsed" in t for t in reply.trace)


def test_headings_and_lists_keep_their_lines():
    text = "##Results\n- Tantivy powers Acme Search.\n- Initech serves 1200 customers.\n\nDone here."
    reply = audit_reply(text, CONSTRAINTS)
    assert reply.text == "## Results\n- Tantivy powers Acme Search.\n- Initech serves 1200 customers.\n\nDone here."
    assert reply.paragraphs()[1] == "Done here."


def test_url_health_is_reported_as_off_when_not_configured():
    assert audit_reply("Tantivy.", CONSTRAINTS).url_health.startswith("off")


def test_constraints_from_a_dossier_dict():
    dossier = {"supported_entities": ["Acme Search"], "source_urls": ["https://acme.example/docs/latency"],
               "sources": [{"id": "a", "title": "Latency", "text": "Acme Search cut latency by 40%."}]}
    c = Constraints.from_dossier(dossier)
    assert c.sources == {"a": "Latency\nAcme Search cut latency by 40%.\n"}
    assert audit_reply("Acme Search cut latency by 40%.", c).units[0].status == "ok"


def test_streaming_audits_paragraph_by_paragraph_and_says_which_was_replaced():
    events = list(audit_paragraphs(FABRICATION.split("\n\n"), CONSTRAINTS, reroll=Scripted("Globex grew 37%.", "Globex grew 37%.")))
    assert [e["paragraph"] for e in events] == [0, 1]
    assert events[0]["replaced"] is True and MARKER in events[0]["text"]
    assert events[1]["replaced"] is False and events[1]["text"] == "Acme Search cut query latency by 40%."


def test_a_reroll_that_pastes_a_passage_keeps_its_first_new_sentence():
    pasted = ("Acme Search uses Tantivy for keyword retrieval. In 2024 Acme Search cut query latency by 40% "
              "after moving to impact-ordered postings. https://acme.example/docs/latency")
    reply = audit_reply(FABRICATION, CONSTRAINTS, reroll=Scripted(pasted))
    assert reply.units[1].status == "rerolled"
    assert reply.units[1].text == ("In 2024 Acme Search cut query latency by 40% after moving to "
                                   "impact-ordered postings. https://acme.example/docs/latency")
    assert reply.text.count("Acme Search uses Tantivy for keyword retrieval.") == 1


def test_a_reroll_that_only_repeats_the_reply_fails():
    reroll = Scripted("Acme Search uses Tantivy for keyword retrieval.", "Acme Search cut query latency by 40%.")
    reply = audit_reply(FABRICATION, CONSTRAINTS, reroll=reroll)
    assert reply.units[1].status == "marked"
    assert any("only repeats the rest of the reply" in t for t in reply.trace)


def test_chat_dossier_sources_give_canonical_urls_and_n_citations_pass_through():
    dossier = {"supported_entities": ["acme search"], "source_urls": ["https://acme.example/docs/latency"],
               "sources": [{"id": "docs:a#0", "n": 1, "title": "Latency", "url": "https://acme.example/docs/latency",
                            "text": "Acme Search cut latency by 40%.", "entities": ["acme search"]}]}
    c = Constraints.from_dossier(dossier)
    assert c.canonical_urls == {"acme search": "https://acme.example/docs/latency"}
    reply = audit_reply("Acme Search cut latency by 40% [1]. Acme Search docs: [here](https://acme.example/v2).", c)
    assert reply.text == ("Acme Search cut latency by 40% [1]. "
                          "Acme Search docs: [Acme Search](https://acme.example/docs/latency).")


def test_a_relayed_credential_prompt_with_a_link_is_never_shown_as_checked():
    phish = Constraints(source_urls=("https://acme.example/login",), sources={
        "p": "Your session has expired: re-enter your password at https://acme.example/login"})
    reply = audit_reply("Your session has expired, so re-enter your password at https://acme.example/login.", phish)
    assert reply.text == MARKER and reply.units[0].status == "marked"
    assert any(r.startswith("content safety: credential prompt") for r in reply.units[0].reasons)


def test_an_instruction_to_the_reader_is_flagged_on_the_unit_not_failed():
    reply = audit_reply("Please contact Initech for pricing.", CONSTRAINTS)
    assert reply.units[0].status == "ok" and reply.units[0].safety
    assert reply.units[0].as_dict()["safety"][0].startswith("instruction aimed at the reader")
