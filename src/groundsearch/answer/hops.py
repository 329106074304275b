"""Multi-hop sentence selection: follow the question through the page's own items, hop by hop. Pure.

A multi-hop question ("Who was in charge of the state where Shringarpur is located?") is answered by a
sentence that shares almost nothing with it ("Prithviraj Chavan ... was the last Chief Minister of
Maharashtra"): ranked alone by its similarity to the question it sits far down the page (MuSiQue tuning
half: the first gold-bearing candidate is in the top five for 0.30 of questions). What ties it to the
question is the *bridge*: the first hop's sentence ("Shringarpur is a small village in ... Maharashtra
state") names the item the second hop's sentence belongs to, and on an encyclopedic page that item is
titled by the bridge ("Maharashtra"). So a link is a sentence of one item naming another item's title.

:func:`rescore` raises every sentence of an item by the strength with which the question reaches it: an
item the question names outright is an anchor (strength 1); an item that one of the best sentences names
is one hop away, weaker by ``DECAY`` and by that sentence's score; and so on for ``HOPS`` steps.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Protocol

from ..store.text import analyze
from .answerable import norm as _norm

__all__ = ["DECAY", "HOPS", "SEEDS", "W_LINK", "links", "rescore", "title_head"]

HOPS = 2  # steps past the anchors (MuSiQue: 2-4 hops; the first is the question's own)
SEEDS = 6  # the best sentences that may carry a link, per step
DECAY = 0.7  # a hop's strength relative to the sentence naming it (1.0 measured worse: 0.42 → 0.38 on tune)
W_LINK = 0.3  # a reached item's strength, added to its sentences' scores; 0 turns the walk off (see BENCHMARKS)
_MIN_HEAD = 4  # characters: a shorter title ("Air", "Mac") is named by too many sentences to be a link

class Scored(Protocol):  # the parts of an extractive candidate this module reads and writes
    hit: Any
    text: str
    score: float


def title_head(title: str) -> str:
    """The name an encyclopedic title is referred to by: "Indianola, Iowa" → "Indianola", "Betrayed (1917
    film)" → "Betrayed"."""
    return re.split(r"\s*[(,:]", title.strip(), maxsplit=1)[0].strip()


def links(pool: Sequence[Scored], query: str) -> dict[str, float]:
    """How strongly the question reaches each item on the page: 1 for an item whose title the question
    names; else, per step, ``DECAY`` × the naming sentence's score relative to the page's best × the
    strength of the naming sentence's own item (½ for an item not yet reached). Unreached items are absent."""
    if not pool:
        return {}
    asked = set(analyze(query))
    folded = f" {_norm(query)} "
    top = max(c.score for c in pool) or 1.0
    heads: dict[str, str] = {}
    for c in pool:
        item = c.hit.item
        head = _norm(title_head(item.title))
        if item.id not in heads and len(head) >= _MIN_HEAD and analyze(head):
            heads[item.id] = head
    reached = {i: 1.0 for i, h in heads.items() if f" {h} " in folded or set(analyze(h)) <= asked}
    ranked = sorted(pool, key=lambda c: c.score, reverse=True)
    # the first step starts from the best sentences and from each anchor's best, however low it ranks
    seeds = ranked[:SEEDS] + [next(c for c in ranked if c.hit.item.id == i) for i in reached]
    for _ in range(HOPS):
        step: dict[str, float] = {}
        for s in dict.fromkeys(seeds):
            text = f" {_norm(s.text)} "
            base = reached.get(s.hit.item.id, 0.5) * DECAY * s.score / top
            for item, head in heads.items():
                if item != s.hit.item.id and item not in reached and f" {head} " in text:
                    step[item] = max(step.get(item, 0.0), base)
        if not step:
            break
        reached.update(step)
        # the next step follows the links out of the items just reached, from their best sentences
        seeds = sorted((c for c in pool if c.hit.item.id in step), key=lambda c: c.score, reverse=True)[:SEEDS]
    return reached


def rescore(pool: list[Scored], query: str) -> dict[str, float]:
    """Raise every sentence of a reached item by ``W_LINK`` × its item's strength; re-sort, best first.
    Returns the reached items' strengths (:func:`links`)."""
    if not W_LINK:
        return {}
    reached = links(pool, query)
    for c in pool:
        c.score += W_LINK * reached.get(c.hit.item.id, 0.0)
    pool.sort(key=lambda c: c.score, reverse=True)
    return reached
