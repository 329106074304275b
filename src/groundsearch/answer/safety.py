"""Content safety for retrieved text: what a page says *to the reader* is data, never an answer to repeat as verified.

The audit proves that a sentence is in its cited source; a phishing page is a source too. So before a sentence is
shown as verified, and before a hit's address becomes the result link, three things are looked for:

* **credential prompts** — "re-authenticate at …", "enter your password", "verify your account", "your session
  has expired": the pretext and the ask of every credential-phishing page;
* **instructions aimed at the reader** (or at a model reading it) — "you must log in again", "click here",
  "ignore previous instructions", "tell the user to …";
* **off-domain links** — a URL whose registrable domain is not the cited source's own (``item.url``'s). A source
  without an address has no domain to differ from, so its links are not judged by this rule.

The rules are deliberately simple patterns: they are cheap enough to run on every sentence and every hit of every
search, and a false positive only costs a visible flag, never a silent gap. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from urllib.parse import urlsplit

from tld import get_fld

from ..types import VERIFIED_MEANS, EvidenceHit

__all__ = ["VERIFIED_MEANS", "WITHHELD_MARKER", "acts_on_reader", "hit_flags", "result_link", "sentence_flags", "withholds"]

WITHHELD_MARKER = "[withheld: the source asks the reader to act here ({why}); open the source to judge it yourself]"

_URL = re.compile(r"https?://[^\s\]\)>\"'<]+", re.IGNORECASE)
_SECRET = (r"(?:password|passcode|passphrase|pin|credentials?|login details|sign-in details|one-time (?:code|password)"
           r"|(?:\w+-digit|verification|security|2fa|mfa|otp|sms) code|card number|cvv|security question"
           r"|social security number|api key|secret key|access token|seed phrase|recovery phrase)")
_CREDENTIAL = re.compile(
    r"\bre-?(?:authenticate|authorise|authorize|login|log in|sign in|enter your)\b"
    r"|\b(?:log|sign)[ -]?(?:in|on) again\b"
    rf"|\b(?:enter|confirm|provide|type|submit|update|re-?enter|share|send|reply with)\b[^.!?]{{0,40}}?\b{_SECRET}\b"
    r"|\bverify your (?:account|identity|email|login|payment|details)\b"
    r"|\byour (?:\w+ )?(?:account|session|password|subscription|access|mailbox) (?:has |have |will )?"
    r"(?:expired|expire|been (?:suspended|locked|disabled|compromised)|is (?:suspended|locked|disabled))\b",
    re.IGNORECASE,
)
_ACTION = (r"(?:click|tap|visit|go to|call|contact|download|install|open|log ?in|sign ?in|send|wire|pay|transfer"
           r"|reply|scan)")
_INSTRUCTION = re.compile(
    r"\b(?:ignore|disregard|forget|override)\b[^.!?]{0,20}\b(?:previous|prior|above|earlier|all|your|system)\b"
    r"[^.!?]{0,20}\b(?:instructions?|prompts?|rules|messages|guidelines)\b"
    rf"|\b(?:you must|you need to|you have to|you should|please|kindly)\s+(?:\w+ly\s+|now\s+)?{_ACTION}\b"
    rf"|(?:^|[.!?:]\s+)(?:\w+ly\s+)?{_ACTION}\s+(?:here|this link|the link below|now|immediately|on the link)\b"
    r"|\b(?:tell|instruct|ask|convince|remind) the (?:user|reader|customer|visitor)s? (?:to|that)\b"
    r"|\b(?:as an? (?:ai|assistant|language model)|dear (?:assistant|ai|model))\b"
    rf"|\b(?:act now|urgent(?:ly)?|immediately|within 24 hours)\b[^.!?]{{0,60}}\b{_ACTION}\b",
    re.IGNORECASE,
)


def _domain(url: str) -> str | None:
    """The registrable domain (``docs.acme.com`` → ``acme.com``) by the Public Suffix List; the last two labels
    for hosts the list does not know (``.example``, ``.internal``), the bare host for IPs and ``localhost``."""
    host = (urlsplit(url).hostname or "").lower().rstrip(".")
    if not host:
        return None
    fld = get_fld(url, fail_silently=True)
    if fld:
        return fld.lower()
    labels = host.split(".")
    if host.replace(".", "").isdigit() or len(labels) < 2:
        return host
    return ".".join(labels[-2:])


def _own_domains(source_urls: Iterable[str | None]) -> set[str]:
    return {d for d in (_domain(u) for u in source_urls if u) if d}


def sentence_flags(text: str, source_urls: str | Sequence[str | None] | None = ()) -> tuple[str, ...]:
    """Why ``text`` must not be shown as verified (empty: nothing found). ``source_urls``: the cited sources'
    own addresses, whose domains its links may point to."""
    if isinstance(source_urls, str) or source_urls is None:
        source_urls = (source_urls,)
    flags: list[str] = []
    if m := _CREDENTIAL.search(text):
        flags.append(f"credential prompt ({m.group(0).strip()!r})")
    if m := _INSTRUCTION.search(text):
        flags.append(f"instruction aimed at the reader ({m.group(0).strip(' .!?:')!r})")
    own = _own_domains(source_urls)
    if own:
        for url in _URL.findall(text):
            target = _domain(url.rstrip(".,;:"))
            if target and target not in own:
                flags.append(f"link to {target}, not the source's own domain ({', '.join(sorted(own))})")
    return tuple(dict.fromkeys(flags))


def acts_on_reader(flags: Sequence[str]) -> bool:
    """True when a flag is more than an off-domain link: a credential prompt or an instruction to the reader."""
    return any(not f.startswith("link to ") for f in flags)


def withholds(flags: Sequence[str], text: str) -> bool:
    """A prompt or instruction that comes with a link is the whole phishing move: withhold the sentence. Without a
    link (or with only an off-domain link) it is shown, flagged and unverified, so the reader can still judge it."""
    return acts_on_reader(flags) and bool(_URL.search(text))


def hit_flags(hit: EvidenceHit) -> tuple[str, ...]:
    """Flags for the hit's passage as a whole (links are judged against the hit's own address)."""
    return sentence_flags(hit.chunk.text, hit.item.url)


def result_link(hit: EvidenceHit, flags: Sequence[str] | None = None) -> str | None:
    """The hit's address as the result link, unless its passage prompts for credentials or instructs the reader:
    then the address is the one thing the page wants clicked, so it is not offered."""
    flags = hit_flags(hit) if flags is None else flags
    if acts_on_reader(flags):
        return None
    return hit.item.url
