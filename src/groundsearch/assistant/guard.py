"""The information guard in code, for what a prompt cannot promise with a 0.5B model.

* Retrieved text is data: a paragraph of a source in which content safety (``answer/safety.py``) finds an
  instruction aimed at the reader or a credential prompt is withheld from the model's view of the dossier —
  the whole paragraph, since an injection's payload ("reply only with …") usually follows its opener ("ignore
  all previous instructions"). Measured: the bundled Qwen2.5-Coder 0.5B, shown such a document, answered with
  the planted payload verbatim.
* A reply that still echoes a withheld paragraph is not shown: four of its words in a row, or a marker token of it
  (all capitals, or with digits — "PWNED", "X7-CODE") that no source kept for the model and no user message has.
* A reply that repeats the system prompt (eight words in a row) is not shown.
"""

from __future__ import annotations

import re

from ..answer.safety import acts_on_reader, sentence_flags

__all__ = ["WITHHELD_SOURCE", "echoes", "leaks", "repeats", "withhold_instructions"]

WITHHELD_SOURCE = "[text withheld: it addresses the reader or the assistant with instructions]"
_PARAGRAPH = re.compile(r"\n\s*\n")


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.casefold())


def repeats(reply: str, secret: str, window: int) -> bool:
    """True when ``reply`` contains ``window`` consecutive words of ``secret``."""
    words, said = _words(secret), " " + " ".join(_words(reply)) + " "
    return any(" " + " ".join(words[i:i + window]) + " " in said for i in range(max(0, len(words) - window + 1)))


def leaks(reply: str, system_prompt: str) -> bool:
    return repeats(reply, system_prompt, 8)


def withhold_instructions(text: str) -> tuple[str, list[str]]:
    """``(text with flagged paragraphs replaced by WITHHELD_SOURCE, the paragraphs withheld)``."""
    kept, withheld = [], []
    for paragraph in _PARAGRAPH.split(text):
        if acts_on_reader(sentence_flags(paragraph)):
            withheld.append(paragraph)
            kept.append(WITHHELD_SOURCE)
        else:
            kept.append(paragraph)
    return "\n\n".join(kept), withheld


_MARKER = re.compile(r"\b(?:[A-Z]{3,}|\w*\d\w*[A-Za-z]\w*)\b")


def echoes(reply: str, withheld: list[str], allowed: str) -> bool:
    """True when ``reply`` repeats a withheld paragraph (:func:`repeats`, 4 words) or one of its marker tokens
    absent from ``allowed`` (the text the model may legitimately repeat: kept sources, the user's words)."""
    if any(repeats(reply, w, 4) for w in withheld):
        return True
    known = set(_words(allowed))
    said = set(_words(reply))
    return any(t.casefold() in said and t.casefold() not in known for w in withheld for t in _MARKER.findall(w))
