"""Document loaders: Markdown, plain text, HTML and PDF files → one :class:`Draft` each.

Every loader reads bytes itself and fails with an :class:`IngestError` naming the file (and the line, for
text) — invalid UTF-8, an empty file, an unreadable PDF — before anything is written.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path

from .chunking import MAX_CHUNK_CHARS, ChunkDraft, chunk_markdown, chunk_text
from .coerce import parse_date, parse_status, parse_url
from .draft import Draft, ingest_error

__all__ = ["DOCUMENT_SUFFIXES", "load_document", "parse_front_matter", "read_text"]

DOCUMENT_SUFFIXES = (".md", ".markdown", ".txt", ".html", ".htm", ".pdf")
FRONT_MATTER_KEYS = ("title", "status", "date", "url", "superseded_by", "tenant")

_FRONT = re.compile(r"\A---[ \t]*\r?\n(.*?)^---[ \t]*(?:\r?\n|\Z)", re.DOTALL | re.MULTILINE)
_KEY_VALUE = re.compile(r"^([A-Za-z_][\w-]*)[ \t]*:[ \t]*(.*?)[ \t]*$")
_H1 = re.compile(r"^ {0,3}#[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
# A first line longer than this reads as a paragraph, not a title; the file name is used instead.
_MAX_TITLE_CHARS = 120


def read_text(path: Path, data: bytes | None = None) -> str:
    """UTF-8 text (a BOM is dropped); invalid bytes name their line; empty files are refused."""
    data = path.read_bytes() if data is None else data
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ingest_error(path, f"invalid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
                           "save the file as UTF-8", line=line) from exc
    if not text.strip():
        raise ingest_error(path, "empty file")
    return text


def parse_front_matter(text: str, path: Path) -> tuple[dict[str, str], str, int]:
    """``---`` / ``key: value`` / ``---`` at the top → (values, body, body's first line number).

    Only the keys in ``FRONT_MATTER_KEYS`` are used; other keys (tags, layout…) written by other tools
    are ignored rather than refused, so existing Markdown trees ingest as they are.
    """
    match = _FRONT.match(text)
    if not match:
        return {}, text, 1
    values: dict[str, str] = {}
    for offset, line in enumerate(match.group(1).splitlines(), start=2):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        pair = _KEY_VALUE.match(line)
        if not pair:
            raise ingest_error(path, f"front matter line is not 'key: value': {line.strip()[:60]!r}", line=offset)
        key, value = pair.group(1).lower(), pair.group(2)
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        if key in FRONT_MATTER_KEYS:
            values[key] = value
            values[f"{key}:line"] = str(offset)
    body = text[match.end():]
    return values, body, text.count("\n", 0, match.end()) + 1


def _title_from_text(text: str, path: Path) -> str:
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line if len(line) <= _MAX_TITLE_CHARS else _title_from_name(path)
    return _title_from_name(path)


def _title_from_name(path: Path) -> str:
    return re.sub(r"[_\-]+", " ", path.stem).strip() or path.name


def _apply_front_matter(meta: dict[str, str], path: Path) -> dict[str, object]:
    out: dict[str, object] = {}
    parsers = {"status": parse_status, "date": parse_date, "url": parse_url}
    for key in FRONT_MATTER_KEYS:
        if key not in meta or not meta[key].strip():
            continue
        try:
            out[key] = parsers[key](meta[key]) if key in parsers else meta[key].strip()
        except ValueError as exc:
            raise ingest_error(path, f"front matter {key}: {exc}", line=int(meta[f"{key}:line"])) from exc
    return out


def _draft(path: Path, title: str, text: str, chunks: list[ChunkDraft], meta: dict[str, object]) -> Draft:
    if not chunks:
        raise ingest_error(path, "no text to index (the file has only front matter or markup)")
    return Draft(
        title=str(meta.get("title") or title),
        text=text.strip(),
        chunks=tuple(chunks),
        url=meta.get("url"),  # type: ignore[arg-type]
        date=meta.get("date"),  # type: ignore[arg-type]
        status=meta.get("status", "published"),  # type: ignore[arg-type]
        superseded_by=meta.get("superseded_by"),  # type: ignore[arg-type]
        tenant=str(meta.get("tenant", "")),
    )


def load_markdown(path: Path, max_chars: int = MAX_CHUNK_CHARS) -> Draft:
    raw, body, _ = parse_front_matter(read_text(path), path)
    meta = _apply_front_matter(raw, path)
    h1 = _H1.search(body)
    title = h1.group(1).strip() if h1 else _title_from_name(path)
    return _draft(path, title, body, chunk_markdown(body, max_chars), meta)


def load_plain(path: Path, max_chars: int = MAX_CHUNK_CHARS) -> Draft:
    text = read_text(path)
    return _draft(path, _title_from_text(text, path), text, chunk_text(text, (), max_chars), {})


class _TitleParser(HTMLParser):
    """<title> and the first <h1>, plus visible text as a fallback when main-text extraction finds none."""

    _SKIP = {"script", "style", "noscript", "template", "head"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title, self.h1 = "", ""
        self.text: list[str] = []
        self._stack: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in ("br", "img", "meta", "link", "hr", "input"):
            self._stack.append(tag)
        if tag in ("p", "div", "li", "h1", "h2", "h3", "h4", "tr", "br", "section", "article"):
            self.text.append("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._stack:
            while self._stack and self._stack.pop() != tag:
                pass

    def handle_data(self, data: str) -> None:
        if "title" in self._stack:
            self.title += data
        if "h1" in self._stack and not self.h1_done:
            self.h1 += data
        if not self._SKIP.intersection(self._stack):
            self.text.append(data)

    @property
    def h1_done(self) -> bool:
        return bool(self.h1.strip()) and "h1" not in self._stack


def load_html(path: Path, max_chars: int = MAX_CHUNK_CHARS) -> Draft:
    """Main text via trafilatura as Markdown (so headings drive chunking); title from <title>, else <h1>."""
    import trafilatura

    html = read_text(path)
    parser = _TitleParser()
    parser.feed(html)
    parser.close()
    main = trafilatura.extract(
        html, output_format="markdown", include_comments=False, include_tables=True, favor_recall=True
    )
    if not main or not main.strip():
        # Very short pages (a single paragraph) fall below trafilatura's boilerplate heuristics.
        main = re.sub(r"\n\s*\n\s*", "\n\n", "".join(parser.text)).strip()
    if not main:
        raise ingest_error(path, "no visible text in the HTML page")
    title = " ".join(parser.title.split()) or " ".join(parser.h1.split()) or _title_from_name(path)
    return _draft(path, title, main, chunk_markdown(main, max_chars), {})


def load_pdf(path: Path, max_chars: int = MAX_CHUNK_CHARS, *, between_pages: Callable[[], None] = lambda: None
             ) -> Draft:
    """Text per page; each chunk's breadcrumb is its page ("Page 3"), so citations point at a page.

    ``between_pages`` runs before each page and may raise to stop (the ingest job's time budget and cancellation):
    a page's compressed content stream can inflate to pypdf's 75 MB limit, ~1 s of parsing for a few bytes of the
    file, so a small PDF of many such pages outlasted any budget checked only around the parse
    (tests/security/test_pdf_bomb.py).
    """
    from pypdf import PdfReader

    if path.stat().st_size == 0:
        raise ingest_error(path, "empty file")

    def unreadable(exc: Exception) -> Exception:  # a damaged PDF can raise almost anything from deep inside pypdf
        return ingest_error(path, f"unreadable PDF: {type(exc).__name__}: {exc}")

    try:
        reader = PdfReader(path)
        encrypted = reader.is_encrypted
        count = 0 if encrypted else len(reader.pages)
        meta_title = "" if encrypted else ((reader.metadata.title if reader.metadata else None) or "")
    except Exception as exc:
        raise unreadable(exc) from exc
    if encrypted:
        raise ingest_error(path, "unreadable PDF: it is encrypted")
    pages = []
    for number in range(count):
        between_pages()
        try:
            pages.append(reader.pages[number].extract_text() or "")
        except Exception as exc:
            raise unreadable(exc) from exc
    chunks: list[ChunkDraft] = []
    for number, page_text in enumerate(pages, start=1):
        chunks.extend(chunk_text(page_text, (f"Page {number}",), max_chars))
    if not chunks:
        raise ingest_error(path, f"unreadable PDF: no extractable text on {len(pages)} page(s) (scanned images?)")
    text = "\n\n".join(p.strip() for p in pages if p.strip())
    title = str(meta_title).strip() or _title_from_text(text, path)
    return _draft(path, title, text, chunks, {})


def load_document(path: Path, max_chars: int = MAX_CHUNK_CHARS, *,
                  between_pages: Callable[[], None] = lambda: None) -> Draft:
    """Dispatch on the file suffix (case-insensitive); ``between_pages``: see :func:`load_pdf`."""
    suffix = path.suffix.lower()
    if suffix in (".md", ".markdown"):
        return load_markdown(path, max_chars)
    if suffix == ".txt":
        return load_plain(path, max_chars)
    if suffix in (".html", ".htm"):
        return load_html(path, max_chars)
    if suffix == ".pdf":
        return load_pdf(path, max_chars, between_pages=between_pages)
    raise ingest_error(path, f"unknown extension {suffix or '(none)'!r}; documents are {', '.join(DOCUMENT_SUFFIXES)}")
