"""The known-fabrication case with the real local model (llama.cpp server) as L3's reroller.

The reply under audit is fixed (the fabrication is the input); the model's job is the correction. Whatever the
0.5B model writes, the invented organisation and figure must never reach the reader as a verified sentence:
either a reroll passes every check, or the unit ends as the visible marker after two tries — never a silent gap.
That is the whole verdict: whether the model *answered* a try (or timed out on a busy machine) depends on the
machine's speed, so it is recorded and printed (``-s``) for the report, never asserted.
"""

from __future__ import annotations

import pytest

from groundsearch.answer.auditor import MARKER, audit_reply
from groundsearch.models.base import ChatMessage
from groundsearch.models.llm import build_llm
from groundsearch.settings import load_settings

from ..answer.auditor.dossier import CONSTRAINTS
from ..answer.auditor.test_reply import FABRICATION

pytestmark = pytest.mark.slow


def test_the_known_fabrication_with_the_real_model_is_rerolled_or_marked(llama_server, tmp_path):
    settings = load_settings(env={}, data_dir=str(tmp_path), llm={"base_url": llama_server.base_url,
                                                                   "timeout_s": 120})
    llm = build_llm(settings.llm)
    candidates: list[str] = []  # what the model answered, try by try
    failures: list[str] = []  # tries that ended in an error (a timeout under load) instead of an answer

    def reroll(unit: str, message: str) -> str:
        try:
            reply = llm.complete([ChatMessage("system", "You correct one sentence so it only states what the "
                                                        "evidence says. Reply with the corrected sentence only."),
                                  ChatMessage("user", message)], max_tokens=80).text
        except Exception as exc:
            failures.append(f"{type(exc).__name__}: {exc}")
            raise  # the auditor counts it as a failed try, as it would in production
        candidates.append(reply)
        return reply

    reply = audit_reply(FABRICATION, CONSTRAINTS, reroll=reroll)
    failing = reply.units[1]
    print("\ncandidates:", candidates, "\nfailed tries:", failures, "\nstatus:", failing.status,
          "tries:", failing.tries, "\ntext:", reply.text)
    print("trace:", *reply.trace, sep="\n  ")
    # the fabrication is caught, and every try was made: answered or failed, none skipped
    assert failing.reasons and any("globex" in r.casefold() for r in failing.reasons)
    assert 1 <= failing.tries <= 2 and len(candidates) + len(failures) == failing.tries
    assert [u.status for u in (reply.units[0], reply.units[2])] == ["ok", "ok"]
    assert failing.text  # never a silent gap
    if failing.status == "marked":
        assert failing.text == MARKER and failing.tries == 2 and MARKER in reply.text
    else:
        assert failing.status == "rerolled"
        assert "globex" not in failing.text.casefold() and "37" not in failing.text
    assert "globex" not in reply.text.casefold()
