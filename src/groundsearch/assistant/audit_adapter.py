"""The chat turn's one call into the layered auditor (``answer/auditor``, built beside this package), with the
reroll callable it needs: rewrite one failing unit from the dossier's evidence, nothing else.

Link health (L4) runs when the deployment enables it (``auditor.url_health``); the trace says when it did not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..models.base import LLM, ChatMessage
from .guard import withhold_instructions

if TYPE_CHECKING:
    from .config import Assistant
    from .dossier import Dossier

__all__ = ["audit_text", "make_reroll"]

MAX_REROLLS = 2
REROLL_TOKENS = 160


def make_reroll(llm: LLM, assistant: Assistant):  # noqa: ANN201 - the auditor's callable type
    """``reroll(unit_text, message) -> str``: the auditor's corrective message sent under the assistant's own
    system prompt, so a rewrite obeys the same guard as the reply."""

    def reroll(unit_text: str, message: str) -> str:
        completion = llm.complete([ChatMessage("system", assistant.system_prompt), ChatMessage("user", message)],
                                  max_tokens=REROLL_TOKENS)
        return completion.text.strip()

    return reroll


def audit_text(text: str, dossier: Dossier, llm: LLM | None, assistant: Assistant, *, url_health: Any = None,
               max_rerolls: int = MAX_REROLLS) -> Mapping[str, Any]:
    """The audited reply and its trace (``units``, ``marked``, ``rerolls``, ``url_health``), JSON-ready.
    Without an LLM nothing can be rerolled: a failing unit is marked at once."""
    from ..answer import auditor

    view = dossier.as_dict()
    # the auditor quotes the closest source passages in its reroll message: an instruction planted in a source
    # must no more reach the model that way than through the dossier (guard.py)
    view["sources"] = [{**s, "text": withhold_instructions(s["text"])[0]} for s in view["sources"]]
    constraints = auditor.Constraints.from_dossier(view)
    reply = auditor.audit_reply(text, constraints, reroll=make_reroll(llm, assistant) if llm is not None else None,
                                max_rerolls=max_rerolls, url_health=url_health)
    return {"ran": True, **reply.as_dict(), "text": reply.text}
