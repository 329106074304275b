"""The information guard in code, for what a prompt cannot promise with a 0.5B model.

* Retrieved text is data: a paragraph of a source in which content safety (``answer/safety.py``) finds an
  instruction aimed at the reader or a credential prompt is withheld from the model's view of the dossier —
  the whole paragraph, since an injection's payload ("reply only with …") usually follows its opener ("ignore
  all previous instructions"). Measured: the bundled Qwen2.5-Coder 0.5B, shown such a document, answered with
  the planted payload verbatim.
* A reply that still repeats a withheld paragraph (four words in a row) is not shown.
* A reply that repeats the system prompt (eight words in a row) is not shown.
"""

from __future__ import annotations

import re

from ..answer.safety import sentence_flags

__all__ = ["WITHHELD_SOURCE", "leaks", "repeats", "withhold_instructions"]

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
        if any(not f.startswith("link to ") for f in sentence_flags(paragraph)):
            withheld.append(paragraph)
            kept.append(WITHHELD_SOURCE)
        else:
            kept.append(paragraph)
    return "\n\n".join(kept), withheld
