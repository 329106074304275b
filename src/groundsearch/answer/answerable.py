"""Whether the evidence answers a factoid question, or only talks about its topic. Pure.

A page of search results nearly always holds *some* span of the asked type near the question's words:
"Who won the 2017 French presidential election?" over snippets about election meddling still offers
"Twitter". Topical similarity cannot tell that page from one that answers, so the answer line is shown
only when the chosen span is *supported*: the sentences that hold it carry the question's relation
("won", "directed", "acquired" — or a word that says the same, "launched" for "released") and its topic
("2017", "French"), several sources agree on it, the answer-bearing sentences do not scatter their votes
over rival values (a page that answers concentrates on one; a page that only talks about the topic
offers a different name in every snippet), and it is as exact as the question asks (a year does not
answer "when was it released?"). A date is one value however it is spelled ("5 January 2020", "Jan 5,
2020"). The weights of those signals were fitted by regularised logistic regression on the tuning half of
RGB en_fact (answerable pages against negatives-only pages) and the threshold chosen by cross-validation
there for at most 10% false abstention (``evaluation.support_fit``); the held-out half is reported
(BENCHMARKS.md, issue 11).
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..store.text import analyze
from .answer_type import date_key, date_keys

__all__ = ["Support", "best_span", "canonical", "confident", "nested", "only_a_year", "page_share", "relation_and_topic",
           "stated", "stems", "support", "vote_margin"]

_WORDS = re.compile(r"\w+")
_TOKENS = re.compile(r"[\w'’-]+")
# Past forms a stemmer leaves alone, so "who won" finds "to win" and "who bought" finds "buys".
_IRREGULAR = {"won": "win", "bought": "buy", "held": "hold", "took": "take", "led": "lead", "began": "begin",
              "made": "make", "became": "become", "wrote": "write", "sold": "sell", "found": "find", "gave": "give",
              "ran": "run", "built": "build", "sang": "sing", "left": "leave", "beat": "beat", "chose": "choose"}
# Relation words that say the same thing in news prose: a question's "released" is answered by
# "launched", its "acquired" by "bought". Each group maps to its first member's stem.
_SAME_RELATION = (
    ("releas", "launch", "debut", "arriv"),
    ("acquir", "buy", "purchas", "takeov"),
    ("win", "winner", "champion", "victori", "defeat", "beat"),
    ("direct", "director", "helm"),
    ("found", "founder", "establish", "creat"),
    ("announc", "unveil", "introduc", "reveal"),
    ("premier", "air", "debut"),
    ("host", "hold", "held", "stage"),
    ("award", "win", "laureat", "prize"),
    ("ceo", "chief", "head", "lead"),
)
_CANONICAL = {s: group[0] for group in reversed(_SAME_RELATION) for s in group}
_ASKING = {"who", "whom", "whose", "what", "when", "where", "which", "how", "name"}
# Words that describe the asked value rather than the relation to it: "What is the date of the 2020 NBA
# Draft?" is answered by "The draft takes place on November 18, 2020", which says no "date".
_VALUE_NOUNS = {"date", "day", "year", "month", "time", "location", "place", "name", "called", "much", "many",
                "number", "amount", "new"}
# what may stand between a value's label and the value: "model: X", "director was X", "date is X"
_LABEL_END = re.compile(r"(?:\s*[:=]|\s+(?:is|was|are|were))\s*$")
_RELATIVE = re.compile(r"\s(?:where|which|who|whom|whose|that)\s", re.IGNORECASE)
_YEAR_ONLY = re.compile(r"^(?:1[0-9]|20)\d{2}s?$")
_ASKS_YEAR = re.compile(r"\b(?:what|which|in what) (?:year|decade|century)\b|\byear\b", re.IGNORECASE)

# Logistic weights of the support features and the decision threshold, fitted on the RGB tuning half only
# (answerable pages 1, negatives-only pages 0) by ``evaluation.support_fit`` — the fitting code and its
# cross-validation, in the repo so anyone can refit: ``python -m groundsearch.evaluation.support_fit
# <rgb_en_fact>``. Three features chosen for what they mean, not searched for: the relation in the holding
# sentence, agreement of the top results, concentration of the votes. The penalty (L2 1.0 there) is the one
# that gives back session 5's weights on session 5's pages (-2.70, 0.64, 2.79, 1.04 against the -2.63, 0.59,
# 2.73, 1.07 an earlier script fitted): a weaker one lets the page share carry nearly all the weight, and a
# page where two of five results state the value with the question's relation and no rival is refused — RGB
# answerable pages are all answer, an open search's are not. The threshold is the highest at which the pooled
# out-of-fold probabilities of 20 repetitions of 5-fold cross-validation (folds by question) keep false
# abstention over all answerable pages at 10%, not a point on the fit itself. The passage's coverage of the
# question's names came out *negative* (negatives-only pages are chosen for being on the topic): a fact about
# how RGB was built, left out. Session 6 refit (after the span fixes of ``answer_type``): CV 0.96 abstention
# at 0.099 false abstention on tune, in sample 0.96 at 0.10 (session 5's script had chosen 0.478).
W_BIAS, W_RELATION, W_SHARE, W_MARGIN = -2.64, 0.48, 2.83, 1.21
THRESHOLD = 0.487
SHARE_ITEMS = 5
SHARE_VOTE = 2.0  # a span's page share, added to its votes when choosing the span


class Held(Protocol):  # the parts of an extractive candidate this module reads
    hit: Any
    text: str
    spans: tuple[str, ...]
    score: float
    sim: float
    cover: float


def norm(span: str) -> str:
    return " ".join(_WORDS.findall(span.casefold()))


def canonical(span: str) -> str:
    """The key a span is counted under: a date as its year-month(-day), so "5 January 2020" and "Jan 5,
    2020" are one value (two sources agreeing, not two rival answers); any other span as its words."""
    return date_key(span) or norm(span)


def stems(words: Sequence[str]) -> set[str]:
    out = set()
    for w in words:
        for t in analyze(_IRREGULAR.get(w.casefold(), w)):
            out.add(_CANONICAL.get(t, t))
    return out


def relation_and_topic(query: str, names: Collection[str] = ()) -> tuple[set[str], set[str]]:
    """The question's relation words (lower-case content words: "won", "directed", "runner-up") and its
    topic (capitalised names and numbers after the first word: "Wimbledon", "2019"). ``names``: stems of
    the page's item titles — a lower-case word the page titles an item with ("groundsearch") is the
    question's topic, not a relation its answer must repeat."""
    words = _TOKENS.findall(query)
    relation = stems([w for w in words if w[:1].islower() and w.casefold() not in _ASKING
                      and w.casefold() not in _VALUE_NOUNS and not any(ch.isdigit() for ch in w)])
    topic = stems([w for i, w in enumerate(words) if i and (w[:1].isupper() or any(ch.isdigit() for ch in w))])
    named = relation & set(names)
    return relation - named, topic | named


def _proximity(c: Held, span: str, asked: set[str]) -> float:
    """1 for a span next to the question's words in the sentence, falling with the distance in words:
    in "France beat Croatia to win the 2018 final", "France" sits by "win ... 2018 final"."""
    words = c.text.split()
    hits = [i for i, w in enumerate(words) if asked & set(analyze(w))]
    first = norm(span).split()[:1]
    at = [i for i, w in enumerate(words) if first and norm(w).split()[:1] == first]
    if not hits or not at:
        return 0.5
    return 1.0 / (1.0 + 0.25 * min(abs(i - j) for i in at for j in hits))


def page_share(span: str, hits: Sequence[Any]) -> float:
    """The share of the page's first ``SHARE_ITEMS`` items whose text holds ``span``: how far the best
    results agree on it. Counted over the first few rather than the whole page, so a long page of loosely
    related results does not dilute a value the best sources agree on. (Counting holders anywhere on
    the page against a fixed five was measured worse on the RGB tuning half: 0.60 abstention against
    0.70 at 10% false abstention.)"""
    items = list(dict.fromkeys(h.item.id for h in hits))[:SHARE_ITEMS]
    return len(holding_items(span, [h for h in hits if h.item.id in items])) / max(1, len(items))


def holding_items(span: str, hits: Sequence[Any]) -> set[str]:
    """The ids of the items among ``hits`` whose text states ``span`` (a date in any of its spellings)."""
    day = date_key(span)
    if day:
        return {h.item.id for h in hits if day in date_keys(h.chunk.text)}
    key = f" {norm(span)} "
    return {h.item.id for h in hits if key in f" {norm(h.chunk.text)} "}


def _votes(bearing: Sequence[Held], query: str) -> tuple[dict[str, float], dict[str, str]]:
    """Each sentence votes its score for each of its spans, weighted by how close the span sits to the
    question's words: ``({normalised span: votes}, {normalised span: span as first written})``."""
    asked = set(analyze(query))
    votes: dict[str, float] = {}
    shown: dict[str, str] = {}
    for c in bearing:
        for span in c.spans:
            key = canonical(span)
            votes[key] = votes.get(key, 0.0) + c.score * _proximity(c, span, asked)
            shown.setdefault(key, span)
    # A bare year agrees with any date in it: "2017" beside "July 21, 2017" is the same answer said less
    # exactly, not its rival. Unless the question asks for the year, its votes go to the best date in it.
    for key in [k for k in votes if _YEAR_ONLY.match(k) and only_a_year(k, query)]:
        dated = [k for k in votes if k.startswith(f"{key}-")]
        if dated:
            best = max(dated, key=lambda k: votes[k])
            votes[best] += votes.pop(key)
            shown.pop(key)
    return votes, shown


def vote_margin(bearing: Sequence[Held], query: str) -> float:
    """How far the most-voted span leads the runner-up, as a share of its votes (1 when it has no rival)."""
    ranked = sorted(_votes(bearing, query)[0].values(), reverse=True)
    if len(ranked) < 2 or ranked[0] <= 0:
        return 1.0
    return (ranked[0] - ranked[1]) / ranked[0]


def best_span(bearing: Sequence[Held], query: str, hits: Sequence[Any]) -> tuple[str, list[Held], float, float]:
    """The span with the most behind it among the answer-bearing sentences, who holds it, its votes and
    its page share. The share of the top results that state a span adds to its votes (answer
    redundancy: the value the best sources agree on, not the one odd sentence that happens to score)."""
    votes, shown = _votes(bearing, query)
    shares = {k: page_share(shown[k], hits) for k in votes}
    key = max(votes, key=lambda k: votes[k] + SHARE_VOTE * shares[k])
    return shown[key], [c for c in bearing if any(canonical(s) == key for s in c.spans)], votes[key], shares[key]


@dataclass(frozen=True, slots=True)
class Support:
    """What backs a span: the best share of the question's relation words one of its sentences carries,
    the share of the top results that state the span, and the vote margin of the answer-bearing
    sentences (:func:`vote_margin`). ``sim`` (the holders' best similarity to the question) is kept for
    diagnostics; it carries no weight."""
    relation: float
    sim: float
    share: float
    margin: float = 1.0

    def probability(self) -> float:
        z = W_BIAS + W_RELATION * self.relation + W_SHARE * self.share + W_MARGIN * self.margin
        return 1.0 / (1.0 + math.exp(-z))


def support(query: str, holders: Sequence[Held], share: float, margin: float = 1.0,
            names: Collection[str] = ()) -> Support:
    relation, _ = relation_and_topic(query, names)
    rel = 0.0
    for c in holders:
        words = stems(_TOKENS.findall(c.text))
        rel = max(rel, len(relation & words) / len(relation) if relation else 1.0)
    return Support(relation=rel, sim=max((c.sim for c in holders), default=0.0), share=share, margin=margin)


def stated(query: str, span: str, holders: Sequence[Held], names: Collection[str] = ()) -> bool:
    """A holder names the span *as* the asked value: the question's relation words, all of them and only
    them, right before it, joined to it by nothing or by a colon or a copula ("Default embedding model: all-MiniLM-L6-v2", "the
    director was Christophe Gans"). A sentence that labels its value so says what the answer is, however
    few other results repeat it."""
    relation, _ = relation_and_topic(query, names)
    if len(relation) < 2:  # one word ("won") before a name says too little: "... won. Messi ..."
        return False
    for c in holders:
        at = c.text.find(span)
        if at <= 0:
            continue
        before = _TOKENS.findall(_LABEL_END.sub("", c.text[:at]))[-len(relation):]
        if stems(before) == relation:
            return True
    return False


def nested(query: str) -> bool:
    """A question with a relative clause ("the country where Baure is located", "the association which
    published ...") asks about a second hop: the names the page states for the first hop are the bridge,
    not the answer, so no one-line answer is stated from a single passage."""
    return bool(_RELATIVE.search(query))


def only_a_year(span: str, query: str) -> bool:
    """A bare year for a "when" question that did not ask for a year: true, but not the date asked for."""
    return bool(_YEAR_ONLY.match(span.strip())) and not _ASKS_YEAR.search(query)


def confident(backing: Support) -> bool:
    """Whether the support model says the sources state the span as the answer rather than merely mention
    it near the topic. (A holder that labels the span as the asked value, :func:`stated`, states it too.)"""
    return backing.probability() >= THRESHOLD
