"""The assistant's tools as OpenAI function definitions, and the rules that decide when each may run.

The rules are code, not prompt: ``prepare_dossier`` runs first on every turn; ``ask_discovery_question`` is
offered only when the dossier is thin and runs at most once a turn; ``handoff_to_specialist`` is offered only at
≥ ``HANDOFF_ENTITIES`` retrieval entities and ≥ ``HANDOFF_SIGNALS`` qualification signal, and only to the
assistant's own specialists. The same rules drive the offline assistant, so both behave alike.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from .config import Assistant
from .dossier import Dossier
from .render import SEVERITIES, VERDICTS

__all__ = ["HANDOFF_ENTITIES", "HANDOFF_SIGNALS", "accept_discovery", "handoff_decision", "tool_definitions",
           "turn_tools"]

HANDOFF_ENTITIES = 3
HANDOFF_SIGNALS = 1
RENDER_TOOLS = ("render_evidence_card", "render_phased_plan", "render_risk_list", "render_recommendation",
                "render_mermaid")


def _fn(name: str, description: str, properties: dict[str, Any], required: Sequence[str]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": description, "parameters": {
        "type": "object", "properties": properties, "required": list(required), "additionalProperties": False}}}


def tool_definitions(assistant: Assistant, render_tools: Sequence[str] = RENDER_TOOLS) -> list[dict[str, Any]]:
    """Every tool ``assistant`` has; :func:`turn_tools` picks the ones a turn offers, and :mod:`assistant.turn`
    still refuses a call outside the rules."""
    tools = [_fn("ask_discovery_question", "Ask the user ONE short question about a missing field.",
                 {"signal": {"type": "string", "enum": list(assistant.fields)},
                  "question": {"type": "string", "maxLength": 200}}, ["signal", "question"])]
    if assistant.specialists:
        tools.append(_fn("handoff_to_specialist", "Hand the conversation to a specialist assistant.",
                         {"target": {"type": "string", "enum": list(assistant.specialists)},
                          "scope_summary": {"type": "string", "maxLength": 300},
                          "signals": {"type": "array", "items": {"type": "string"}, "maxItems": 6}},
                         ["target", "scope_summary", "signals"]))
    numbers = {"type": "integer", "minimum": 1, "maximum": 20}
    tools += [t for t in [
        _fn("render_evidence_card", "Show one source as a card.", {"source": numbers}, ["source"]),
        _fn("render_recommendation", "Give a verdict with its rationale.",
            {"verdict": {"type": "string", "enum": list(VERDICTS)}, "rationale": {"type": "string", "maxLength": 300},
             "citations": {"type": "array", "items": numbers, "maxItems": 4}},
            ["verdict", "rationale", "citations"]),
        _fn("render_risk_list", "List risks with severity and mitigation.",
            {"risks": {"type": "array", "maxItems": 5, "items": {"type": "object", "properties": {
                "risk": {"type": "string"}, "severity": {"type": "string", "enum": list(SEVERITIES)},
                "mitigation": {"type": "string"}}, "required": ["risk", "severity", "mitigation"]}}}, ["risks"]),
        _fn("render_phased_plan", "A plan in phases of steps.",
            {"phases": {"type": "array", "maxItems": 5, "items": {"type": "object", "properties": {
                "name": {"type": "string"}, "steps": {"type": "array", "items": {"type": "string"}, "maxItems": 5}},
                "required": ["name", "steps"]}}}, ["phases"]),
        _fn("render_mermaid", "A Mermaid flowchart (flowchart TD, nodes and --> edges only).",
            {"code": {"type": "string", "maxLength": 2000}}, ["code"]),
    ] if t["function"]["name"] in render_tools]
    return tools


# The words by which a user asks for a render tool's structure; without one, a render call is not what the turn
# expects, and offering it costs a CPU model prompt tokens and tempts it to answer in JSON.
_ASKS_FOR = {
    "render_evidence_card": re.compile(r"\b(?:card|evidence|show (?:me )?the source)", re.I),
    "render_recommendation": re.compile(r"\b(?:recommend\w*|should (?:i|we)|verdict|go or no|worth it|which (?:one|is better))\b", re.I),
    "render_risk_list": re.compile(r"\b(?:risks?|pitfalls?|downsides?)\b", re.I),
    "render_phased_plan": re.compile(r"\b(?:plan|phases?|roadmap|steps)\b", re.I),
    "render_mermaid": re.compile(r"\b(?:diagram|flowchart|mermaid|draw)\b", re.I),
}


def turn_tools(assistant: Assistant, dossier: Dossier, text: str, handoff: Mapping[str, Any] | None,
               render_tools: Sequence[str] = RENDER_TOOLS) -> list[dict[str, Any]]:
    """The tools offered on this turn: only those whose call is an expected output of it — a discovery question
    when the dossier is thin, the handoff when the threshold is met, a render tool the user's words ask for.
    Measured on the 0.5B model: offered tools on every turn, it answered with a tool call in JSON instead of prose."""
    wanted = {"handoff_to_specialist"} if handoff is not None else set()
    if handoff is None and dossier.suggested_discovery_question is not None:
        wanted.add("ask_discovery_question")
    wanted |= {name for name, asks in _ASKS_FOR.items() if asks.search(text)}
    return [t for t in tool_definitions(assistant, render_tools) if t["function"]["name"] in wanted]


PREPARE_DOSSIER = _fn("prepare_dossier", "Resolve entities and retrieve sources for the user's message.",
                      {"query": {"type": "string"}}, ["query"])


def handoff_decision(assistant: Assistant, dossier: Dossier,
                     topics_of: Mapping[str, Sequence[str]]) -> dict[str, Any] | None:
    """The handoff the threshold calls for, or ``None``: target is the specialist whose configured topics meet
    the retrieval entities most (a topic equal to an entity's value or field, or contained in the value); ties go
    to the first specialist listed."""
    entities = dossier.retrieval_entities
    if not assistant.specialists or len(entities) < HANDOFF_ENTITIES or len(dossier.qualification_signals) < HANDOFF_SIGNALS:
        return None

    def score(name: str) -> int:
        topics = [t.casefold() for t in topics_of.get(name, ())]
        return sum(1 for e in entities for t in topics if t in (e["value"], e["field"]) or f" {t} " in f" {e['value']} ")

    target = max(assistant.specialists, key=lambda n: (score(n), -assistant.specialists.index(n)))
    return {"target": target, "scope_summary": scope_summary(dossier), "signals": signal_lines(dossier)}


def signal_lines(dossier: Dossier) -> list[str]:
    return [f"{s['signal']}: {s['value']}" for s in dossier.qualification_signals]


def scope_summary(dossier: Dossier) -> str:
    """One line a specialist reads first: what the user is after and what is known about them."""
    wants = ", ".join(f"{e['field']} {e['value']}" for e in dossier.retrieval_entities)
    known = "; ".join(signal_lines(dossier)) or "none yet"
    return f"The user is asking about {wants}. Known: {known}."


def accept_discovery(assistant: Assistant, dossier: Dossier, args: Mapping[str, Any]) -> dict[str, str] | None:
    """A model's discovery question if it is usable (a known field, a real question), else the template one."""
    suggested = dossier.suggested_discovery_question
    if suggested is None:
        return None
    signal = str(args.get("signal", ""))
    question = " ".join(str(args.get("question", "")).split())
    if signal in assistant.fields and 8 <= len(question) <= 200 and question.endswith("?"):
        return {"signal": signal, "question": question}
    return dict(suggested)
