"""Question decomposition for multi-hop questions: the question one hop on, with the bridge in place of the anchor.

"Who was the spouse of the Green performer?" is answered by a sentence about Steve Hillage, which shares
nothing with the question but the relation ("married"). Once the first hop is on the page ("Green is an
album by Steve Hillage"), the question can be asked again of the bridge: the anchor's name and the words
the first hop's sentence already accounts for ("Green", "performer" ← "album by") are replaced by the new
name, "Who was the spouse of Steve Hillage?". That sub-question is what the second hop's sentence
answers, so candidates are scored against it too (one query embedding each), and it is a better query
for the item the page does not hold yet (:func:`subquestions` feeds the engine's follow-up retrieval).

The anchor is an item whose title the question names (:mod:`.hops`); its best sentence is the first hop;
the bridge is a name in it that the question does not hold. Several names may qualify ("a village in the
Demerara-Mahaica region of Guyana"): each gives one sub-question, at most ``BRIDGES``. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, NamedTuple

from ..store.text import analyze
from .answer_type import answer_spans
from .hops import title_head

__all__ = ["ANCHORS", "BRIDGES", "SubQuestion", "about", "subquestions"]

ANCHORS = 2  # anchors whose first hop is rewritten (the best by their best sentence)
BRIDGES = 2  # names per first-hop sentence that each give a sub-question


class SubQuestion(NamedTuple):
    text: str  # the question with the bridge in place of the described anchor
    bridge: str  # the name the first hop's sentence adds
    seed: Any  # that sentence (an extractive candidate)


def about(title: str, bridge: str) -> bool:
    """True when an item titled ``title`` is about ``bridge``: one's head names all of the other ("West
    Chicago, Illinois" for "West Chicago High School"; "Kansas" for "Kansas"), not a shared word."""
    head, name = set(analyze(title_head(title))), set(analyze(bridge))
    return bool(head and name) and (head <= name or name <= head)


# The phrase that describes the bridge through the anchor, by how MuSiQue-style (and plain English) questions
# nest: "the composer of ANCHOR", "ANCHOR's city of birth", "the state where ANCHOR is located", "the
# musician who performed ANCHOR". A noun of
# the description is any lower-case word but the joints of the sentence around it.
_WORD = r"\b(?!(?:of|the|a|an|in|on|at|to|is|was|are|were|did|does|do|has|had|where|which|that|who|whom|whose)\b)[a-z][\w-]*"
_OF_ANCHOR = rf"(?:the\s+)?(?:{_WORD}\s+){{1,3}}of\s+(?:the\s+)?$"
_IN_CLAUSE = (rf"(?:the\s+)?{_WORD}\s+(?:where|which|that|who|in\s+which)\s+"
              rf"(?:(?:the\s+)?(?:{_WORD}\s+){{1,2}}of\s+|{_WORD}\s+)?(?:the\s+)?$")
# the rest of the clause: "is located", "was born", "died", "belongs to" (not the main clause after it)
_CLAUSE_TAIL = rf"(?:\s+(?:is|was|are|were|has|had))?(?:\s+{_WORD})?(?:\s+(?:to|from))?"
_POSSESSIVE = rf"['’]s\s+(?:{_WORD}\s+){{0,2}}{_WORD}(?:\s+of\s+{_WORD})?"


def _described(query: str, anchor: str) -> tuple[int, int] | None:
    """Where ``query`` describes something through ``anchor``: the span to replace with the bridge's name."""
    at = query.casefold().find(anchor.casefold())
    if at < 0:
        return None
    end = at + len(anchor)
    before, after = query[:at], query[end:]
    # "the state where Shringarpur is located": the clause the anchor is the subject of, with its head noun
    m = re.search(_IN_CLAUSE, before)
    if m:
        tail = re.match(_CLAUSE_TAIL, after)
        return m.start(), end + (tail.end() if tail else 0)
    # "the composer of Aschenbrodel", "the performers of Brother"
    m = re.search(_OF_ANCHOR, before)
    if m:
        return m.start(), end
    # "Gisvi's city of birth"
    m = re.match(_POSSESSIVE, after)
    if m:
        return at, end + m.end()
    return None


def _rewrite(query: str, anchor: str, bridge: str) -> str | None:
    """``query`` with the phrase that describes the bridge through ``anchor`` replaced by ``bridge``: "the
    country where [the composer of Aschenbrodel] was a citizen" → "the country where Johann Strauss II was
    a citizen"; None when the question does not describe anything through the anchor that way."""
    span = _described(query, anchor)
    if span is None:
        return None
    a, b = span
    return re.sub(r"\s+([?.,!])", r"\1", f"{query[:a]}{bridge}{query[b:]}".replace("  ", " "))


def subquestions(pool: Sequence[Any], query: str, reached: dict[str, float]) -> list[SubQuestion]:
    """The sub-questions of the question's anchors, best anchor first. ``pool``
    is score-sorted, best first; ``reached`` maps item ids to strengths (1.0: the question names it)."""
    asked = set(analyze(query))
    anchors = {i for i, s in reached.items() if s >= 1.0}
    out: list[SubQuestion] = []
    done: set[str] = set()
    for seed in pool:
        item = seed.hit.item
        if item.id not in anchors or item.id in done:
            continue
        done.add(item.id)
        title = set(analyze(title_head(item.title))) | set(analyze(item.title))
        mention = next((m for m in (item.title, title_head(item.title)) if m.casefold() in query.casefold()), "")
        if not mention:
            continue
        names = [n for n in answer_spans(seed.text, "entity", query)
                 if set(analyze(n)) - asked - title and not set(analyze(n)) <= title]
        for name in (n.rstrip(".,;:") for n in names[:BRIDGES]):
            sub = _rewrite(query, mention, name)
            if sub and sub.casefold() != query.casefold():
                out.append(SubQuestion(sub, name, seed))
        if len(done) >= ANCHORS:
            break
    return out
