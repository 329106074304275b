"""L1: fixes that need nothing but the text and the dossier's arrays — cheap enough for every paragraph of every reply.

Each fix repairs the form of a sentence without changing what it claims, so it never needs the model:

* **links** are classified: an address in ``source_urls`` is kept; one that is not, but whose label or sentence
  names an entity with a canonical address, is *rescued* to that address; any other link loses its address and
  keeps its words; a sentence that was nothing but an unverifiable link ("Source: https://…") is stripped — it
  said nothing else, so nothing is lost;
* **generic labels** ("click here", "this link") become the name of what they point at, so a link reads as what
  it is and not as an instruction;
* **ungrounded study and attribution names** ("the Harlow Retention Study", "Smith et al.", "according to
  Gartner,") that no source mentions are masked to a neutral phrase; the claim itself is then L2's business;
* **verbatim pastes** — 30+ words copied from a source — collapse to their opening words and an ellipsis: the
  reply should say it, and the source is one click away;
* **spacing and headings**: doubled spaces, space before punctuation, a missing space after a full stop,
  ``##Heading`` and headings that end in a full stop.

Pure; see ``groundsearch bench auditor`` for its cost per paragraph.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from ...ingest.entities import normalize_entity
from .units import Constraints, norm_url

__all__ = ["L1Result", "LinkAction", "PASTE_WORDS", "classify_link", "entity_named", "fix_spacing", "l1_fix", "links",
           "source_haystack"]

LinkAction = Literal["keep", "rescue", "strip_link", "strip_sentence"]

PASTE_WORDS = 30  # a run this long copied from a source is a paste, not a summary
PASTE_KEEP = 12  # words of it kept before the ellipsis

_MD_LINK = re.compile(r"\[([^\]\n]{1,200})\]\((https?://[^\s)]+)\)")
_BARE = re.compile(r"<?(https?://[^\s<>\])\"']+)>?")
_GENERIC = re.compile(r"^(?:click here|here|this link|this page|link|read more|more|learn more|source|this|website|"
                      r"this article|see here|more info(?:rmation)?)$", re.IGNORECASE)
# the words left of a sentence that only carried a link: "Source:", "See … for details", "More at", "Learn more here"
_LINK_ONLY_WORDS = frozenset("""see source sources link links more info information read details detail at here visit
reference references ref via for the full docs documentation page to learn check out please also you can find
it this that more on about in""".split())
_NAME = r"[A-Z][\w'’&.-]*"
_STUDY = re.compile(rf"\b(?:[Tt]he |[Aa] |[Aa]n )?((?:{_NAME} ){{1,4}})(Study|Trial|Survey|Report|Index|Review)\b")
_ET_AL = re.compile(rf"\b({_NAME}(?: (?:and|&) {_NAME})?) et al\.?(?: \(\d{{4}}\))?")
_ACCORDING = re.compile(rf"\b[Aa]ccording to ((?:{_NAME}\s?){{1,4}}),\s*")
_HEADING = re.compile(r"^(#{1,6})\s*(.*?)\s*[.:]?\s*$")
_WORD = re.compile(r"[\w'’-]+")


@dataclass(frozen=True, slots=True)
class L1Result:
    text: str
    changes: tuple[str, ...]  # one line per fix, for the trace


def source_haystack(constraints: Constraints) -> str:
    """Every source's text, case-folded with whitespace collapsed: what "a source mentions it" searches."""
    return " ".join(" ".join(t.split()) for t in constraints.sources.values()).casefold()


def links(text: str) -> list[tuple[str | None, str]]:
    """``(label, url)`` for every link: markdown links with their label, bare URLs with ``None``."""
    found = [(m.group(1), m.group(2)) for m in _MD_LINK.finditer(text)]
    rest = _MD_LINK.sub(" ", text)
    found.extend((None, m.group(1).rstrip(".,;:!?")) for m in _BARE.finditer(rest))
    return found


def entity_named(text: str, constraints: Constraints, before: int | None = None) -> str | None:
    """The entity with a canonical address that ``text`` names — the mention closest before position
    ``before`` (a link is about what was just named: "LanceDB …, and Atlas documents it at <url>")."""
    low = text.casefold()
    end = len(low) if before is None else before
    best: tuple[int, int, str] | None = None
    for name in constraints.canonical_urls:
        hits = [m.end() for m in re.finditer(rf"(?<!\w){re.escape(name.casefold())}(?!\w)", low)]
        if not hits:
            continue
        prior = [h for h in hits if h <= end]
        distance = end - prior[-1] if prior else len(low) + hits[0] - end  # after the link: a weaker claim
        key = (distance, -len(name), name)
        if best is None or key < best:
            best = key
    return best[2] if best else None


def classify_link(label: str | None, url: str, sentence: str, constraints: Constraints) -> tuple[LinkAction, str]:
    """What to do with one link and the address it ends up with (``""`` when it goes)."""
    allowed = {norm_url(u) for u in constraints.source_urls} | {norm_url(u) for u in constraints.canonical_urls.values()}
    if norm_url(url) in allowed:
        return "keep", url
    at = sentence.find(url)
    entity = entity_named(label or "", constraints) or entity_named(sentence, constraints, at if at >= 0 else None)
    if entity:
        return "rescue", constraints.canonical_urls[entity]
    if label is not None:
        return "strip_link", ""
    rest = _MD_LINK.sub(" ", sentence.replace(url, " "))
    if all(w.casefold() in _LINK_ONLY_WORDS for w in _WORD.findall(rest)):
        return "strip_sentence", ""
    return "strip_link", ""


def _label_for(url: str, constraints: Constraints) -> str | None:
    target = norm_url(url)
    for name, canonical in constraints.canonical_urls.items():
        if norm_url(canonical) == target:
            # dossiers hold names normalised ("acme search"); the label reads as the sources spell it
            pattern = re.compile(rf"(?<!\w){re.escape(name)}(?!\w)", re.IGNORECASE)
            for text in constraints.sources.values():
                if m := pattern.search(text):
                    return m.group(0)
            return name
    return None


def _fix_links(text: str, constraints: Constraints, changes: list[str]) -> str | None:
    """``text`` with every link classified and rewritten; ``None`` when the whole sentence goes."""
    def md(m: re.Match[str]) -> str:
        label, url = m.group(1), m.group(2)
        action, target = classify_link(label, url, text, constraints)
        if action in ("keep", "rescue"):
            if action == "rescue":
                changes.append(f"link rescued: {url} → {target}")
            if _GENERIC.match(label.strip()):
                better = _label_for(target, constraints)
                if better:
                    changes.append(f"generic label {label!r} → {better!r}")
                    label = better
            return f"[{label}]({target})"
        changes.append(f"link stripped (not a source): {url}")
        return label

    out = _MD_LINK.sub(md, text)
    for bare in [m.group(1).rstrip(".,;:!?") for m in _BARE.finditer(out) if not _inside_md(out, m.start())]:
        action, target = classify_link(None, bare, out, constraints)
        if action == "strip_sentence":
            changes.append(f"sentence stripped (only an unverifiable link): {bare}")
            return None
        if action == "rescue":
            changes.append(f"link rescued: {bare} → {target}")
            out = out.replace(bare, target)
        elif action == "strip_link":
            changes.append(f"link stripped (not a source): {bare}")
            out = re.sub(rf"\s*\(?<?{re.escape(bare)}>?\)?", "", out)
    return out


def _inside_md(text: str, pos: int) -> bool:
    return any(m.start(2) <= pos < m.end(2) for m in _MD_LINK.finditer(text))


def _grounded(name: str, constraints: Constraints, haystack: str) -> bool:
    key = normalize_entity(name)
    if any(normalize_entity(e) == key for e in constraints.supported_entities):
        return True
    return " ".join(name.split()).casefold() in haystack


def _mask_names(text: str, constraints: Constraints, haystack: str, changes: list[str]) -> str:
    def study(m: re.Match[str]) -> str:
        name = f"{m.group(1)}{m.group(2)}"
        if _grounded(name, constraints, haystack):
            return m.group(0)
        changes.append(f"ungrounded name masked: {name!r}")
        kind = m.group(2).lower()
        phrase = f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"
        return phrase.capitalize() if m.start() == 0 else phrase

    def et_al(m: re.Match[str]) -> str:
        if _grounded(m.group(1), constraints, haystack):
            return m.group(0)
        changes.append(f"ungrounded name masked: {m.group(0)!r}")
        return "One study" if m.start() == 0 else "one study"

    def according(m: re.Match[str]) -> str:
        name = m.group(1).strip()
        if _grounded(name, constraints, haystack):
            return m.group(0)
        changes.append(f"ungrounded attribution removed: {name!r}")
        return ""

    text = _STUDY.sub(study, text)
    text = _ET_AL.sub(et_al, text)
    masked = _ACCORDING.sub(according, text)
    if masked != text and masked[:1].islower():
        masked = masked[0].upper() + masked[1:]
    return masked


def _collapse_paste(text: str, haystack: str, changes: list[str]) -> str:
    words = _WORD.findall(text)
    if len(words) < PASTE_WORDS or not haystack:
        return text
    folded = [w.casefold() for w in words]
    for start in range(len(folded) - PASTE_WORDS + 1):
        if " ".join(folded[start:start + PASTE_WORDS]) in _words_only(haystack):
            head = " ".join(text.split()[:max(PASTE_KEEP, start + PASTE_KEEP)])
            changes.append(f"verbatim paste of {len(words) - start}+ source words collapsed")
            return f"{head.rstrip('.,;:')} …"
    return text


_WORDS_CACHE: dict[int, str] = {}


def _words_only(haystack: str) -> str:
    key = hash(haystack)
    if key not in _WORDS_CACHE:
        if len(_WORDS_CACHE) > 32:
            _WORDS_CACHE.clear()
        _WORDS_CACHE[key] = " ".join(_WORD.findall(haystack))
    return _WORDS_CACHE[key]


def fix_spacing(text: str) -> str:
    """Doubled spaces, space before punctuation, a missing space after a sentence's end, ``##Heading`` and a
    heading's closing full stop."""
    if text.lstrip().startswith("#"):
        m = _HEADING.match(text.strip())
        if m:
            return f"{m.group(1)} {' '.join(m.group(2).split())}"
    out = re.sub(r"[ \t]{2,}", " ", text)
    out = re.sub(r"\s+([,;:!?](?:\s|$))", r"\1", out)
    out = re.sub(r"\s+\.(\s|$)", r".\1", out)
    out = re.sub(r"\s+([.!?])(?=[A-Z][a-z])", r"\1 ", out)
    out = re.sub(r"(?<=[a-z])([.!?])(?=[A-Z][a-z])", r"\1 ", out)
    return out.strip()


def l1_fix(text: str, constraints: Constraints, haystack: str | None = None) -> L1Result:
    """All L1 fixes on one unit. ``haystack``: :func:`source_haystack`, passed in so a reply computes it once."""
    haystack = source_haystack(constraints) if haystack is None else haystack
    changes: list[str] = []
    linked = _fix_links(text, constraints, changes)
    if linked is None:
        return L1Result("", tuple(changes))
    out = _mask_names(linked, constraints, haystack, changes)
    out = _collapse_paste(out, haystack, changes)
    spaced = fix_spacing(out)
    if spaced != out:
        changes.append("spacing fixed")
    return L1Result(spaced, tuple(changes))
