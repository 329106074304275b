"""Model output is untrusted input too: a reply a planted document or query talked the model into must be
rejected by the readers that parse it, never crash the request."""

from __future__ import annotations

import pytest

from groundsearch.query.intent.schema import InvalidIntentOutput, parse_intent_output


@pytest.mark.parametrize("text", ["[" * 5000, '{"domains": ' + "[" * 5000], ids=["array", "inside an object"])
def test_attack_an_intent_reply_nesting_past_the_parser_limit_is_an_invalid_intent(text: str) -> None:
    """The intent tier falls back on ``InvalidIntentOutput``; before the fix the parser's RecursionError
    escaped it instead."""
    with pytest.raises(InvalidIntentOutput):
        parse_intent_output(text, domains=["docs"])
