"""L3: a corrective reroll of the failing unit only — then a visible marker, never a silent gap.

The caller supplies ``reroll(unit_text, message) -> str`` (chat: its LLM; search prose: the repair prompt). The
message quotes the unit, says why it failed and lists the evidence it may use — the dossier's names and links
and the source passages that share the most words with the unit — so the model can restate it from what was
retrieved or drop the claim. Each candidate is audited again by the same checks (L1 fixes, L2 rules, L4 links);
after ``max_rerolls`` failed tries the unit becomes :data:`~.units.MARKER`. A reroll that raises counts as a
failed try: the marker is the worst case, and it is visible.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .units import MARKER, Constraints

__all__ = ["EVIDENCE_PASSAGES", "Reroll", "RerollOutcome", "reroll_message", "reroll_unit"]

Reroll = Callable[[str, str], str]
EVIDENCE_PASSAGES = 3
PASSAGE_CHARS = 500
_WORD = re.compile(r"\w{3,}")


def _closest(unit: str, constraints: Constraints, n: int = EVIDENCE_PASSAGES) -> list[tuple[str, str]]:
    words = set(_WORD.findall(unit.casefold()))
    scored = sorted(constraints.sources.items(),
                    key=lambda kv: -len(words & set(_WORD.findall(kv[1].casefold()))))
    return [(sid, " ".join(text.split())[:PASSAGE_CHARS]) for sid, text in scored[:n]]


def reroll_message(unit: str, reasons: tuple[str, ...], constraints: Constraints) -> str:
    """The corrective instruction for one unit: the quote, the problem, the evidence it may use."""
    lines = [f"This sentence of your reply could not be verified against the sources:\n\u201c{unit}\u201d",
             "Problem: " + "; ".join(reasons),
             "Rewrite only this sentence so that every name, number, quote and link in it comes from the "
             "evidence below. If the evidence does not support the claim, state what the evidence does say, "
             "or reply with an empty line. Reply with the sentence only."]
    if constraints.supported_entities:
        lines.append("Names you may use: " + ", ".join(constraints.supported_entities[:40]))
    if constraints.source_urls:
        lines.append("Links you may use: " + ", ".join(constraints.source_urls[:20]))
    for sid, text in _closest(unit, constraints):
        lines.append(f"[{sid}] {text}")
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class RerollOutcome:
    text: str
    rerolled: bool  # False: the marker stands
    tries: int
    trace: tuple[str, ...]


def reroll_unit(unit: str, reasons: tuple[str, ...], constraints: Constraints, reroll: Reroll | None,
                max_rerolls: int, recheck: Callable[[str], tuple[str, tuple[str, ...]]]) -> RerollOutcome:
    """Up to ``max_rerolls`` candidates for ``unit``; ``recheck(candidate) -> (fixed text, reasons)`` runs the
    other layers on each. An empty candidate (the model withdrew the claim) fails too: the reader is told."""
    trace: list[str] = []
    if reroll is None or max_rerolls <= 0:
        trace.append("no reroll available: marked")
        return RerollOutcome(MARKER, False, 0, tuple(trace))
    why = reasons
    for attempt in range(1, max_rerolls + 1):
        try:
            candidate = (reroll(unit, reroll_message(unit, why, constraints)) or "").strip()
        except Exception as exc:  # a model failure is a failed try; the marker is the floor
            trace.append(f"reroll {attempt}: failed ({type(exc).__name__}: {exc})")
            continue
        candidate = " ".join(candidate.split())
        if not candidate:
            trace.append(f"reroll {attempt}: empty reply")
            continue
        fixed, problems = recheck(candidate)
        if fixed and not problems:
            trace.append(f"reroll {attempt}: passed")
            return RerollOutcome(fixed, True, attempt, tuple(trace))
        trace.append(f"reroll {attempt}: still failing ({'; '.join(problems) or 'empty after fixes'})")
        why = problems or why
    trace.append(f"marked after {max_rerolls} failed reroll(s)")
    return RerollOutcome(MARKER, False, max_rerolls, tuple(trace))
