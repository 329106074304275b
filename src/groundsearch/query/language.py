"""Which language a request is written in, for the steps that read only some languages. Pure.

The relevance gate's cosine comes from the engine's embedder; all-MiniLM-L6-v2 was trained on English, so
on "gráfico circular de artículos por sede" it measures the language, not the relevance: on the demo corpus
on-topic Spanish, French, Chinese … requests scored 0.13–0.35, no better than off-topic ones (0.11–0.32).
``py3langid`` (a maintained fork of langid.py, ~0.1 ms a request) names the language, restricted to the nine
the intent step knows; only a sure reading counts, since short English requests ("explain box plots") can
read as French at low probability. Without ``py3langid`` every request counts as readable (the old gate).
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any

__all__ = ["LANGUAGES", "MIN_PROBABILITY", "READS", "detect", "unreadable"]

LANGUAGES = ("en", "es", "fr", "de", "pt", "it", "nl", "zh", "ja")
# Checked on intents-dev, intents-heldout3 and offtopic-dev (507 requests): 501 read on the right side of
# English / not English; the English ones read as another language were at 0.44–0.59.
MIN_PROBABILITY = 0.7
# Embedder model_id prefix → the languages it reads; an embedder not listed reads every language.
READS: dict[str, frozenset[str]] = {"all-MiniLM-L6-v2": frozenset({"en"})}

_lock = threading.Lock()


@lru_cache(maxsize=1)
def _identifier() -> Any:
    try:
        from py3langid.langid import MODEL_FILE, LanguageIdentifier
    except ImportError:
        return None
    ident = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    ident.set_languages(list(LANGUAGES))
    return ident


def detect(text: str) -> tuple[str, float] | None:
    """(language, probability) among :data:`LANGUAGES`; ``None`` when ``py3langid`` is not installed."""
    ident = _identifier()
    if ident is None or not text.strip():
        return None
    with _lock:  # the identifier keeps per-call scratch state
        lang, p = ident.classify(text)
    return str(lang), float(p)


def unreadable(text: str, model_id: str) -> tuple[str, float] | None:
    """The language of ``text`` when the embedder ``model_id`` does not read it and the reading is sure."""
    reads = next((langs for prefix, langs in READS.items() if model_id.startswith(prefix)), None)
    if reads is None:
        return None
    found = detect(text)
    if found is None or found[0] in reads or found[1] < MIN_PROBABILITY:
        return None
    return found
