"""What of a query may be kept: a keyed hash by default, redacted raw text only on explicit opt-in.

A plain SHA-256 of a short query is reversible by guessing (hash every likely query and compare), so the
hash is an HMAC under a secret the deployment holds. Query *terms* are kept the same way, one HMAC each, so
popular terms can be counted without storing what anyone typed: :func:`label_terms` names only the hashes
that match words of the tenant's own corpus, which keeps an email address or a name typed into the box
unreadable unless the corpus itself contains it.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Iterable, Mapping

from ..store.text import analyze, tokenize

__all__ = ["REDACTIONS", "hash_query", "hash_terms", "label_terms", "reason", "redact"]

# Shapes that identify a person or unlock something; each becomes a fixed placeholder.
REDACTIONS: Mapping[str, re.Pattern[str]] = {
    "email": re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),
    # A key before a phone number: long digit runs inside a key must not be taken for a phone.
    "key": re.compile(r"\b(?:sk|pk|rk|gsk|ghp|gho|xox[abp]|AKIA)[-_A-Za-z0-9]{12,}\b|\b[A-Za-z0-9_-]{32,}\b"),
    # separators a phone number uses (not dots: versions and dates); at least 9 digits, see _PHONE_DIGITS
    "phone": re.compile(r"(?<![\w.])\+?\(?\d[\d ()-]{7,}\d(?![\w.])"),
}
_ORDER = ("email", "key", "phone")
_PHONE_DIGITS = 9  # fewer is a date (2024-10-01 has 8) or a count, not a phone number
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")


def _mac(key: bytes, text: str) -> str:
    return hmac.new(key, text.encode("utf-8"), hashlib.sha256).hexdigest()


def hash_query(key: bytes, query: str) -> str:
    """HMAC-SHA256 of the whitespace-normalised query: equal queries compare equal, nothing else is learnt."""
    return _mac(key, "q:" + " ".join(query.split()))


def hash_terms(key: bytes, query: str) -> tuple[str, ...]:
    """One HMAC per distinct index term of ``query`` (stemmed as search stems it), short enough to count."""
    return tuple(_mac(key, "t:" + t)[:24] for t in dict.fromkeys(analyze(query)))


def label_terms(key: bytes, counts: Iterable[tuple[str, int]], vocabulary: Iterable[str]) -> list[tuple[str, int]]:
    """Name the counted term hashes that match a word of ``vocabulary``; the rest stay unnamed (dropped)."""
    names: dict[str, str] = {}
    for text in vocabulary:
        for word in tokenize(text):
            for term in analyze(word):
                h = _mac(key, "t:" + term)[:24]
                if h not in names or len(word) < len(names[h]):
                    names[h] = word
    return [(names[h], n) for h, n in counts if h in names]


def redact(text: str, kinds: Iterable[str]) -> str:
    """``text`` with each configured shape replaced by ``[email]`` / ``[key]`` / ``[phone]``."""
    wanted = set(kinds)
    for kind in _ORDER:
        if kind == "phone" and kind in wanted:
            text = REDACTIONS[kind].sub(
                lambda m: "[phone]" if sum(c.isdigit() for c in m.group(0)) >= _PHONE_DIGITS else m.group(0), text)
        elif kind in wanted:
            text = REDACTIONS[kind].sub(f"[{kind}]", text)
    return text


def reason(note: str, query: str) -> str:
    """A degraded note as a reason safe to store and group by: quoted text (a reformulated query, a field
    value) becomes ``'…'``, and any piece of the raw query that a message echoed is cut out."""
    out = _QUOTED.sub("'…'", note)
    q = query.strip()
    if q and q in out:
        out = out.replace(q, "…")
    return out[:300]
