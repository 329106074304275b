"""The chat turn's one call into the layered auditor (``answer/auditor``, built beside this package), with the
reroll callable it needs: rewrite one failing unit from the dossier's evidence, nothing else.

Until the auditor is installed the trace says it did not run — never that the reply was checked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..models.base import LLM, ChatMessage

if TYPE_CHECKING:
    from ..settings import Settings
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


def audit_text(text: str, dossier: Dossier, llm: LLM | None, assistant: Assistant,
               settings: Settings) -> Mapping[str, Any]:
    try:
        from ..answer import auditor  # type: ignore[attr-defined]
    except ImportError:
        return {"ran": False, "reason": "auditor not installed", "text": text, "marked": 0, "rerolls": 0}
    constraints = auditor.Constraints.from_dossier(dossier.as_dict())
    reply = auditor.audit_reply(text, constraints, reroll=make_reroll(llm, assistant) if llm is not None else None,
                                max_rerolls=MAX_REROLLS, url_health=None)
    return {"ran": True, **reply.as_dict(), "text": reply.text}
