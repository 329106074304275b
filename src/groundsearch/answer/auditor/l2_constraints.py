"""L2: the dossier's constraints — what a sentence may claim given what was retrieved for this turn.

Four rules, each a reason a unit fails (and goes to L3):

* **organisation + metric** — a sentence that puts a number on a named party ("Globex cut churn by 37%") needs
  one source that has both the number and one of the names the sentence uses. Names that are not grounded at
  all are caught by the entity rule; this rule catches a real name with an invented figure.
* **quote + attribution** — a quotation credited to someone ("…", said X / X: "…") needs a source that contains
  the quoted words (case, spacing and punctuation aside).
* **URLs ⊆ source_urls** (or a canonical address from the dossier).
* **named entities ⊆ supported_entities** — or at least named by a source's text, since the dossier's array is
  derived from the same sources by the same extractor and a name may be split differently there.
* **support** (model prose only, ``Constraints.require_support``) — a statement of four or more content words
  needs one source holding at least half of them (stemmed). A small model's fluent sentence with no name, number,
  quote or link in it ("relevance-aware sample estimation improves recall") otherwise passed every rule above.
* **citations ⊆ the turn's sources** — a ``[n]`` must name one of the dossier's numbered sources (a reply citing
  [10] beside eight sources passed before: the session-4 LLM eval's one invalid citation).

Pure; without ``require_support``, a sentence without names, numbers, quotes or links passes — there is nothing
in it to check.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ...ingest.entities import STOP_NAMES, extract_entities, normalize_entity
from ...store.text import analyze
from .l1_text import links, source_haystack
from .units import Constraints, norm_url

__all__ = ["check", "entities", "metrics", "quotes", "unsupported"]

SUPPORT_MIN_TERMS = 4  # shorter statements ("Here is what the sources say.") carry too little to judge
SUPPORT_SHARE = 0.5  # of a statement's distinct content terms, found in its best single source

_METRIC = re.compile(
    r"(?:[$€£]\s?)(\d[\d,]*(?:\.\d+)?)(?:\s?(?:k|m|bn|million|billion))?"
    r"|(?<![\w.])(\d[\d,]*(?:\.\d+)?)\s?(?:%|percent\b|per cent\b|x\b|×|times\b|fold\b|ms\b|seconds?\b|minutes?\b|"
    r"hours?\b|days?\b|weeks?\b|months?\b|k\b|million\b|billion\b|users\b|customers\b|employees\b|points?\b)",
    re.IGNORECASE)
_QUOTE = re.compile(r"[\"“]([^\"”]{8,400})[\"”]")
_ATTRIBUTION = re.compile(r"\b(?:said|says|say|according to|wrote|writes|stated|states|told|notes|noted|per|"
                          r"explained|claims|claimed|put it)\b|[—–-]\s*[A-Z]|\b[A-Z][\w.]+(?: [A-Z][\w.]+)*:\s*[\"“]")
_WORDS = re.compile(r"[\w']+")
_CITATION = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")


def metrics(text: str) -> list[str]:
    """The numbers a sentence states as measurements (a percentage, a multiple, an amount, a duration)."""
    return [(m.group(1) or m.group(2)).replace(",", "") for m in _METRIC.finditer(text)]


def quotes(text: str) -> list[str]:
    """Quoted passages that come with an attribution (a bare quoted phrase is a term, not a citation)."""
    if not _ATTRIBUTION.search(_QUOTE.sub(' "" ', text)) and not _ATTRIBUTION.search(text):
        return []
    return [m.group(1) for m in _QUOTE.finditer(text)]


def entities(text: str) -> list[str]:
    """Named entities in the sentence's words (links and quoted passages left out: those have rules of their own)."""
    plain = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    plain = re.sub(r"https?://\S+", " ; ", plain)  # a removed link must not join the names around it
    plain = _QUOTE.sub(" ", plain)
    return list(extract_entities(plain))


_OPENERS = frozenset("""the this that these those it its our we they their there here however overall also
in on at for with by from after before since during when while if as so but and or yet still then thus
today yesterday last next each every most many some all both one two three several users customers teams
latency queries results""".split())


def _opening_name(text: str, constraints: Constraints) -> str | None:
    """A capitalised first word the extractor cannot judge ("Globex cut churn by 37%"): a name candidate when it
    is not a usual sentence opener and the sources never use it as an ordinary lower-case word."""
    m = re.match(r"\W*([A-Z][a-z]{2,})\b", text)
    if not m:
        return None
    word = m.group(1)
    lowered = word.lower()
    if lowered in _OPENERS or lowered in STOP_NAMES:
        return None
    if any(re.search(rf"(?<![\w.] )\b{lowered}\b", s) for s in constraints.sources.values()):
        return None
    return lowered


def _words(text: str) -> str:
    return " ".join(_WORDS.findall(text.casefold()))


def _has_number(source: str, number: str) -> bool:
    return re.search(rf"(?<![\d.]){re.escape(number)}(?![\d])", source.replace(",", "")) is not None


@lru_cache(maxsize=512)
def _source_terms(text: str) -> frozenset[str]:
    return frozenset(analyze(text))


def unsupported(text: str, constraints: Constraints) -> str | None:
    """Why ``text`` rests on no single source's words (``None``: it does, or it is a question or too short)."""
    if text.rstrip().endswith("?"):
        return None  # a question back to the user states nothing
    # numbers (``[n]`` markers among them) have the metric, claim and citation rules
    terms = {t for t in analyze(re.sub(r"https?://\S+", " ", text)) if not t.isdigit()}
    if len(terms) < SUPPORT_MIN_TERMS:
        return None
    best = max((len(terms & _source_terms(s)) for s in constraints.sources.values()), default=0)
    if best >= SUPPORT_SHARE * len(terms):
        return None
    return f"no source supports this sentence ({best} of its {len(terms)} content words in the closest source)"


def check(text: str, constraints: Constraints, haystack: str | None = None) -> tuple[str, ...]:
    """Why ``text`` breaks the dossier's constraints (empty: it does not)."""
    haystack = source_haystack(constraints) if haystack is None else haystack
    reasons: list[str] = []
    supported = {normalize_entity(e) for e in constraints.supported_entities}
    names = entities(text)
    opening = re.sub(r"^\W+", "", text).casefold()

    def grounded(name: str) -> bool:
        if name in supported or " ".join(name.split()) in haystack:
            return True
        # the extractor joins a capitalised first word to the name after it ("See Acme Search")
        first, _, rest = name.partition(" ")
        return bool(rest) and opening.startswith(first) and grounded(rest)

    unknown = [n for n in names if not grounded(n)]
    if unknown:
        reasons.append(f"names not in the dossier: {', '.join(unknown[:5])}")
    low = text.casefold()
    known = [n for n in names if n not in unknown]
    known += [e for e in supported if e not in known and re.search(rf"(?<!\w){re.escape(e)}(?!\w)", low)]
    opener = _opening_name(text, constraints)
    if opener and not any(n.split()[0] == opener for n in (*names, *known)):
        # an opener only counts for the metric rule: alone it is too weak a sign to call it an invented name
        (known if grounded(opener) else names).append(opener)
    names += [k for k in known if k not in names]
    if names:
        folded = [" ".join(s.split()).casefold() for s in constraints.sources.values()]
        for number in dict.fromkeys(metrics(text)):
            if not any(_has_number(s, number) and any(n in s for n in known) for s in folded):
                who = ", ".join(names[:3])
                reasons.append(f"metric {number} for {who} is not in any source that names them")
    for quoted in quotes(text):
        if _words(quoted) not in _words(haystack):
            reasons.append(f"attributed quote not found in any source: \u201c{quoted[:60]}\u201d")
    allowed = {norm_url(u) for u in constraints.source_urls} | {norm_url(u) for u in constraints.canonical_urls.values()}
    bad = [url for _, url in links(text) if norm_url(url) not in allowed]
    if bad:
        reasons.append(f"links not among the sources: {', '.join(bad[:3])}")
    if constraints.citable:
        cited = [n for group in _CITATION.findall(text) for n in re.split(r"\s*,\s*", group)]
        if stray := [n for n in dict.fromkeys(cited) if n not in constraints.citable]:
            reasons.append(f"cites {', '.join(f'[{n}]' for n in stray)}, not among this turn's sources")
    if constraints.require_support and (why := unsupported(text, constraints)):
        reasons.append(why)
    return tuple(reasons)
