"""Each loader on small fixtures, and every malformed case with its specific error."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from groundsearch.errors import IngestError
from groundsearch.ingest.documents import load_document
from groundsearch.ingest.records import load_records
from groundsearch.types import CollectionSpec


# ------------------------------------------------------------------------------------------- documents


def test_markdown_front_matter_title_and_heading_breadcrumbs(fixtures: Path) -> None:
    draft = load_document(fixtures / "docs" / "guide.md")
    assert draft.title == "Search Guide"
    assert draft.date == dt.date(2026, 3, 14) and draft.url == "https://example.org/guide"
    assert draft.status == "published"
    assert "tags" not in draft.text and "ignored-by-groundsearch" not in draft.text
    paths = [c.heading_path for c in draft.chunks]
    assert paths == [
        ("Search Guide",),
        ("Search Guide", "Installing"),
        ("Search Guide", "Querying"),
        ("Search Guide", "Querying", "Filters"),
        ("Search Guide", "Querying", "Explain"),
    ]
    assert "# this line is a shell comment" in draft.chunks[1].text


def test_markdown_draft_status_and_superseded_by(fixtures: Path) -> None:
    draft = load_document(fixtures / "docs" / "sub" / "draft.md")
    assert (draft.status, draft.superseded_by, draft.title) == ("draft", "docs:guide", "Old Draft")


def test_plain_text_title_is_the_first_line(fixtures: Path) -> None:
    draft = load_document(fixtures / "docs" / "notes.txt")
    assert draft.title == "Meeting notes"
    assert "Tantivy" in draft.chunks[0].text and draft.chunks[0].heading_path == ()


def test_html_main_text_without_boilerplate_or_scripts(fixtures: Path) -> None:
    draft = load_document(fixtures / "docs" / "page.html")
    assert draft.title == "Release Announcement"
    text = " ".join(c.text for c in draft.chunks)
    assert "Reciprocal Rank Fusion" in text and "Tantivy keyword index" in text
    assert "should not be indexed" not in text and "color:red" not in text
    assert "All rights reserved" not in text  # boilerplate footer dropped by main-text extraction
    assert [c.heading_path for c in draft.chunks] == [
        ("Groundsearch 1.0 is out",), ("Groundsearch 1.0 is out", "What changed")
    ]


def test_html_without_title_uses_h1(tmp_path: Path) -> None:
    page = tmp_path / "x.html"
    page.write_text("<html><body><h1>Only Heading</h1><p>Some body text here.</p></body></html>")
    draft = load_document(page)
    assert draft.title == "Only Heading" and "Some body text here." in draft.text


def test_pdf_text_per_page(fixtures: Path) -> None:
    draft = load_document(fixtures / "docs" / "report.pdf")
    assert [c.heading_path for c in draft.chunks] == [("Page 1",), ("Page 2",)]
    assert "1.4 ms" in draft.chunks[0].text and "Reciprocal Rank Fusion" in draft.chunks[1].text
    assert draft.title == "Quarterly Search Report"


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("bad.md", b"# Title\nok line\n\xff\xfe broken\n", "line 3: invalid UTF-8"),
        ("empty.md", b"  \n\n", "empty file"),
        ("empty.txt", b"", "empty file"),
        ("only-front.md", b"---\ntitle: X\n---\n\n", "no text to index"),
        ("bad-date.md", b"---\ntitle: X\ndate: 2026-13-45\n---\nbody\n", "line 3: front matter date: bad date"),
        ("bad-status.md", b"---\nstatus: live\n---\nbody\n", "line 2: front matter status: bad status 'live'"),
        ("bad-url.md", b"---\nurl: not a url\n---\nbody\n", "front matter url: bad url"),
        ("bad-front.md", b"---\njust words\n---\nbody\n", "line 2: front matter line is not 'key: value'"),
        ("broken.pdf", b"%PDF-1.4\nthis is not really a pdf", "unreadable PDF"),
        ("zero.pdf", b"", "empty file"),
        ("notes.rtf", b"{\\rtf1 hi}", "unknown extension '.rtf'"),
    ],
)
def test_malformed_documents_get_specific_errors(tmp_path: Path, name: str, content: bytes, message: str) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(IngestError) as info:
        load_document(path)
    assert str(path) in str(info.value)
    assert message in str(info.value)


def test_pdf_without_text_is_reported(tmp_path: Path) -> None:
    from tests.ingest.fixtures.make_pdf import build

    path = tmp_path / "blank.pdf"
    path.write_bytes(build([[]]))
    with pytest.raises(IngestError, match="no extractable text on 1 page"):
        load_document(path)


# --------------------------------------------------------------------------------------------- records


def test_jsonl_records_are_typed(fixtures: Path, specs: dict[str, CollectionSpec]) -> None:
    drafts = load_records(fixtures / "records" / "releases.jsonl", specs["releases"])
    assert [d.title for d in drafts] == ["Groundsearch 1.0", "Groundsearch 1.1", "OpenAI Agents 0.2"]
    first, second, third = drafts
    assert first.fields["tags"] == ("search", "rrf") and first.fields["downloads"] == 1200
    assert first.date == dt.date(2026, 3, 1) and first.url == "https://example.org/r1"
    assert second.date == dt.date(2026, 5, 1) and second.fields["downloads"] == 3400
    assert second.fields["tags"] == ("postgres", "pgvector") and second.superseded_by is None
    assert third.status == "draft" and third.key == "r3" and third.key_is_id
    assert len(first.chunks) == 1 and first.chunks[0].text.startswith("Groundsearch 1.0\n\nFirst stable release")
    assert "groundsearch" in first.entities[0] and "1.0" not in first.entities[0]


def test_csv_records_with_quotes_lists_and_blanks(fixtures: Path, specs: dict[str, CollectionSpec]) -> None:
    first, second = load_records(fixtures / "records" / "releases.csv", specs["releases"])
    assert first.fields["summary"] == 'Block-max WAND, faster "phrase" queries'
    assert first.fields["tags"] == ("search", "rust") and first.fields["downloads"] == 500
    assert first.fields["version"] == "0.27"
    assert "url" not in second.fields and "downloads" not in second.fields and second.date == dt.date(2026, 2, 1)


def test_json_array_records_without_an_id_field(fixtures: Path, specs: dict[str, CollectionSpec]) -> None:
    dpr, bm25 = load_records(fixtures / "records" / "papers.json", specs["papers"])
    assert dpr.title == "Dense Passage Retrieval" and dpr.key == "" and not dpr.key_is_id
    assert dpr.fields["authors"] == ("Vladimir Karpukhin", "Barlas Oguz") and dpr.fields["citations"] == 3000.0
    assert bm25.fields["authors"] == ("Stephen Robertson",) and bm25.fields["year"] == 2009
    assert "vladimir karpukhin" in dpr.entities[0] and "emnlp" in dpr.entities[0]


RELEASE_ROW = '{"id": "x", "product": "P", "version": "1", "summary": "s"'


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("a.jsonl", RELEASE_ROW + '}\n{"id": "y", oops}\n', "line 2: bad JSON line"),
        ("b.jsonl", '{"product": "P", "version": "1"}\n', "line 1: missing required field 'id'"),
        ("c.jsonl", '{"id": "x", "version": "1"}\n', "line 1: missing required field 'product'"),
        ("d.jsonl", RELEASE_ROW + ', "date": "2026-02-30"}\n', "line 1: bad date '2026-02-30'"),
        ("e.jsonl", RELEASE_ROW + ', "date": "March 2026"}\n', "expected YYYY-MM-DD or YYYY-MM"),
        ("f.jsonl", RELEASE_ROW + ', "downloads": "many"}\n', "field 'downloads' is int but got 'many'"),
        ("g.jsonl", RELEASE_ROW + ', "url": "ftp://x"}\n', "bad url 'ftp://x'"),
        ("h.jsonl", RELEASE_ROW + ', "status": "gone"}\n', "bad status 'gone'"),
        ("i.jsonl", '[1, 2]\n', "line 1: a record must be an object"),
        ("j.jsonl", "\n\n", "empty file"),
        ("k.json", '[{"id": "x",}]', "line 1: invalid JSON"),
        ("l.json", "[]", "no records in the file"),
        ("m.csv", "id,product,version\nx,P,1,extra\n", "line 2, row 1: row has 4 cells, header has 3"),
        ("n.csv", "id,product,product\nx,P,Q\n", "CSV header repeats column(s) ['product']"),
        ("o.csv", "id,product,version,date\nx,P,1,2026/01/01\n", "row 1: bad date '2026/01/01'"),
        ("p.jsonl", RELEASE_ROW + ', "tags": {"a": 1}}\n', "bad list"),
    ],
)
def test_malformed_records_get_specific_errors(
    tmp_path: Path, specs: dict[str, CollectionSpec], name: str, content: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(IngestError) as info:
        load_records(path, specs["releases"])
    assert str(path) in str(info.value)
    assert message in str(info.value)


def test_invalid_utf8_in_records_names_the_line(tmp_path: Path, specs: dict[str, CollectionSpec]) -> None:
    path = tmp_path / "bad.csv"
    path.write_bytes(b"id,product,version\nx,P,1\ny,\xc3\x28,2\n")
    with pytest.raises(IngestError, match="line 3: invalid UTF-8"):
        load_records(path, specs["releases"])
