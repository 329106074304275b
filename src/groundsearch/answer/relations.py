"""Relation words that say the same thing in encyclopedic prose, for the question's term cover. Pure.

A question asks with the relation's name ("the spouse of", "in charge of", "the performer of", "the
birthplace of"); the sentence that answers states it in its own words ("married", "Chief Minister", "an
album by", "was born in"). Stemming joins "perform" and "performed", not "spouse" and "married", so a
question term counts as covered when a sentence holds any word of its group. The groups are English
synonymy of the relations an encyclopedia states (people, places, organisations, works), written from
the words, not from any evaluation question. ``"by"`` is kept: "an album by X" is how a performer, author
or director is stated, and the analyzer keeps it as a term.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..store.text import analyze

__all__ = ["GROUPS", "covered", "related"]

GROUPS: tuple[tuple[str, ...], ...] = (
    ("spouse", "married", "marriage", "wife", "husband", "widow", "widower"),
    ("born", "birth", "birthplace", "native"),
    ("died", "death", "deathplace"),
    ("charge", "leader", "head", "minister", "president", "premier", "governor", "mayor", "chancellor", "ruler",
     "chairman"),
    ("performer", "performed", "band", "singer", "recorded", "sung"),
    ("author", "wrote", "written", "writer"),
    ("composer", "composed"),
    ("director", "directed"),
    ("producer", "produced"),
    ("formed", "founded", "established", "created", "founder"),
    ("located", "situated", "lies"),
    ("dissolved", "defunct", "ceased", "acquired", "merged"),
    ("headquarters", "headquartered", "based"),
    ("population", "inhabitants", "residents", "people"),
    ("educated", "attended", "graduated", "studied", "alumni", "alumnus"),
    ("employer", "worked", "employed", "employee"),
    ("owner", "owned", "owns", "subsidiary", "parent"),
    ("member", "joined", "membership"),
    ("country", "nation", "state"),
    ("city", "town", "municipality"),
    ("start", "started", "began", "origin", "originated", "inception"),
    ("label", "signed", "records"),
)


def _stem(word: str) -> str:
    terms = analyze(word)
    return terms[0] if terms else word


_RELATED: dict[str, frozenset[str]] = {}
for _group in GROUPS:
    _stems = frozenset(_stem(w) for w in _group)
    for _s in _stems:
        _RELATED[_s] = _RELATED.get(_s, frozenset()) | _stems


def related(term: str) -> frozenset[str]:
    """``term`` (an analyzed stem) and every stem of the groups it belongs to."""
    return _RELATED.get(term, frozenset((term,)))


def covered(term: str, terms: Iterable[str] | frozenset[str]) -> bool:
    """True when the sentence's ``terms`` hold ``term`` or a word of its group."""
    words = terms if isinstance(terms, (set, frozenset)) else set(terms)
    return term in words or not words.isdisjoint(related(term))
