"""One layered auditor for every reply the product writes — chat turns and narrated search prose.

    reply ─► units ─► L1 text fixes ─► L2 dossier rules ─► L4 link health ─► failing? ─► L3 reroll (≤ 2) ─► marker
                      (pure, <1 ms)     (pure)             (HTTP, cached)                (caller's model)

Each unit (sentence, heading or list line) ends ``ok`` (untouched), ``fixed`` (L1/L4 repaired its form),
``rerolled`` (L3 got a passing restatement) or ``marked`` (:data:`MARKER` in its place, visible inline). Nothing
is dropped silently: the only units that vanish are a repeated sentence and a sentence that was nothing but an
unverifiable link, and both are in the trace. See /work/notes/chat-audit.md and docs/assistant.md ("Auditor").
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from ..safety import sentence_flags, withholds
from .l1_text import entity_named, l1_fix, links, source_haystack
from .l2_constraints import check
from .l3_reroll import Reroll, reroll_message, reroll_unit
from .l4_urls import UrlHealth, UrlStatus
from .units import MARKER, AuditedReply, Constraints, Unit, join_units, norm_url, split_units

__all__ = ["MARKER", "AuditedReply", "Constraints", "Reroll", "Unit", "UrlHealth", "UrlStatus", "audit_paragraphs",
           "audit_reply", "reroll_message"]


def _link_health(text: str, constraints: Constraints, health: UrlHealth | None,
                 statuses: dict[str, UrlStatus]) -> tuple[str, list[str], list[str]]:
    """``text`` with dead links swapped for a live canonical alternative; (text, changes, reasons)."""
    if health is None or not health.enabled:
        return text, [], []
    changes: list[str] = []
    reasons: list[str] = []
    for label, url in links(text):
        status = statuses.get(url) or health.check(url)
        statuses[url] = status
        if status.healthy:
            continue
        at = text.find(url)
        entity = entity_named(label or "", constraints) or entity_named(text, constraints, at if at >= 0 else None)
        alternative = constraints.canonical_urls.get(entity) if entity else None
        if alternative and norm_url(alternative) != norm_url(url):
            alt_status = statuses.get(alternative) or health.check(alternative)
            statuses[alternative] = alt_status
            if alt_status.healthy:
                text = text.replace(url, alternative)
                changes.append(f"dead link {url} ({status.reason}) → canonical {alternative}")
                continue
        reasons.append(f"link {url} is unreachable ({status.reason})")
    return text, changes, reasons


def audit_reply(text: str, constraints: Constraints, *, reroll: Reroll | None = None, max_rerolls: int = 2,
                url_health: UrlHealth | None = None, paragraph_offset: int = 0) -> AuditedReply:
    """Audit ``text`` against ``constraints``; ``reroll(unit_text, message) -> str`` restates one failing unit."""
    haystack = source_haystack(constraints)
    statuses: dict[str, UrlStatus] = {}
    if url_health is not None and url_health.enabled:
        statuses.update(url_health.check_many(url for _, url in links(text)))

    def layers(candidate: str) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
        fixed = l1_fix(candidate, constraints, haystack)
        if not fixed.text:
            return "", fixed.changes, ()
        reasons = list(check(fixed.text, constraints, haystack))
        healed, changes, dead = _link_health(fixed.text, constraints, url_health, statuses)
        # a credential prompt with a link is the phishing move itself, whoever wrote it: never shown as checked
        unsafe = [f for f in sentence_flags(healed, constraints.source_urls) if f.startswith("credential prompt")]
        if unsafe and withholds(unsafe, healed):
            reasons.append(f"content safety: {unsafe[0]}")
        return healed, (*fixed.changes, *changes), (*reasons, *dead)

    def flags(final: str) -> tuple[str, ...]:
        return sentence_flags(final, constraints.source_urls) if final and final != MARKER else ()

    units: list[Unit] = []
    trace: list[str] = []
    seen: set[str] = set()
    pieces = split_units(text)
    others = {" ".join(u.casefold().split()) for _, _, u in pieces}
    for index, (paragraph, line, original) in enumerate(pieces):
        paragraph += paragraph_offset
        key = " ".join(original.casefold().split())
        if key in seen and len(key) > 20:
            units.append(Unit(index, paragraph, original, "", "fixed", ("repeated sentence collapsed",), line=line))
            trace.append(f"unit {index}: repeated sentence collapsed")
            continue
        seen.add(key)
        fixed, changes, reasons = layers(original)
        trace.extend(f"unit {index}: {c}" for c in changes)
        if not reasons:
            status = "fixed" if changes or fixed != original else "ok"
            units.append(Unit(index, paragraph, original, fixed, status, tuple(changes), line=line,
                              safety=flags(fixed)))
            continue
        trace.extend(f"unit {index}: {r}" for r in reasons)

        def recheck(candidate: str, own: str = key) -> tuple[str, tuple[str, ...]]:
            # a model asked for one sentence often pastes a passage, neighbours included: keep its first
            # sentence that the reply does not already say
            fresh = [s for _, _, s in split_units(candidate) if " ".join(s.casefold().split()) not in others - {own}]
            if not fresh:
                return "", ("the restatement only repeats the rest of the reply",)
            out, _, problems = layers(fresh[0])
            return out, problems

        outcome = reroll_unit(fixed, tuple(reasons), constraints, reroll, max_rerolls, recheck)
        trace.extend(f"unit {index}: {t}" for t in outcome.trace)
        units.append(Unit(index, paragraph, original, outcome.text, "rerolled" if outcome.rerolled else "marked",
                          (*changes, *reasons), outcome.tries, line=line, safety=flags(outcome.text)))
    state = url_health.state if url_health is not None else "off: no URL health checker configured"
    return AuditedReply(join_units(units), tuple(units), tuple(trace), state)


def audit_paragraphs(paragraphs: Iterable[str], constraints: Constraints, *, reroll: Reroll | None = None,
                     max_rerolls: int = 2, url_health: UrlHealth | None = None) -> Iterator[Mapping[str, object]]:
    """For streaming: audit each paragraph as it completes and yield the payload of one ``audit`` event —
    ``{paragraph, text, replaced, units, url_health}``. The client keeps earlier paragraphs and, when
    ``replaced`` is true, swaps paragraph ``paragraph`` for ``text``."""
    for i, paragraph in enumerate(paragraphs):
        result = audit_reply(paragraph, constraints, reroll=reroll, max_rerolls=max_rerolls,
                             url_health=url_health, paragraph_offset=i)
        yield {"paragraph": i, "text": result.text, "replaced": result.text != paragraph.strip(),
               "units": [u.as_dict() for u in result.units], "marked": result.marked, "rerolls": result.rerolls,
               "url_health": result.url_health}
