"""Qualification signals from the user's own words: read, kept across turns, dropped when contradicted.

Pure text rules over the assistant's configured patterns. A signal is contradicted when the user's turn
negates it — a negation or correction cue together with the signal's name, one of its cue words, or words of
its stored value ("no, I'm not a researcher", "forget the budget", "there's no deadline") — or states a new
value for it, which replaces the old one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from .config import Assistant

__all__ = ["extract_signals", "retrieval_query", "update_signals"]

_NEGATION = re.compile(r"\b(?:not|no|no longer|never|isn't|aren't|wasn't|don't|doesn't|didn't|forget|ignore|drop|"
                       r"wrong|incorrect|actually|scratch that|not true)\b|n't\b", re.IGNORECASE)
# Words by which a user refers to a signal without repeating its value.
_CUES = {
    "scale": ("scale", "size", "volume", "documents", "docs", "queries", "users", "records"),
    "role": ("role", "i'm", "i am", "job", "title", "engineer", "researcher", "manager"),
    "timeline": ("timeline", "deadline", "date", "rush", "hurry", "urgent", "timeframe"),
    "budget": ("budget", "cost", "money", "price", "spend", "pay"),
    "decision_process": ("decide", "decides", "decision", "approval", "approve", "sign-off", "sign off", "signs off"),
}
_DENIAL = re.compile(r"\b(?:not|no|never|isn't|aren't|wasn't)\b|n't\b", re.IGNORECASE)  # "actually" corrects, it denies nothing
_STOP = frozenset("a an the of per and or to in on for at by my our i am is are be".split())


def extract_signals(assistant: Assistant, text: str) -> dict[str, str]:
    """``{signal: value}`` for each configured signal one of whose patterns matches ``text`` (first match)."""
    found: dict[str, str] = {}
    for name, patterns in assistant.signal_patterns.items():
        for pattern in patterns:
            m = pattern.search(text)
            if m:
                value = (m.group(1) if m.groups() else m.group(0)) or m.group(0)
                found[name] = " ".join(value.split())
                break
    return found


def _mentions(text: str, signal: Mapping[str, Any]) -> bool:
    low = text.casefold()
    cues = _CUES.get(signal["signal"], ()) + (signal["signal"].replace("_", " "),)
    if any(re.search(rf"(?<!\w){re.escape(c)}(?!\w)", low) for c in cues):
        return True
    words = [w for w in re.findall(r"[\w$€£.]+", str(signal.get("value", "")).casefold()) if w not in _STOP]
    return bool(words) and any(re.search(rf"(?<!\w){re.escape(w)}(?!\w)", low) for w in words)


def update_signals(assistant: Assistant, stored: Sequence[Mapping[str, Any]], text: str, *,
                   turn: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``(signals now known, signals dropped this turn)``. New values replace old ones; a negated one is dropped."""
    new = extract_signals(assistant, text)
    negated = bool(_NEGATION.search(text))
    kept: list[dict[str, Any]] = []
    dropped: list[dict[str, Any]] = []
    for s in stored:
        s = dict(s)
        if s["signal"] in new and _negates_value(text, new[s["signal"]]):
            dropped.append({**s, "reason": "contradicted"})  # "we don't have 2 million documents"
        elif s["signal"] in new and new[s["signal"]].casefold() != str(s.get("value", "")).casefold():
            dropped.append({**s, "reason": "replaced"})
        elif negated and s["signal"] not in new and _mentions(text, s):
            dropped.append({**s, "reason": "contradicted"})
        else:
            kept.append(s)
    known = {s["signal"] for s in kept}
    for name, value in new.items():
        if name not in known and not (negated and _negates_value(text, value)):
            kept.append({"signal": name, "value": value, "turn": turn})
    return kept, dropped


def _negates_value(text: str, value: str) -> bool:
    """"I'm not a researcher" states no role: the negation sits just before the matched value."""
    at = text.casefold().find(value.casefold())
    return at >= 0 and bool(_DENIAL.search(text[max(0, at - 24):at]))


_CLAUSE = re.compile(r"[^,.;!?]*")


def retrieval_query(assistant: Assistant, text: str) -> str:
    """``text`` without the clauses that state a qualification signal: who the user is, their budget or deadline
    says nothing about which documents answer them, and measured on the demo corpus such a clause pulls the
    best cosine under the relevance gate ("compare LoRA and QLoRA papers, I'm a research engineer": 0.30 vs
    0.35 without it). The clause is cut at its punctuation; when nothing else is left the text stays whole."""
    spans = []
    for patterns in assistant.signal_patterns.values():
        for pattern in patterns:
            for m in pattern.finditer(text):
                start = max(text.rfind(p, 0, m.start()) for p in ",.;!?") + 1
                end = min([i for i in (text.find(p, m.end()) for p in ",.;!?") if i >= 0] or [len(text)])
                spans.append((start, end))
    if not spans:
        return text
    keep, last = [], 0
    for start, end in sorted(spans):
        if start > last:
            keep.append(text[last:start])
        last = max(last, end)
    keep.append(text[last:])
    rest = " ".join(" ".join(keep).replace(" ,", ",").split()).strip(" ,;.")
    return rest if len(re.findall(r"\w+", rest)) >= 2 else text
