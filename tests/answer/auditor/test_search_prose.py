"""The layered auditor inside the search-prose audit: narrated sentences get L1 fixes and L2 rules; extractive
sentences (stored text) are checked as before and never rewritten."""

from groundsearch.answer.audit import UNVERIFIED_MARKER, audit
from groundsearch.types import Prose, Sentence

from ..helpers import doc, release

HITS = (release(1, "tantivy", "0.22", "Tantivy 0.22 cut indexing time by 30% for Quickwit users.", 3),
        release(2, "lancedb", "0.9", "LanceDB 0.9 adds hybrid search.", 4),
        doc(3, 'The maintainers wrote: "keyword search stays the backbone of retrieval".'))


def _one(text: str, cites: tuple[str, ...], mode: str = "llm") -> Sentence:
    return audit(Prose(sentences=(Sentence(text=text, citations=cites),), mode=mode), HITS).prose.sentences[0]


def test_a_metric_cited_from_the_wrong_source_is_marked():
    # 30% and LanceDB are both in the evidence, but not in one source: the figure is Tantivy's
    out = _one("LanceDB cut indexing time by 30%.", ("releases:r1#0", "releases:r2#0"))
    assert out.text == UNVERIFIED_MARKER and not out.verified
    assert _one("Tantivy cut indexing time by 30%.", ("releases:r1#0",)).verified


def test_an_attributed_quote_must_be_the_source_words():
    assert _one('The maintainers wrote: "keyword search stays the backbone of retrieval".',
                ("docs:guide#3",)).verified
    bad = _one('The maintainers wrote: "retrieval without keyword search is obsolete".', ("docs:guide#3",))
    assert bad.text == UNVERIFIED_MARKER


def test_a_narrated_link_off_the_sources_is_stripped_not_the_sentence():
    out = _one("Tantivy 0.22 is described in [the release notes](https://made-up.example/tantivy).",
               ("releases:r1#0",))
    assert out.verified and out.text == "Tantivy 0.22 is described in the release notes."
    kept = _one("Tantivy 0.22 has [release notes](https://pypi.org/project/tantivy/0.22/).", ("releases:r1#0",))
    assert kept.text == "Tantivy 0.22 has [release notes](https://pypi.org/project/tantivy/0.22/)."


def test_extractive_sentences_are_not_rewritten():
    text = "Tantivy 0.22 cut indexing time by 30% for Quickwit users ."
    assert _one(text, ("releases:r1#0",), mode="extractive").text == text
