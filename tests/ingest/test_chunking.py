"""Chunking invariants (Hypothesis) and a few worked examples."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from groundsearch.ingest.chunking import MAX_CHUNK_CHARS, chunk_markdown, pack, split_markdown


def squash(text: str) -> str:
    return "".join(text.split())


words = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=0, max_size=30)
prose = st.lists(
    st.one_of(words, st.sampled_from([" ", "\n", "\n\n", ". ", "! ", "\n   \n", "\t", "…", "x" * 90])),
    max_size=80,
).map("".join)


@settings(max_examples=150, deadline=None)
@given(text=prose, max_chars=st.integers(min_value=1, max_value=200))
def test_pack_covers_text_in_order_within_limit_without_empty_chunks(text: str, max_chars: int) -> None:
    chunks = pack(text, max_chars)
    assert all(c and c == c.strip() for c in chunks)
    assert all(len(c) <= max_chars for c in chunks)
    assert squash("".join(chunks)) == squash(text)
    position = 0
    for chunk in chunks:  # every chunk is a verbatim span, in order
        found = text.find(chunk, position)
        assert found >= position
        position = found + len(chunk)


heading = st.builds(
    lambda level, title: "#" * level + " " + title,
    st.integers(min_value=1, max_value=6),
    st.text(alphabet="abcdefgh XYZ", min_size=1, max_size=12).filter(lambda t: t.strip()),
)
md_line = st.one_of(heading, prose.map(lambda t: t.replace("#", "")), st.just("```"), st.just(""))
markdown = st.lists(md_line, max_size=40).map("\n".join)


@settings(max_examples=150, deadline=None)
@given(text=markdown, max_chars=st.integers(min_value=20, max_value=300))
def test_markdown_chunks_cover_text_and_carry_real_heading_paths(text: str, max_chars: int) -> None:
    chunks = chunk_markdown(text, max_chars)
    assert all(c.text and len(c.text) <= max_chars for c in chunks)
    assert squash("".join(c.text for c in chunks)) == squash(text)
    headings = [
        " ".join(m.group(2).split())
        for m in re.finditer(r"^(#{1,6}) (.*)$", text, re.MULTILINE)
        if m.group(2).strip()
    ]
    for chunk in chunks:
        # each breadcrumb entry is a heading of the document, in document order
        position = 0
        for title in chunk.heading_path:
            assert title in headings[position:]
            position = headings.index(title, position) + 1


@settings(max_examples=50, deadline=None)
@given(text=markdown)
def test_breadcrumbs_never_go_backwards(text: str) -> None:
    sections = split_markdown(text)
    assert squash("".join(s.text for s in sections)) == squash(text)


def test_paragraphs_are_packed_and_split_at_sentence_ends() -> None:
    para = "Alpha beta gamma. " * 10  # 180 chars
    text = f"{para}\n\n{para}\n\nShort closing paragraph."
    chunks = pack(text, 200)
    assert chunks[0] == para.strip()
    assert chunks[-1].endswith("Short closing paragraph.")
    long_sentences = "One sentence here. " * 30
    parts = pack(long_sentences, 100)
    assert all(p.endswith(".") for p in parts)


def test_an_unbroken_token_is_cut_hard() -> None:
    blob = "A" * 250
    assert pack(blob, 100) == ["A" * 100, "A" * 100, "A" * 50]


def test_heading_paths_follow_levels_and_ignore_code_fences() -> None:
    text = "# Top\nintro\n## A\nbody a\n```\n# not a heading\n```\n### A1\ndeep\n## B\nbody b\n"
    paths = [c.heading_path for c in chunk_markdown(text)]
    assert paths == [("Top",), ("Top", "A"), ("Top", "A", "A1"), ("Top", "B")]
    assert "# not a heading" in chunk_markdown(text)[1].text


def test_default_limit_is_documented_constant() -> None:
    assert MAX_CHUNK_CHARS == 700
    assert all(len(c) <= 700 for c in pack("word " * 1000))
