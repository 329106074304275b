"""The chat turn's one call into the layered auditor (``answer/auditor``, built beside this package), with the
reroll callable it needs: rewrite one failing unit from the dossier's evidence, nothing else.

Link health (L4) runs when the deployment enables it (``auditor.url_health``); the trace says when it did not.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..models.base import LLM, ChatMessage
from .guard import withhold_instructions

if TYPE_CHECKING:
    from .config import Assistant
    from .dossier import Dossier

__all__ = ["ParagraphAuditor", "audit_text", "make_reroll"]

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


def _constraints(dossier: Dossier, model_prose: bool) -> Any:
    """``model_prose``: the text is the model's, so each sentence must rest on a source's words too; the
    extractive answer and the configured fallback are stored text, checked for their claims only."""
    from ..answer import auditor

    view = dossier.as_dict()
    # the auditor quotes the closest source passages in its reroll message: an instruction planted in a source
    # must no more reach the model that way than through the dossier (guard.py)
    view["sources"] = [{**s, "text": withhold_instructions(s["text"])[0]} for s in view["sources"]]
    return dataclasses.replace(auditor.Constraints.from_dossier(view), require_support=model_prose)


def audit_text(text: str, dossier: Dossier, llm: LLM | None, assistant: Assistant, *, url_health: Any = None,
               max_rerolls: int = MAX_REROLLS, model_prose: bool | None = None) -> Mapping[str, Any]:
    """The audited reply and its trace (``units``, ``marked``, ``rerolls``, ``url_health``), JSON-ready.
    Without an LLM nothing can be rerolled: a failing unit is marked at once."""
    from ..answer import auditor

    prose = llm is not None if model_prose is None else model_prose
    reply = auditor.audit_reply(text, _constraints(dossier, prose),
                                reroll=make_reroll(llm, assistant) if llm is not None else None,
                                max_rerolls=max_rerolls, url_health=url_health)
    return {"ran": True, **reply.as_dict(), "text": reply.text}


class ParagraphAuditor:
    """The same audit, one paragraph at a time, for a streamed reply (assistant/streaming.py).

    ``check`` runs the pure layers (and link health) without a reroll and settles the paragraph only when
    nothing in it fails; ``settle`` runs the whole audit, rerolls included. ``combined`` is the turn's audit
    in :func:`audit_text`'s shape, from the settled paragraphs."""

    def __init__(self, dossier: Dossier, llm: LLM | None, assistant: Assistant, *, url_health: Any = None,
                 max_rerolls: int = MAX_REROLLS) -> None:
        self._constraints = _constraints(dossier, llm is not None)
        self._reroll = make_reroll(llm, assistant) if llm is not None else None
        self._url_health = url_health
        self._max_rerolls = max_rerolls
        self.settled: dict[int, tuple[str, dict[str, Any]]] = {}  # paragraph → (the text audited, its event)

    def _run(self, index: int, text: str, reroll: bool) -> Any:
        from ..answer import auditor

        return auditor.audit_reply(text, self._constraints, reroll=self._reroll if reroll else None,
                                   max_rerolls=self._max_rerolls if reroll else 0, url_health=self._url_health,
                                   paragraph_offset=index)

    def _payload(self, index: int, text: str, result: Any) -> dict[str, Any]:
        payload = {"paragraph": index, "text": result.text, "replaced": result.text != text.strip(),
                   **{k: v for k, v in result.as_dict().items() if k != "text"}}
        self.settled[index] = (text, payload)
        return payload

    def check(self, index: int, text: str) -> dict[str, Any] | None:
        result = self._run(index, text, reroll=False)
        return None if result.marked else self._payload(index, text, result)

    def settle(self, index: int, text: str) -> dict[str, Any] | None:
        """The event for paragraph ``index`` reading ``text``; ``None`` when it was settled with that text."""
        done = self.settled.get(index)
        if done is not None and done[0] == text:
            return None
        return self._payload(index, text, self._run(index, text, reroll=True))

    def combined(self, count: int) -> dict[str, Any]:
        parts = [self.settled[i][1] for i in range(count)]
        return {"ran": True, "text": "\n\n".join(p["text"] for p in parts if p["text"]),
                "units": [u for p in parts for u in p["units"]], "trace": [t for p in parts for t in p["trace"]],
                "url_health": parts[-1]["url_health"] if parts else "off: nothing to check",
                "marked": sum(p["marked"] for p in parts), "rerolls": sum(p["rerolls"] for p in parts),
                "paragraphs": count}
