"""Which language a request is written in, for the steps that read only some languages. Pure.

The relevance gate's cosine comes from the engine's embedder; all-MiniLM-L6-v2 was trained on English, so
on "gráfico circular de artículos por sede" it measures the language, not the relevance: on the demo corpus
on-topic Spanish, French, Chinese … requests scored 0.13–0.35, no better than off-topic ones (0.11–0.32).
A request that is surely not English therefore goes to a judge that reads it (``query.judge``), whatever its
language: a request in Arabic, Czech or Thai is as unreadable to MiniLM as one in Spanish.

Three readings, any of which is sure enough (:func:`reading`):

- **script** — most of its words are outside the Latin script (Arabic, Devanagari, Thai, Hebrew, Greek,
  Cyrillic, Hangul, Han, Kana …). Read from Unicode, so it holds for a script no model was tuned on. Words,
  not letters: "كيف أقوم بإعداد groundsearch مع Postgres و pgvector؟" has more Latin letters than Arabic ones.
- **all** — ``py3langid`` (a maintained fork of langid.py, ~0.1 ms a request) over every language it knows
  puts :data:`MIN_PROBABILITY` or more on its :data:`NEIGHBOURS` likeliest languages, none of them English:
  Czech, Swedish, Vietnamese, Polish … Over ~140 languages close ones split the mass (Indonesian 0.62 and
  Malay 0.38; Czech 0.39 and Slovak 0.25), so the likeliest alone is rarely sure of a short request.
- **nine** — the same identifier restricted to the nine the intent step knows, where related languages no
  longer split the probability (Spanish is not shared with Galician and Catalan).

Only a sure reading counts, since short English requests ("explain box plots") read as French at low
probability, and an English request read as another language escapes MiniLM's gate. Over all languages a
few labels are English in all but name (:data:`ENGLISH_LIKE`: Nigerian Pidgin reads "a slope chart: …" at
0.90). Without ``py3langid`` only the script reading is made.
"""

from __future__ import annotations

import threading
import unicodedata
from functools import lru_cache
from itertools import groupby
from typing import Any, Literal, NamedTuple

__all__ = ["ENGLISH_LIKE", "LANGUAGES", "MIN_PROBABILITY", "MIN_SCRIPT_SHARE", "NEIGHBOURS", "READS", "Reading", "detect",
           "reading", "script_share", "unreadable"]

LANGUAGES = ("en", "es", "fr", "de", "pt", "it", "nl", "zh", "ja")
# Checked on intents-dev, intents-heldout3 and offtopic-dev (507 requests): 501 read on the right side of
# English / not English; the English ones read as another language were at 0.44–0.59. Over all languages, on
# the English rows of every labelled split but the blind ones (1,118): one read as another language at 0.7
# or more, "lorem ipsum dolor" (Latin, rightly).
MIN_PROBABILITY = 0.7
# Labels of py3langid's full model that an English request reads as: Nigerian Pidgin (English-lexified) and
# "no linguistic content" (``zxx``: "asdf qwerty").
ENGLISH_LIKE = frozenset({"en", "pcm", "zxx"})
# Half the words in another script; an English request quoting a foreign name ("the paper by 王小明 on
# reranking") keeps most of its words Latin. A run of Han or Kana is one word (those scripts use no spaces).
MIN_SCRIPT_SHARE = 0.5
# How many of the likeliest languages the "all" reading sums; on the English rows of the labelled splits
# (1,118, the blind ones left out) the highest such sum was 0.53 ("graph neural network reranking papers"),
# bar "lorem ipsum dolor" (Latin, 1.0).
NEIGHBOURS = 3
# Embedder model_id prefix → the languages it reads; an embedder not listed reads every language.
READS: dict[str, frozenset[str]] = {"all-MiniLM-L6-v2": frozenset({"en"})}

_lock = threading.Lock()


class Reading(NamedTuple):
    """A sure reading of a request as a language other than English."""

    lang: str  # an ISO 639 code from py3langid, or "und" when only the script is known
    probability: float  # py3langid's (summed over the neighbours for "all"), or the script's share of words
    by: Literal["script", "all", "nine"]


@lru_cache(maxsize=2)
def _identifier(nine: bool) -> Any:
    try:
        from py3langid.langid import MODEL_FILE, LanguageIdentifier
    except ImportError:
        return None
    ident = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    if nine:
        ident.set_languages(list(LANGUAGES))
    return ident


def _rank(text: str, nine: bool) -> list[tuple[str, float]] | None:
    ident = _identifier(nine)
    if ident is None or not text.strip():
        return None
    with _lock:  # the identifier keeps per-call scratch state
        return [(str(lang), float(p)) for lang, p in ident.rank(text)]


def detect(text: str) -> tuple[str, float] | None:
    """(language, probability) among :data:`LANGUAGES`; ``None`` when ``py3langid`` is not installed."""
    ranked = _rank(text, nine=True)
    return ranked[0] if ranked else None


def script_share(text: str) -> float:
    """The share of ``text``'s words written outside the Latin script (0 when it has no letters); a word is a
    run of letters of one side, so "LangChainの比較表" is two."""
    words = [latin for latin, _ in groupby((_latin(c) for c in text if c.isalpha() or c.isspace()))
             if latin is not None]
    return sum(not latin for latin in words) / len(words) if words else 0.0


def _latin(c: str) -> bool | None:
    return None if c.isspace() else unicodedata.name(c, "LATIN").startswith("LATIN")


def reading(text: str) -> Reading | None:
    """A sure reading of ``text`` as a language other than English, else None (English, or unsure)."""
    ranked = _rank(text, nine=False) or []
    foreign = [(lang, p) for lang, p in ranked if lang not in ENGLISH_LIKE][:NEIGHBOURS]
    mass = sum(p for _, p in foreign)
    if ranked and ranked[0][0] not in ENGLISH_LIKE and mass >= MIN_PROBABILITY:
        return Reading(ranked[0][0], mass, by="all")
    nine = detect(text)
    if nine is not None and nine[0] != "en" and nine[1] >= MIN_PROBABILITY:
        return Reading(*nine, by="nine")
    share = script_share(text)
    if share >= MIN_SCRIPT_SHARE:
        return Reading(foreign[0][0] if foreign else "und", share, by="script")
    return None


def unreadable(text: str, model_id: str) -> Reading | None:
    """The sure reading of ``text`` when the embedder ``model_id`` does not read its language."""
    reads = next((langs for prefix, langs in READS.items() if model_id.startswith(prefix)), None)
    if reads is None:
        return None
    found = reading(text)
    return None if found is None or found.lang in reads else found
