"""Stored text → the sentences an extractive answer may quote, and nothing that only looks like one.

An extractive answer is only as readable as what it quotes. Chunks of Markdown, READMEs and records hold
titles, headings, table rows, code, shell lines and keyword lists next to real sentences; strung together
they read as an answer and say nothing (issue 11: four paper titles as "the answer", CLI lines and a
table fragment as the explanation). A candidate therefore has to look like prose: enough words, most of
them lower-case, closed by sentence punctuation (or by a snippet's "…"), and none of the marks of code,
tables or commands. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from ..types import Chunk, Item

__all__ = ["ELIDED", "EMBED_WORDS", "MAX_WORDS", "MIN_WORDS", "blocks", "clauses", "embed_text", "is_prose", "quotable",
           "split_sentences"]

MIN_WORDS = 5
MAX_WORDS = 100  # past this a "sentence" is a run-on list or a mis-split; one past it is cut at its semicolons
ELIDED = "…"  # marks where a clause of a longer sentence was cut from the rest (see :func:`clauses`)
BRACKET_PIECES = 3  # pieces after a split inside a bracket that may close it ("(b." | "1790, d." | "1850)")
EMBED_WORDS = 32  # a sentence's first words carry its topic; MiniLM's cost grows with every token

# A sentence ends at . ! ? (or a snippet's "..."/"…") followed by a capital, digit, quote or bracket; a
# line break or a middle dot (search-snippet separator) always ends one.
_SPLIT = re.compile(r"(?<=[.!?…])\s+(?=[A-Z0-9\"'“(\[])|\s+·\s+")
_BLOCK_START = re.compile(r"^\s*(?:#{1,6}\s|\||[-*+]\s|\d+[.)]\s|>|\$\s|    \S|\t)")
_NOT_PROSE_BLOCK = re.compile(r"^(?:#{1,6}\s|\||>|\$\s|    |\t)")
_EMPHASIS = re.compile(r"(\*\*|__|\*)(?=\S)(.+?)(?<=\S)\1")
_LINK = re.compile(r"\[([^\]]+)\]\([^)\s]+\)")
_INLINE_CODE = re.compile(r"`([^`]{1,40})`")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]\s|\d+[.)]\s)")
_ABBREV_END = re.compile(r"\b(?:[A-Z]|[A-Z][a-z]{0,3}|e\.g|i\.e|vs|etc|No|St|Dr|Mr|Mrs|Ms|Jr|U\.S)\.$")
_LINE_NOISE = re.compile(r"^\s*(?:#{1,6}\s|\||```|~~~|>|\$\s|[-*+]\s+\[[ x]\]|<[a-zA-Z/])")
_CLOSED = re.compile(r"(?:[.!?…]|\.\.\.)[\"'”’)\]]*$")
_CODE = re.compile(
    r"`"  # inline code
    r"|\s--?[a-z][\w-]*(?:[=\s]|$)"  # command-line flags: --limit 5, -c docs
    r"|[A-Za-z_]\w*\([^)]*\)"  # calls: run_search(request)
    r"|::|->|=>|==|!=|\{|\}|;\s*$"
    r"|\b[A-Z_]{3,}=\S"  # environment assignments: GROUNDSEARCH_DATA_DIR=...
)
_PATHISH = re.compile(r"\w/\w|\w\.(?:py|toml|json|jsonl|md|sh|yaml|yml|sql|js|html)\b|_\w")
_LOWER_WORD = re.compile(r"^[a-z][a-z'’-]*[,;:]?$")
# "Code: Apache-2.0." — a label and its value, closed like a sentence inside a paragraph: a statement however
# short ("Licences and data" above it is the heading; this line is what the section says)
_LABELLED = re.compile(r"^[A-Z][a-z]+(?: [a-z]+){0,3}: [^\s:`|]+(?: [^\s:`|]+){0,3}\.$")


def blocks(text: str) -> list[str]:
    """Paragraphs of ``text`` with soft-wrapped lines joined. Fenced code is dropped; headings, list
    items, table rows, indented code and shell lines each stay a block of their own, so a wrapped
    sentence is read whole and a heading never runs into the sentence after it."""
    out: list[str] = []
    para: list[str] = []
    fenced = False

    def flush() -> None:
        if para:
            out.append(" ".join(para))
            para.clear()

    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            flush()
            fenced = not fenced
            continue
        if fenced:
            continue
        if not stripped:
            flush()
        elif _BLOCK_START.match(line):
            flush()
            para.append(stripped)
            if not _LIST_ITEM.match(line):  # headings and table rows never continue on the next line
                flush()
        else:
            para.append(stripped)
    flush()
    return out


def _unmark(text: str) -> str:
    """Markdown emphasis, links and short inline code spans → their plain words (the words are what a
    reader quotes; a long code span stays marked and the sentence is rejected as code)."""
    return _INLINE_CODE.sub(r"\1", _LINK.sub(r"\1", _EMPHASIS.sub(r"\2", text)))


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text``, block by block (see :func:`blocks`), whitespace collapsed. A split after an
    abbreviation ("U.S.", "e.g.", "No.") is undone: those full stops end no sentence; so is one inside a
    bracket the next pieces close ("(r. 209–174 BC)", :func:`_closes`). An overlong sentence is cut into its
    :func:`clauses`."""
    out: list[str] = []
    for block in blocks(text):
        if _NOT_PROSE_BLOCK.match(block):
            continue  # a heading, table row, quote, indented code or shell line: no sentence in it
        block = _unmark(_LIST_ITEM.sub("", block, count=1))
        start = len(out)
        pieces = [p for p in (" ".join(raw.split()) for raw in _SPLIT.split(block)) if p]
        for n, piece in enumerate(pieces):
            if len(out) > start and (_ABBREV_END.search(out[-1]) or _closes(out[-1], pieces[n:n + BRACKET_PIECES])):
                out[-1] = f"{out[-1]} {piece}"
            else:
                out.append(piece)
        out[start:] = [c for s in out[start:] for c in clauses(s)]
    return out


def _depth(text: str) -> int:
    """Brackets ``text`` leaves open (a stray closing one opens nothing)."""
    depth = 0
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}" and depth:
            depth -= 1
    return depth


def _closes(head: str, following: Sequence[str]) -> bool:
    """``head`` ends inside a bracket that the ``following`` pieces close: the full stop before the split
    abbreviated something in a parenthesis ("Modu Chanyu (r." | "209–174 BC) united the tribes", "Cabot (b." |
    "1790, d." | "1850) was"), and no sentence ends there. A bracket those pieces never close joins nothing,
    so a stray "(" cannot run a block's sentences together."""
    depth = _depth(head)
    if not depth:
        return False
    for ch in " ".join(following):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if not depth:
                return True
    return False


def clauses(sentence: str) -> list[str]:
    """A sentence of more than ``MAX_WORDS`` words cut at its top-level semicolons (not those inside
    brackets or quotes), each cut marked ``ELIDED`` on its side. The README's ~120-word "Retrieval runs a
    BM25 leg (…) and fuses them by z-scored leg scores (…; …) …; a graph leg (…) joins …" was, whole, no
    candidate for any question; cut, each clause is one. The words stay the source's: only the semicolon
    where it is cut becomes the elision mark. A shorter sentence, one without such a semicolon, or one whose
    pieces are not each a clause of ``MIN_WORDS``–``MAX_WORDS`` words is returned whole (and, too long,
    stays unquotable)."""
    if len(sentence.split()) <= MAX_WORDS:
        return [sentence]
    cuts, depth, quote = [], 0, ""
    for i, ch in enumerate(sentence):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"“":
            quote = "\"" if ch == "\"" else "”"
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        elif ch == ";" and depth == 0:
            cuts.append(i)
    if not cuts:
        return [sentence]
    pieces = [p.strip() for p in (sentence[a + 1:b] for a, b in zip([-1, *cuts], [*cuts, len(sentence)], strict=True))]
    if not all(MIN_WORDS <= len(p.split()) <= MAX_WORDS for p in pieces):
        # short pieces are a list's items, an overlong one a flattened table ("Name Position (s) in 1989 Deng
        # Xiaoping Chairman …; … 180 more words"): not clauses of one sentence, and its first piece is no claim
        return [sentence]
    return [f"{ELIDED} " * (n > 0) + piece + f" {ELIDED}" * (n < len(pieces) - 1) for n, piece in enumerate(pieces)]


def _lower_share(words: list[str]) -> float:
    # the first word is capitalised in every sentence; numbers and versions are neither case
    tail = [w for w in words[1:] if not any(c.isdigit() for c in w)] or words
    return sum(1 for w in tail if _LOWER_WORD.match(w)) / len(tail)


def is_prose(sentence: str, *, not_equal_to: Iterable[str] = ()) -> bool:
    """True when ``sentence`` reads as a sentence: not a title, heading, table row, list of names, code
    or command line. ``not_equal_to`` holds the titles and headings of the text's own item: a sentence
    that only repeats one of them is a title, however it is punctuated."""
    s = sentence.strip()
    words = s.split()
    if (2 <= len(words) < MIN_WORDS and _LABELLED.match(s) and not _CODE.search(s)
            and not any(_PATHISH.search(w) for w in words)):
        return not any(s.rstrip(".").casefold() == t.rstrip(".!?… ").casefold() for t in not_equal_to if t)
    if not MIN_WORDS <= len(words) <= MAX_WORDS:
        return False
    if _LINE_NOISE.match(s) or s.count("|") >= 2 or _CODE.search(s):
        return False
    if sum(1 for w in words if _PATHISH.search(w)) * 5 > len(words):
        return False  # a list of modules and paths is a directory listing, not a claim
    if not _CLOSED.search(s):
        return False  # titles, headings, list items and table cells carry no closing punctuation
    if _lower_share(words) < 0.3:
        return False  # Title Case Throughout, or a run of names: a heading or a byline, not a claim
    symbols = sum(1 for c in s if not (c.isalnum() or c.isspace() or c in ".,;:!?'\"’“”()-–—…%$/&"))
    if symbols > max(2, len(s) // 25):
        return False
    body = s.rstrip(".!?… ").casefold()
    return not any(body == t.rstrip(".!?… ").casefold() for t in not_equal_to if t)


def _line_head(item: Item, chunk: Chunk) -> str:
    """What of its first line a chunk cut mid-line leaves in the chunk before it, when that line is a table
    row, quote, heading or code line (:data:`_NOT_PROSE_BLOCK`); "" otherwise. A long Markdown table row is
    packed into several chunks (the README's CLI table: the ``ingest`` row's middle third is a chunk of
    its own, with no ``|`` in it), and what follows the cut would read as a paragraph."""
    if chunk.position == 0 or not item.text or item.text.startswith(chunk.text):
        return ""
    at = item.text.find(chunk.text)
    if at <= 0:
        return ""
    head = item.text[item.text.rfind("\n", 0, at) + 1:at]
    return head if head.strip() and _NOT_PROSE_BLOCK.match(head) else ""


def quotable(item: Item, chunk: Chunk) -> list[str]:
    """The sentences of ``chunk`` an extractive answer may quote, in order: prose only, and a record's
    summary prefixed by its title (on its own it says nothing of whose it is). A chunk that begins inside
    a table row (or another non-prose line) of its item reads that line as what it is (:func:`_line_head`).
    The same list at ingest (the stored sentence vectors) and at answer time, so a stored vector is found
    by its text."""
    titles = (item.title, *chunk.heading_path)
    record = bool(item.fields) and not chunk.heading_path
    out = []
    for s in split_sentences(_line_head(item, chunk) + chunk.text):
        if not is_prose(s, not_equal_to=titles):
            continue
        if record and item.title and item.title not in s and not item.id.endswith(item.title):
            s = f"{item.title}: {s}"
        out.append(s)
    return out


def embed_text(sentence: str) -> str:
    """What the embedder sees of a candidate sentence: its first ``EMBED_WORDS`` words."""
    return " ".join(sentence.split()[:EMBED_WORDS])
