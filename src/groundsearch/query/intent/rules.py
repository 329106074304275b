"""Tier 1: explicit phrasing → intent fields, in microseconds, with no model.

Each field is decided only by an explicit cue ("as a table", "bar chart", "research papers", "vs",
"last 3 months"); a field with no cue keeps its default and is *not* counted as decided. The format comes
from :func:`.directives.read_directive` (nine languages, negation, mention versus use), and counts as
decided only when the directive is sure. Confidence is a
function of how many of the three routing fields (format, domains, complexity) were decided, so the
cascade moves on to prototypes or the LLM exactly when the phrasing was not explicit.

Domain cues name *concepts* (docs, releases, papers); :class:`DomainVocab` maps them onto the configured
domain names, so a deployment that calls its collections "articles" and "research" still matches.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ...types import Complexity, Format, Intent, RetrievalPattern
from .directives import Directive, TypoMemo, own_words, read_directive

__all__ = ["RECENT_DAYS", "DomainVocab", "RuleResult", "classify_rules", "rule_confidence"]

# "recent", "latest", "trending" with no number: one quarter, long enough for a trend, short enough to be news.
RECENT_DAYS = 90
# Over this many words a request is rarely a single lookup (measured on the labelled set's simple requests).
MEDIUM_WORDS = 13


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


# --- domains ---------------------------------------------------------------------------------------

_CONCEPT_CUES: dict[str, re.Pattern[str]] = {
    "releases": _rx(
        r"\b(releases?|released|release notes|launch(?:es|ed|ing)?|changelogs?|versions?|shipped|ships?|"
        r"announcements?|announced|product (?:news|updates?)|new features?|roll ?outs?)\b"
    ),
    "papers": _rx(
        r"\b(research|papers?|studies|study|academic|arxiv|publications?|published|preprints?|scientific|"
        r"literature|journals?|cited|citations?|authors?|co-wrote|venues?)\b"
    ),
    "docs": _rx(
        r"\b(docs|documentation|manual|guides?|tutorials?|how (?:do|can|should) (?:i|we)|how to|articles?|"
        r"blogs?|(?<!product )news|handbook|readme|faq|(?:install\w*|setup) instructions|setting up|set up)\b"
    ),
}

# Names a deployment may give each concept; the first configured one is used.
_CONCEPT_NAMES: dict[str, tuple[str, ...]] = {
    "docs": ("docs", "documents", "documentation", "articles", "news", "guides"),
    "releases": ("releases", "launches", "products", "changelog"),
    "papers": ("papers", "research", "publications", "studies"),
}


@dataclass(frozen=True, slots=True)
class DomainVocab:
    """The configured domain names and which cue concept each answers to."""

    names: tuple[str, ...]

    def for_concept(self, concept: str) -> str | None:
        for alias in _CONCEPT_NAMES[concept]:
            if alias in self.names:
                return alias
        return None

    def find(self, text: str) -> tuple[str, ...]:
        found = []
        for concept, cue in _CONCEPT_CUES.items():
            name = self.for_concept(concept)
            if name and cue.search(text):
                found.append(name)
        # Configured domains with names outside the built-in concepts are matched by their own name.
        known = {a for aliases in _CONCEPT_NAMES.values() for a in aliases}
        for name in self.names:
            if name not in known and name != "kg" and re.search(rf"\b{re.escape(name)}\b", text, re.IGNORECASE):
                found.append(name)
        return tuple(sorted(set(found)))


# --- complexity --------------------------------------------------------------------------------------

_COMPARE = _rx(
    r"\b(vs\.?|versus|compar\w*|difference between|differ(?:ent)? from|differs?|contrast|better|faster than|"
    r"slower than|pros and cons|trade-?offs?|choose between|side[- ]by[- ]side)\b"
)
_WHY = _rx(r"\b(why|what caused|what led to|causes? of|reasons? for|impact of|effect of)\b")
_MULTI_HOP = _rx(
    r"\b(?:the (?:paper|work|product|company|companies|lab|labs|model) (?:that|behind|whose)|"
    r"behind the|whose|that (?:published|introduced|launched)|which \w+ that|labs? that|"
    r"both on|and what did|and which)\b"
)
_MEDIUM = _rx(
    r"\b(trends?|trending|latest|recent\w*|newest|lately|what'?s new|summar\w+|overview|list|key|main|themes?|"
    r"top|most|how (?:do|can|should|to|does|is|are)|explain|developments?|happened|findings|what launched|"
    r"this (?:week|month|year|quarter)|(?:last|past) \w+)\b"
)

# --- horizon -----------------------------------------------------------------------------------------

_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "quarter": 91, "year": 365}
_SPAN = _rx(r"\b(?:last|past|previous)\s+(?:(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
            r"twelve)\s+)?(day|week|month|quarter|year)s?\b")
_THIS = _rx(r"\b(?:this|current) (day|week|month|quarter|year)\b|\b(today|yesterday|year to date|ytd)\b")
_RECENT = _rx(r"\b(recent\w*|latest|newest|lately|trending|these days|nowadays|what'?s new)\b")

# --- comparison targets -------------------------------------------------------------------------------

_TARGET = r"([\w.+#-]+(?: [\w.+#-]+){0,2}?)"
_STOP_AFTER = r"(?=\s+(?:for|in|on|as|with|by|over|across|when|and why|launches|releases|papers)\b|[,.?!:;]|$)"
# Most specific first: "compare X vs Y" must not be read as the bare "X vs Y" with X = "compare X".
_TARGET_PATTERNS = (
    _rx(rf"\bcompare (?:the )?{_TARGET}\s+(?:and|with|to|vs\.?|versus)\s+(?:the )?{_TARGET}{_STOP_AFTER}"),
    _rx(rf"{_TARGET}\s+(?:vs\.?|versus)\s+{_TARGET}{_STOP_AFTER}"),
    _rx(rf"\bdifference between (?:the )?{_TARGET}\s+and\s+(?:the )?{_TARGET}{_STOP_AFTER}"),
    _rx(rf"\bis {_TARGET}\s+(?:better|faster|slower) than\s+{_TARGET}{_STOP_AFTER}"),
    _rx(rf"\bbetween {_TARGET}\s+and\s+(?:the )?{_TARGET}{_STOP_AFTER}"),
)

_STOP = frozenset(
    """a an the and or of to in on at by for from with as into about than then is are was were be been do does did
    has have had it its this that these those there here which who whom whose what when where why how i me my we
    our you your they them their can could should would will please show give make create draw put get find list
    tell want need like share some any each all me us new latest recent recently trending trends trend table tables
    chart charts plot graph timeline diagram bar line ranked tornado tabulate tabulated format view display
    papers paper research releases release launches launched docs documentation articles news last past month
    months year years week weeks day days quarter this over time between vs versus compare comparison most top
    one two three six ten into using s t let's whats what's per""".split()
)
# Any script's letters and digits: an ASCII-only class cut "svíčkovou" into "sv" + "kovou", and every retry
# or graph seed built from the keywords of an accented request searched for those fragments.
_WORD = _rx(r"[^\W_][\w.+#-]*")


@dataclass(frozen=True, slots=True)
class RuleResult:
    """The rules' intent, the fields they decided from explicit cues, and the resulting confidence."""

    intent: Intent
    decided: frozenset[str]
    confidence: float
    directive: Directive | None = None


def rule_confidence(decided: Iterable[str]) -> float:
    """0.55 with no explicit cue, +0.15 per decided routing field: two of three clears the 0.85 gate."""
    routing = {"format", "domains", "complexity"} & set(decided)
    return round(0.55 + 0.15 * len(routing), 4)


def _horizon(text: str) -> int | None:
    m = _SPAN.search(text)
    if m:
        count = m.group(1)
        n = int(count) if count and count.isdigit() else _NUMBERS.get((count or "one").lower(), 1)
        return max(1, min(3650, n * _UNIT_DAYS[m.group(2).lower()]))
    m = _THIS.search(text)
    if m:
        unit = (m.group(1) or "").lower()
        word = (m.group(2) or "").lower()
        if unit:
            return _UNIT_DAYS[unit]
        return {"today": 1, "yesterday": 2}.get(word, 365)
    if _RECENT.search(text):
        return RECENT_DAYS
    return None


def _targets(text: str) -> tuple[str, ...]:
    for pattern in _TARGET_PATTERNS:
        m = pattern.search(text)
        if m:
            a, b = (g.strip(" '\"").strip() for g in m.groups())
            a = " ".join(w for w in a.split() if w.lower() not in {"is", "the", "a", "an"})
            # "X vs Y vs Z": the second capture may hold further targets
            names = [a, *(t.strip() for t in _VS_SPLIT.split(b))]
            names = list(dict.fromkeys(n for n in names if n))
            if len(names) >= 2 and len({n.lower() for n in names}) == len(names):
                return tuple(names[:8])  # Intent allows at most 8 comparison targets
    return ()


_VS_SPLIT = _rx(r"\s+(?:vs\.?|versus)\s+")


def _keywords(text: str) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        word = word.strip(".-")
        if len(word) > 1 and word not in _STOP and len(word) <= 40:
            seen.setdefault(word, None)
    return tuple(seen)[:8]


def _complexity(text: str, domains: tuple[str, ...], fmt: Format, horizon: int | None) -> tuple[Complexity, bool]:
    if _COMPARE.search(text) or _WHY.search(text) or _MULTI_HOP.search(text) or len(domains) >= 2:
        return "complex", True
    words = len(text.split())
    if fmt != "default" or horizon is not None or _MEDIUM.search(text) or words >= MEDIUM_WORDS:
        return "medium", True
    return "simple", words <= 6


def _pattern(fmt: Format, domains: tuple[str, ...], targets: tuple[str, ...]) -> RetrievalPattern:
    if fmt == "graph":
        return "kg"
    if targets:
        return "hybrid"
    return "agentic" if len(domains) >= 2 else "pipeline"


def classify_rules(query: str, vocab: DomainVocab, memo: TypoMemo | None = None) -> RuleResult:
    """Tier 1. Pure: the same query and vocabulary always give the same result (``memo``: typo readings kept
    for one caller scope, see :data:`.directives.TypoMemo`)."""
    # a pasted mail's quoted lines and headers go before the newlines do: they are others' words
    # (and a greeting or signature: "Kind regards, / Head of Charts & Tables" is no wish)
    text = " ".join(own_words(query).split())
    directive = read_directive(text, memo)
    # A request with no format word at all is no cue for the routing confidence, as before directives.
    fmt, subtype, fmt_cue = directive.format, directive.chart_subtype, directive.sure and directive.evidence != "none"
    domains = vocab.find(text)
    horizon = _horizon(text)
    targets = _targets(text)
    complexity, complexity_cue = _complexity(text, domains, fmt, horizon)
    decided = {name for name, cue in (("format", fmt_cue), ("domains", bool(domains)),
                                      ("complexity", complexity_cue)) if cue}
    if horizon is not None:
        decided.add("horizon_days")
    if targets:
        decided.add("comparison_targets")
    confidence = rule_confidence(decided)
    intent = Intent(
        domains=domains,
        retrieval_pattern=_pattern(fmt, domains, targets),
        format=fmt,
        chart_subtype=subtype,
        chart_requested=directive.requested[:64] if directive.requested else None,
        horizon_days=horizon,
        comparison_targets=targets,
        topic_keywords=_keywords(text),
        complexity=complexity,
        confidence=confidence,
        tier="rules",
    )
    return RuleResult(intent=intent, decided=frozenset(decided), confidence=confidence, directive=directive)
