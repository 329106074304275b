"""A chat turn's answer as terminal text: the reply, then what the assistant asks or hands over, then blocks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["turn_lines"]


def _block(b: Mapping[str, Any]) -> list[str]:
    if not b.get("valid", True):
        return [f"  [{b['type']}] not shown: {b.get('error', '')}" + (f" — {b['fallback']}" if b.get("fallback") else "")]
    kind = b["type"]
    if kind == "evidence-card":
        return [f"  [{b['source']}] {b['title']}" + (f" <{b['url']}>" if b.get("url") else "")]
    if kind == "recommendation":
        return [f"  verdict {b['verdict']}: {b['rationale']}" + "".join(f" [{n}]" for n in b["citations"])]
    if kind == "risk-list":
        return [f"  risk ({r['severity']}): {r['risk']} — {r['mitigation']}" for r in b["risks"]]
    if kind == "phased-plan":
        return [f"  {p['name']}: " + "; ".join(p["steps"]) for p in b["phases"]]
    if kind == "mermaid":
        return ["  " + line for line in b["code"].splitlines()]
    return [f"  [{kind}]"]


def turn_lines(answer: Mapping[str, Any]) -> list[str]:
    lines = [answer["reply"]]
    if answer.get("discovery"):
        lines.append(f"? {answer['discovery']['question']}")
    if answer.get("handoff"):
        lines.append(f"→ handing over to {answer['handoff']['target']}: {answer['handoff']['scope_summary']}")
    for block in answer.get("render") or ():
        lines += _block(block)
    audit = answer.get("audit") or {}
    if audit.get("marked"):
        lines.append(f"  ({audit['marked']} claim(s) marked: could not be verified against the sources)")
    return lines
