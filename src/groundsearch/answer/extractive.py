"""Query-focused extractive answers: the best sentences of the fused page, chosen for the question.

Candidates are the prose sentences (:mod:`.sentences`) of every hit on the page, not only the first
few. Each is scored by

* its embedding similarity to the question (sentence vectors cached, :mod:`.sentence_vectors`; only the
  ``EMBEDDED`` best by the cheap signals are embedded, which bounds the cost of a cold request),
* the share of the question's term weight it covers (IDF over the page's sentences, so rare terms —
  names, years — count for more than "the" topic words every candidate shares),
* answer-type fit (:mod:`.answer_type`: a "when" question wants a date the question does not hold),
* position (a passage's first sentences are its most self-contained) and the hit's fused rank,

and the prose is picked by MMR so a second source gets a say before a near-copy of the first. When a
span of the asked type answers the question, the prose opens with ``Answer: <span>.`` citing the
sentences that hold it. When two sources make the same claim with different values (a counterfactual
or a stale source), the answer says they disagree instead of picking one. When no sentence answers,
it says so plainly and lists the closest matches. Pure apart from the embedder behind ``vectors``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..store.text import analyze
from ..types import EvidenceHit, Prose, Sentence
from . import decompose, hops, relations
from .asked_fields import field_answer, named_records, speaks_of
from .answer_type import SPAN_TYPES, AnswerType, answer_spans, choices, expected_type
from .answerable import Support, best_span, canonical, confident, nested, only_a_year, stated, support, vote_margin
from .sentence_vectors import SentenceVectors
from .sentences import embed_text, quotable

__all__ = ["ANSWER_PREFIX", "CONFLICT_PREFIX", "NO_ANSWER", "Candidate", "Line", "answer", "candidates", "follow_ups",
           "line_decision"]

ANSWER_PREFIX = "Answer: "
NO_ANSWER = "No sentence in the matching sources answers this directly"
CONFLICT_PREFIX = "The sources disagree"

FULL_SENTENCES = 4  # supporting sentences after the answer line (6 measured: MuSiQue tune +0.02, citation precision 0.34 → 0.26)
PER_HIT = 2
EMBEDDED = 12  # candidates embedded per request (the rest are ranked on terms alone): bounds a cold request
MMR_LAMBDA = 0.9  # tuned on the MuSiQue tuning half: 0.75 → 0.36, 0.9 → 0.44 gold-in-prose
LISTED_MATCHES = 3
# Weights of the signals; tuned on the tuning halves of MuSiQue-100 and RGB only (see bench-answers.md).
W_SIM, W_TERMS, W_TYPE, W_POS, W_RANK = 0.45, 0.35, 0.15, 0.03, 0.2
W_BRIDGE = 0.2  # the bridge step's weight (0 turns it off)
# On the no-answer-line path only (the answer line and abstention keep exact terms): a question term is
# covered by a word of its relation group too (:mod:`.relations`)
RELATED_WORDS = True
SUB_QUESTIONS = True  # also score against the question one hop on (:mod:`.decompose`); False turns it off
CHAIN_SEEDS, CHAIN_BRIDGED, W_HOP = 5, 0.5, 1.0  # the two-hop chain (see _chain); CHAIN_SEEDS 0 turns it off
# An answer-bearing sentence: similar enough to the question or covering enough of its weight. SIM_MIN from
# the RGB tuning half (0.45 → 0.38: one answerable page more, no negatives-only page; 0.35–0.40 alike, 0.33
# costs a negatives-only page); below it the support model, not this gate, decides.
SIM_MIN, COVER_MIN = 0.38, 0.5
# ... or, in a passage that covers most of it, a sentence whose subject is a pronoun or "the game"
# ("It was released in Japan on November 21, 1998" under a heading-less snippet about Ocarina of Time).
CONTEXT_MIN = 0.75
BEARING_VOTERS = 6  # the best answer-bearing sentences that vote on the answer span
# A sentence shown after "no sentence answers this directly": on the topic at all.
RELATED_SIM, RELATED_COVER = 0.3, 0.25
# Types whose value is an identifier a source states once, labelled ("Code: Apache-2.0"), see _labelled
LABELLED_TYPES = frozenset({"licence", "version"})
CONFLICT_OVERLAP = 0.6  # Jaccard of the words two sentences share (answer spans aside) to be "the same claim"
_YEAR = re.compile(r"\b(?:1[5-9]|20)\d{2}\b")
_WORDS = re.compile(r"\w+")
_TOKENS = re.compile(r"[\w'’-]+")


@dataclass(slots=True, eq=False)  # identity, not field equality: candidates hold numpy vectors
class Candidate:
    hit: EvidenceHit
    rank: int  # the hit's fused rank on the page
    pos: int  # the sentence's index among its hit's candidates
    text: str
    terms: frozenset[str]
    spans: tuple[str, ...] = ()
    sim: float = 0.0
    cover: float = 0.0
    context: float = 0.0  # the share of the question's weight its whole passage covers
    score: float = 0.0
    vector: np.ndarray | None = field(default=None, repr=False)


def candidates(hits: Sequence[EvidenceHit]) -> list[Candidate]:
    """Every prose sentence of every hit, once (the same sentence in two hits is kept at its best rank)."""
    out: list[Candidate] = []
    seen: set[str] = set()
    for rank, hit in enumerate(hits):
        pos = 0
        for s in quotable(hit.item, hit.chunk):
            if s.casefold() in seen:
                continue
            seen.add(s.casefold())
            out.append(Candidate(hit=hit, rank=rank, pos=pos, text=s, terms=_spellings(analyze(s))))
            pos += 1
    return out


# British and American spellings of one word stem apart ("licenc" / "licens", "organis" / "organiz",
# "colour" / "color"): a sentence's terms carry both, so a question in either spelling finds it
_SPELLING = ((re.compile(r"enc$"), "ens"), (re.compile(r"ens$"), "enc"), (re.compile(r"is(?=e?$|ation$)"), "iz"),
             (re.compile(r"iz(?=e?$|ation$)"), "is"), (re.compile(r"our$"), "or"), (re.compile(r"(?<=[^aeiou])or$"), "our"))


def _spellings(terms: Sequence[str]) -> frozenset[str]:
    out = set(terms)
    for t in terms:
        for pattern, other in _SPELLING:
            if len(t) > 4 and pattern.search(t):
                out.add(pattern.sub(other, t))
    return frozenset(out)


def _covers(c: Candidate, term: str) -> bool:
    return relations.covered(term, c.terms) if RELATED_WORDS else term in c.terms


def _weights(query_terms: Sequence[str], pool: Sequence[Candidate]) -> dict[str, float]:
    """Each question term's weight: 1 + its IDF over the candidate sentences. The 1 keeps the topic term
    every candidate shares ("langchain" on a page of LangChain releases) from counting for nothing."""
    n = len(pool)
    return {t: 1.0 + math.log(1 + n / (1 + sum(1 for c in pool if t in c.terms))) for t in dict.fromkeys(query_terms)}


def _norm(span: str) -> str:
    return " ".join(_WORDS.findall(span.casefold()))


def _years_of(c: Candidate, hits: Sequence[EvidenceHit]) -> set[str]:
    """The years ``c`` speaks of: those its passage names, its source's own date, and the years of any
    other passage on the page that states one of its spans ("the Netherlands" beside "2010 FIFA World
    Cup … Netherlands. Runner-up."): the year a sentence leaves implicit, read from what its value is
    stated with elsewhere, not assumed."""
    out = set(_YEAR.findall(c.hit.chunk.text))
    if c.hit.item.date is not None:
        out.add(str(c.hit.item.date.year))
    keys = [f" {_norm(s)} " for s in c.spans]
    for h in hits:
        if h.id != c.hit.id and keys:
            text = f" {_norm(h.chunk.text)} "
            if any(k in text for k in keys):
                out.update(_YEAR.findall(h.chunk.text))
    return out


def _answer_bearing(c: Candidate, atype: AnswerType, years: set[str], hits: Sequence[EvidenceHit] = ()) -> bool:
    """Close enough to the question, holding a span of the asked type, and naming the question's years
    (:func:`_years_of`): "Who won Wimbledon in 2019?" is not answered by a sentence about 2018."""
    # an identifier in a passage on the question bears it, however little the sentence itself says
    identifier = atype in LABELLED_TYPES and bool(c.spans) and c.context >= COVER_MIN
    if not identifier and c.sim < SIM_MIN and c.cover < COVER_MIN and (c.context < CONTEXT_MIN or c.sim < RELATED_SIM):
        return False
    if years and not years <= set(_YEAR.findall(c.hit.chunk.text)) and not years <= _years_of(c, hits):
        return False

    return bool(c.spans) if atype in SPAN_TYPES else True


def _score(query: str, pool: list[Candidate], vectors: SentenceVectors | None, atype: AnswerType) -> None:
    q_terms = analyze(query)
    weights = _weights(q_terms, pool)
    total = sum(weights.values()) or 1.0
    passages: dict[str, frozenset[str]] = {}
    # words the page writes in lower case: capitalised at a sentence's start they are no name. Read from the
    # passages whole, not only their quotable sentences: "voters" in a caption or a list still says the
    # "Voters" opening a sentence is a common noun.
    ordinary = {w.casefold() for text in dict.fromkeys(c.hit.chunk.text for c in pool)
                for w in _TOKENS.findall(text) if w[:1].islower()}
    for c in pool:
        c.cover = sum(w for t, w in weights.items() if t in c.terms) / total
        if c.hit.id not in passages:  # the section's headings say what its sentences are about too
            heading = " ".join(c.hit.chunk.heading_path)
            passages[c.hit.id] = _spellings(analyze(f"{c.hit.item.title} {heading} {c.hit.chunk.text}"))
        c.context = sum(w for t, w in weights.items() if t in passages[c.hit.id]) / total
        c.spans = tuple(answer_spans(c.text, atype, query, ordinary))
        # until (unless) the sentence is embedded, its chunk's cosine from the vector leg stands in for it
        c.sim = max((ls.score for ls in c.hit.legs if ls.leg == "vector"), default=0.0)
    typed = atype in SPAN_TYPES

    def cheap(c: Candidate) -> float:
        return W_TERMS * c.cover + W_TYPE * (bool(c.spans) if typed else 0) + W_RANK / (1 + c.rank)

    pool.sort(key=cheap, reverse=True)
    if vectors is not None and pool:
        head = pool[:EMBEDDED]
        matrix = vectors.sentences([(c.hit.id, embed_text(c.text)) for c in head])
        q = vectors.query(query)
        for c, vec, sim in zip(head, matrix, matrix @ q, strict=True):
            c.vector, c.sim = vec, float(sim)
    for c in pool:
        c.score = (W_SIM * c.sim + W_TERMS * c.cover + W_TYPE * (bool(c.spans) if typed else 0)
                   + W_POS / (1 + c.pos) + W_RANK / (1 + c.rank))
    pool.sort(key=lambda c: c.score, reverse=True)


def _asked_again(pool: list[Candidate], query: str, reached: dict[str, float], vectors: SentenceVectors | None) -> None:
    """Score the candidates against the question in its relation's other words and against the question one
    hop on (:mod:`.decompose`): a sentence that answers "Who was the spouse of Steve Hillage?" better than
    it answers the question gains the difference."""
    subs = [sub.text for sub in decompose.subquestions(pool, query, reached)] if SUB_QUESTIONS else []
    if not subs and not RELATED_WORDS:
        return
    lead = {id(c): 0.0 for c in pool}
    for sub in (query, *subs):
        weights = _weights(analyze(sub), pool)
        total = sum(weights.values()) or 1.0
        cover = {id(c): sum(w for t, w in weights.items() if _covers(c, t)) / total for c in pool}
        sims: dict[int, float] = {}
        if vectors is not None and sub != query:
            head = sorted(pool, key=lambda c: cover[id(c)], reverse=True)[:EMBEDDED]
            fresh = [c for c in head if c.vector is None]
            if fresh:
                matrix = vectors.sentences([(c.hit.id, embed_text(c.text)) for c in fresh])
                asked = vectors.query(query)
                for c, vec in zip(fresh, matrix, strict=True):
                    # embedded only now: its own similarity replaces the chunk's stand-in, in its score too
                    sim = float(vec @ asked)
                    c.vector, c.score, c.sim = vec, c.score + W_SIM * (sim - c.sim), sim
            q = vectors.query(sub)
            sims = {id(c): float(c.vector @ q) for c in pool if c.vector is not None}
        for c in pool:
            own = W_SIM * c.sim + W_TERMS * c.cover
            other = W_SIM * sims.get(id(c), c.sim) + W_TERMS * cover[id(c)]
            lead[id(c)] = max(lead[id(c)], other - own)
    for c in pool:
        c.score += lead[id(c)]
    pool.sort(key=lambda c: c.score, reverse=True)


def _similarity(a: Candidate, b: Candidate) -> float:
    if a.vector is not None and b.vector is not None:
        return float(a.vector @ b.vector)
    union = a.terms | b.terms
    return len(a.terms & b.terms) / len(union) if union else 0.0


def _bridge_terms(c: Candidate, query: str) -> list[set[str]]:
    """The names a sentence adds to the question (stemmed), the bridge of a multi-hop question: "...
    published by the American Psychological Association" points at the sentence about that association."""
    asked = set(analyze(query))
    out = []
    for name in answer_spans(c.text, "entity", query):
        terms = set(analyze(name)) - asked
        if terms:
            out.append(terms)
    return out


def _bridged(c: Candidate, bridges: Sequence[set[str]]) -> float:
    """The largest share of one bridge name's terms that ``c`` (or its item's title) holds."""
    if not bridges:
        return 0.0
    words = c.terms | set(analyze(c.hit.item.title))
    return max(len(b & words) / len(b) for b in bridges)


def _chain(pool: Sequence[Candidate], query: str) -> list[Candidate]:
    """A two-hop chain for a question that asks through a bridge ("the hotel in Gisvi's city of birth"): a
    seed among the best sentences names something the question does not ("born in Windhoek"), and a
    sentence of another item holds that name *and* the part of the question the seed left open ("hotels in
    Windhoek such as ..."). The best seed + hop pair, or nothing when no sentence continues a seed."""
    asked = set(analyze(query))
    titles: dict[str, set[str]] = {}
    best: list[Candidate] = []
    best_score = 0.0
    for seed in pool[:CHAIN_SEEDS]:
        bridges = _bridge_terms(seed, query)
        left = asked - seed.terms
        if not bridges or not left:
            continue
        for c in pool:
            if c.hit.item.id == seed.hit.item.id:
                continue
            bridged = _bridged(c, bridges)
            if bridged < CHAIN_BRIDGED:
                continue
            words = c.terms | titles.setdefault(c.hit.item.id, set(analyze(c.hit.item.title)))
            hop = bridged * (len(left & words) / len(left) + c.sim)
            if seed.score + W_HOP * hop > best_score:
                best, best_score = [seed, c], seed.score + W_HOP * hop
    return best


def _mmr(pool: Sequence[Candidate], k: int, chosen: list[Candidate], query: str = "") -> list[Candidate]:
    """Maximal marginal relevance (Carbonell & Goldstein, 1998): each pick trades its score against its
    similarity to what is already picked; one sentence per item until every item had its turn, two at
    most. The best sentence's new names count for the picks after it (one bridge step for multi-hop
    questions: the second hop's sentence shares the bridge entity, not the question's words)."""
    picked = list(chosen)
    rest = [c for c in pool if c not in picked]
    if not picked and rest:
        picked.append(rest.pop(0))
    bridges = _bridge_terms(picked[0], query) if picked and query and W_BRIDGE else []
    for cap in (1, PER_HIT):
        per_item: dict[str, int] = {}
        for c in picked:
            per_item[c.hit.item.id] = per_item.get(c.hit.item.id, 0) + 1
        left = [c for c in rest if c not in picked]
        while left and len(picked) < k:
            def gain(c: Candidate) -> float:
                redundancy = max((_similarity(c, p) for p in picked), default=0.0)
                return MMR_LAMBDA * (c.score + W_BRIDGE * _bridged(c, bridges)) - (1 - MMR_LAMBDA) * redundancy

            best = max(left, key=gain)
            left.remove(best)
            if per_item.get(best.hit.item.id, 0) >= cap:
                continue
            per_item[best.hit.item.id] = per_item.get(best.hit.item.id, 0) + 1
            picked.append(best)
    return picked


def _masked_words(c: Candidate) -> set[str]:
    text = c.text.casefold()
    for span in c.spans:
        text = text.replace(span.casefold(), " ")
    return set(_WORDS.findall(text))


def _conflict(bearing: Sequence[Candidate]) -> tuple[Candidate, str, Candidate, str] | None:
    """Two sentences from different items making the same claim (most of their words shared once the
    answer spans are set aside) with different answer spans: the sources disagree on the value."""
    for i, a in enumerate(bearing):
        for b in bearing[i + 1:]:
            if a.hit.item.id == b.hit.item.id:
                continue
            only_a = [s for s in a.spans if canonical(s) not in {canonical(x) for x in b.spans}]
            only_b = [s for s in b.spans if canonical(s) not in {canonical(x) for x in a.spans}]
            if not only_a or not only_b:
                continue
            wa, wb = _masked_words(a), _masked_words(b)
            if wa and wb and len(wa & wb) / len(wa | wb) >= CONFLICT_OVERLAP:
                return a, only_a[0], b, only_b[0]
    return None


def _labelled(holders: Sequence[Candidate], span: str, query: str) -> bool:
    """A holder opens with a label made of the question's own words, then the span as its value: "Code:
    Apache-2.0." under the README's "Licences" for "Which licence does groundsearch's code use?". For an
    identifier-like type (``LABELLED_TYPES``) that is the sentence saying what the value is, however few
    other results repeat it (a licence is stated once)."""
    asked = set(analyze(query))
    for c in holders:
        m = re.match(r"^\s*([^:]{1,40}):\s*(.*)$", c.text)
        if m and m.group(2).startswith(span):
            label = set(analyze(m.group(1)))
            if label and label <= asked:
                return True
    return False


def _sentence(c: Candidate) -> Sentence:
    return Sentence(text=c.text, citations=(c.hit.id,))


def no_answer(hits: Sequence[EvidenceHit]) -> Sentence:
    """The plain statement that nothing answers, naming the closest matches when they have titles."""
    titled = [h for h in dict((h.item.id, h) for h in hits).values() if h.item.title.strip()][:LISTED_MATCHES]
    if not titled:
        return Sentence(text=f"{NO_ANSWER}; the closest matches are listed below.",
                        citations=tuple(h.id for h in hits[:LISTED_MATCHES]))
    names = [f"“{h.item.title.strip()}”" for h in titled]
    joined = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return Sentence(text=f"{NO_ANSWER}; the closest matches are {joined}.", citations=tuple(h.id for h in titled))


def _unanswered(pool: list[Candidate], hits: Sequence[EvidenceHit], query: str, why: str = "",
                vectors: SentenceVectors | None = None) -> Prose:
    """No answer-bearing sentence: say so first, then the sentences closest to the question, if any are
    close at all, so the reader sees what the sources do say. A multi-hop question's answer is in an item
    the page reaches through a bridge, so the page's links are followed first (:mod:`.hops`)."""
    reached = hops.rescore(pool, query)
    _asked_again(pool, query, reached, vectors)
    # a sentence of an item the question reaches through a bridge is on the question, whatever its words
    related = [c for c in pool if c.sim >= RELATED_SIM or c.cover >= RELATED_COVER or c.hit.item.id in reached]
    if not related:
        return Prose(sentences=(no_answer(hits),), mode="extractive")
    shown = _mmr(related, FULL_SENTENCES, _chain(pool, query), query)
    notice = Sentence(text=f"{NO_ANSWER}{why}; the closest passages say:",
                      citations=tuple(dict.fromkeys(c.hit.id for c in shown)))
    return Prose(sentences=(notice, *(_sentence(c) for c in shown)), mode="extractive")


def follow_ups(query: str, hits: Sequence[EvidenceHit],
               vectors: SentenceVectors | None = None) -> list[decompose.SubQuestion]:
    """The sub-questions of a second-hop question (:mod:`.decompose`) from the page as the answer will score
    it, for a follow-up retrieval: the item a chain passes through is often not on the first page ("the
    city where the performers of Brother were formed" needs Pearl Jam's page). Empty for other questions."""
    pool = candidates(hits)
    if not pool or not nested(query):
        return []
    _score(query, pool, vectors, expected_type(query))
    reached = hops.rescore(pool, query)
    return list({sub.text: sub for sub in decompose.subquestions(pool, query, reached)}.values())


@dataclass(frozen=True, slots=True)
class Line:
    """The answer line's decision on a page with answer-bearing sentences: two sources disagreeing
    (``clash``), or the best-backed span with its holders and the support model's features, and whether it
    is stated. ``why``: "year" when a bare year was all the page gave for a date."""
    span: str = ""
    holders: tuple[Candidate, ...] = ()
    support: Support | None = None
    stated: bool = False
    why: str = ""
    clash: tuple[Candidate, str, Candidate, str] | None = None


def _line(query: str, bearing: Sequence[Candidate], hits: Sequence[EvidenceHit], atype: AnswerType) -> Line:
    clash = _conflict(bearing[:8])
    if clash is not None:
        return Line(clash=clash)
    voters = bearing[:BEARING_VOTERS]
    span, holders, _, share = best_span(voters, query, hits)
    if only_a_year(span, query):
        return Line(span=span, holders=tuple(holders), why="year")
    # the page's items the question names by their whole title ("groundsearch"): its topic
    asked = set(analyze(query))
    names = {t for h in hits if (title := set(analyze(h.item.title))) and title <= asked for t in title}
    backing = support(query, holders, share, vote_margin(voters, query), names)
    return Line(span=span, holders=tuple(holders), support=backing,
                stated=confident(backing) or stated(query, span, holders, names)
                or (atype in LABELLED_TYPES and _labelled(holders, span, query)))


def _off_record(query: str, hits: Sequence[EvidenceHit], bearing: Sequence[Candidate]) -> list[EvidenceHit]:
    """The records the question names, best first, when no answer-bearing sentence is theirs or names them:
    "How does HippoRAG use Personalized PageRank?" over sentences on PageRank that never name HippoRAG
    answers another question. Empty otherwise, and for a second-hop question: "the spouse of the Green
    performer" names its first hop's record, and the sentences that answer it are about the bridge."""
    if nested(query):
        return []
    named = named_records(query, hits)
    if named and not any(c.hit.item.id == h.item.id or speaks_of(c.text, names) for c in bearing
                         for _, h, names in named):
        return [h for _, h, _ in sorted(named, key=lambda n: -n[0])]
    return []


def _bearing(query: str, pool: list[Candidate], hits: Sequence[EvidenceHit], vectors: SentenceVectors | None,
             atype: AnswerType) -> list[Candidate]:
    """Score the pool for the question and keep its answer-bearing sentences, in pool order (both the answer and
    :func:`line_decision` start here)."""
    _score(query, pool, vectors, atype)
    years = set(_YEAR.findall(query))
    return [c for c in pool if _answer_bearing(c, atype, years, hits)]


def line_decision(query: str, hits: Sequence[EvidenceHit], vectors: SentenceVectors | None = None) -> Line | None:
    """The answer line's decision exactly as :func:`answer` takes it, or None when the page never reaches
    it (no quotable or answer-bearing sentence, a second-hop question, an untyped question): what the
    support model is fitted on (``evaluation.support_fit``)."""
    pool = candidates(hits)
    atype = expected_type(query)
    if not pool or atype not in SPAN_TYPES or field_answer(query, hits) is not None:
        return None
    bearing = _bearing(query, pool, hits, vectors, atype)
    if not bearing or nested(query) or _off_record(query, hits, bearing):
        return None
    return _line(query, bearing, hits, atype)


def answer(query: str, hits: Sequence[EvidenceHit], vectors: SentenceVectors | None = None) -> Prose:
    """The extractive answer to ``query`` from ``hits`` (the fused page, best first)."""
    pool = candidates(hits)
    stored = field_answer(query, hits)
    if stored is not None:  # a record the question names stores the asked value as a field (:mod:`.asked_fields`)
        value, holder = stored
        line = Sentence(text=f"{ANSWER_PREFIX}{value}.", citations=(holder.id,))
        if pool:
            _score(query, pool, vectors, expected_type(query))
        related = [c for c in pool if c.sim >= RELATED_SIM or c.cover >= RELATED_COVER]
        return Prose(sentences=(line, *(_sentence(c) for c in _mmr(related, FULL_SENTENCES, [], query))),
                     mode="extractive")
    if not pool:
        return Prose(sentences=(no_answer(hits),), mode="extractive")
    atype = expected_type(query)
    bearing = _bearing(query, pool, hits, vectors, atype)
    first_named = _off_record(query, hits, bearing)
    if first_named:  # say so, and list the records the question names first
        return Prose(sentences=(no_answer([*first_named, *(h for h in hits if h not in first_named)]),),
                     mode="extractive")
    if not bearing or nested(query):
        # a second-hop question: the spans on the page are bridge candidates, neither its answer nor a
        # disagreement about it; the first and second hop's sentences are quoted instead (_chain)
        return _unanswered(pool, hits, query, vectors=vectors)
    typed = atype in SPAN_TYPES
    opening: list[Sentence] = []
    first: list[Candidate] = []
    if typed:
        line = _line(query, bearing, hits, atype)
        if line.clash is not None:
            a, span_a, b, span_b = line.clash
            opening.append(Sentence(text=f"{CONFLICT_PREFIX} on this: one says {span_a}, another {span_b}.",
                                    citations=(a.hit.id, b.hit.id)))
            first = [a, b]
        elif line.why == "year":
            return _unanswered(pool, hits, query, f" (they give the year, {line.span}, not the date)", vectors)
        elif not line.stated:
            return _unanswered(pool, hits, query, vectors=vectors)
        else:
            opening.append(Sentence(text=f"{ANSWER_PREFIX}{line.span}.",
                                    citations=tuple(dict.fromkeys(c.hit.id for c in line.holders[:2]))))
            first = list(line.holders[:1])
    elif atype == "choice":
        # a comparison is answered only when both compared names are covered: the best sentence for each first
        for name in choices(query):
            key = _norm(name)
            match = next((c for c in (*bearing, *pool) if key and key in _norm(c.text) and c not in first), None)
            if match is not None:
                first.append(match)
    chosen = _mmr(bearing + [c for c in pool if c not in bearing], FULL_SENTENCES, first, query)
    return Prose(sentences=(*opening, *(_sentence(c) for c in chosen)), mode="extractive")
