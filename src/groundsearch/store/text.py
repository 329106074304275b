"""The one tokenizer every keyword index uses (embedded and Postgres), so both backends rank alike.

Pipeline: Unicode NFKC → casefold → split on anything that is not a letter or digit → drop tokens
longer than 40 characters (hashes, base64 blobs) and English function words → Snowball English stem.

Splitting on non-alphanumerics is also the safety property: operators of any query language
(``AND``/``OR``/``NOT`` become ordinary lowercase words, ``+ - : " * ( ) [ ] ^ ~ %`` vanish), so user
text can only ever produce plain terms.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import Stemmer

__all__ = ["BM25_B", "BM25_K1", "MAX_TOKEN_CHARS", "STOPWORDS", "analyze", "keyword_terms", "tokenize"]

MAX_TOKEN_CHARS = 40

# Function words that carry no topical signal in BM25. Kept short on purpose: negations and
# question words that change meaning ("not", "how", "why") are kept.
STOPWORDS = frozenset(
    """
    a an the and or of to in on at by for from with as into onto over under about than then
    is are was were be been being am do does did doing has have had having
    it its it's this that these those there here which who whom whose what
    i me my we our ours you your yours he him his she her hers they them their theirs
    so such too very can could should would will shall may might must
    if but because while until also just only own same other some any each both all
    s t
    """.split()
)

_SPLIT = re.compile(r"[^\W_]+", re.UNICODE)


@lru_cache(maxsize=1)
def _stemmer() -> Stemmer.Stemmer:
    stemmer = Stemmer.Stemmer("english")
    stemmer.maxCacheSize = 100_000
    return stemmer


def tokenize(text: str) -> list[str]:
    """Lowercased, unstemmed word tokens (letters and digits only), stopwords kept."""
    return _SPLIT.findall(unicodedata.normalize("NFKC", text).casefold())


def analyze(text: str) -> list[str]:
    """Index/query terms: :func:`tokenize`, minus stopwords and over-long tokens, Snowball-stemmed."""
    words = [w for w in tokenize(text) if len(w) <= MAX_TOKEN_CHARS and w not in STOPWORDS]
    return _stemmer().stemWords(words)


# BM25 parameters shared by every backend (tantivy's defaults; Postgres scores with the same numbers so the
# two rank alike). k1 saturates term frequency; b normalises by chunk length relative to the average.
BM25_K1 = 1.2
BM25_B = 0.75


def keyword_terms(title: str, heading_path: tuple[str, ...] | list[str], text: str) -> list[str]:
    """The terms a chunk is indexed under: its item's title, its heading breadcrumb and its text.

    Every backend indexes exactly these, so a chunk's BM25 length and postings agree across backends.
    """
    return analyze(" ".join((title, " ".join(heading_path), text)))
