"""Render tools: structured blocks the assistant may show beside its reply, each validated before it is shown.

Blocks are plain dicts with a ``type``: ``evidence-card``, ``phased-plan``, ``risk-list``, ``recommendation``
(verdict GO / NO_GO / CAUTION) and ``mermaid``. A Mermaid diagram is shown only when its text passes
:func:`validate_mermaid`, a strict grammar of the flowchart subset this product emits (no PyPI package
validates Mermaid without a JavaScript runtime); otherwise the block says so and carries the fallback text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["MERMAID_FALLBACK", "VERDICTS", "render", "validate_mermaid"]

VERDICTS = ("GO", "NO_GO", "CAUTION")
SEVERITIES = ("low", "medium", "high")
MERMAID_FALLBACK = "The diagram could not be validated, so it is not shown."
MAX_ITEMS = 8
_TEXT_MAX = 300

_HEADER = re.compile(r"^(?:flowchart|graph)\s+(?:TD|TB|LR|RL|BT)$")
_ID = r"[A-Za-z][A-Za-z0-9_]{0,30}"
_LABEL = r"[^\[\]{}()|\"<>;`]{1,80}"
_NODE = rf"{_ID}(?:\[{_LABEL}\]|\({_LABEL}\)|\{{{_LABEL}\}})?"
_EDGE = rf"(?:-->|---|-\.->|==>)(?:\|{_LABEL}\|)?"
_LINE = re.compile(rf"^{_NODE}(?:\s*{_EDGE}\s*{_NODE})*$")


def validate_mermaid(code: str) -> str | None:
    """``None`` when ``code`` is a diagram of the supported subset, else the first problem, with its line.

    Subset: a ``flowchart``/``graph`` header with a direction, then one statement per line — a node
    (``A``, ``A[label]``, ``A(label)``, ``A{label}``) or a chain of nodes joined by ``-->``, ``---``, ``-.->`` or
    ``==>`` with an optional ``|label|``; ``%%`` comments and blank lines. Labels exclude brackets, quotes, ``<>``,
    ``;`` and backticks, which is what keeps a label from becoming markup or script."""
    lines = [ln.strip() for ln in code.strip().splitlines()]
    if not lines or not _HEADER.match(lines[0]):
        return "line 1: expected 'flowchart TD' (or graph; TD, TB, LR, RL or BT)"
    statements = 0
    for number, line in enumerate(lines[1:], start=2):
        if not line or line.startswith("%%"):
            continue
        if not _LINE.match(line):
            return f"line {number}: not a node or edge statement of the supported subset: {line[:60]!r}"
        statements += 1
    if statements == 0:
        return "the diagram has no nodes"
    if len(code) > 4000:
        return "the diagram is longer than 4000 characters"
    return None


def _text(value: Any, what: str) -> str:
    text = " ".join(str(value or "").split())
    if not text:
        raise ValueError(f"{what} is empty")
    return text[:_TEXT_MAX]


def _items(value: Any, what: str) -> list[Any]:
    if not isinstance(value, list) or not value:
        raise ValueError(f"{what} must be a non-empty list")
    return value[:MAX_ITEMS]


def _citations(value: Any, sources: Sequence[Mapping[str, Any]]) -> list[int]:
    numbers = {int(s["n"]) for s in sources}
    out = []
    for v in value if isinstance(value, list) else []:
        if isinstance(v, int) and v in numbers and v not in out:
            out.append(v)
    return out


def render(name: str, args: Mapping[str, Any], sources: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The block a render tool call produces; a call with bad arguments yields ``{"valid": False, "error"}``
    instead of a half-drawn block."""
    kind = name.removeprefix("render_").replace("_", "-")
    try:
        if name == "render_evidence_card":
            source = next((s for s in sources if s["n"] == args.get("source")), None)
            if source is None:
                raise ValueError(f"source {args.get('source')!r} is not in the dossier")
            return {"type": kind, "valid": True, "source": source["n"], "title": source["title"],
                    "url": source.get("url"), "collection": source["collection"], "excerpt": source["text"][:280]}
        if name == "render_phased_plan":
            phases = [{"name": _text(p.get("name"), "phase name"),
                       "steps": [_text(s, "step") for s in _items(p.get("steps"), "steps")]}
                      for p in _items(args.get("phases"), "phases") if isinstance(p, Mapping)]
            return {"type": kind, "valid": True, "phases": phases}
        if name == "render_risk_list":
            risks = []
            for r in _items(args.get("risks"), "risks"):
                severity = str(r.get("severity", "")).lower()
                if severity not in SEVERITIES:
                    raise ValueError(f"severity must be one of {SEVERITIES}, got {severity!r}")
                risks.append({"risk": _text(r.get("risk"), "risk"), "severity": severity,
                              "mitigation": _text(r.get("mitigation"), "mitigation")})
            return {"type": kind, "valid": True, "risks": risks}
        if name == "render_recommendation":
            verdict = str(args.get("verdict", "")).upper().replace("-", "_").replace(" ", "_")
            if verdict not in VERDICTS:
                raise ValueError(f"verdict must be one of {VERDICTS}, got {args.get('verdict')!r}")
            return {"type": kind, "valid": True, "verdict": verdict, "rationale": _text(args.get("rationale"), "rationale"),
                    "citations": _citations(args.get("citations"), sources)}
        if name == "render_mermaid":
            code = str(args.get("code", ""))
            problem = validate_mermaid(code)
            if problem is not None:
                return {"type": kind, "valid": False, "error": problem, "fallback": MERMAID_FALLBACK}
            return {"type": kind, "valid": True, "code": code.strip()}
    except (ValueError, TypeError, AttributeError) as exc:
        return {"type": kind, "valid": False, "error": str(exc)}
    return {"type": kind, "valid": False, "error": f"unknown render tool {name!r}"}
