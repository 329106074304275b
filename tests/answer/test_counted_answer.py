"""A question that counts a collection by a field it names is answered from the stored fields (session 11).

"which venue has the most papers?" has no sentence anywhere that answers it: the extractive answer said "No
sentence in the matching sources answers this directly" while the papers' own venue fields held the count.
"""

from __future__ import annotations

from groundsearch.answer.audit import audit
from groundsearch.answer.synthesize import synthesize
from groundsearch.types import Intent

from .helpers import SPECS, paper, release

PAPERS = [paper(1, "Dense retrieval at scale", ("Ada Lovelace", "Alan Turing"), "SIGIR", 1),
          paper(2, "Sparse retrieval revisited", ("Ada Lovelace",), "arXiv", 2),
          paper(3, "Agents that plan", ("Grace Hopper",), "arXiv", 3),
          paper(4, "Reranking with LLMs", ("Alan Turing", "Ada Lovelace"), "arXiv", 4)]


def _said(query: str, hits=PAPERS) -> tuple[str, tuple[str, ...]]:
    out = synthesize(Intent(domains=("papers",)), query, [], hits, SPECS)
    report = audit(out.prose, hits)
    assert not report.rejected, report.rejected  # every name and count checks out against the cited rows
    assert len(report.prose.sentences) == 1
    s = report.prose.sentences[0]
    return s.text, s.citations


def test_which_venue_has_the_most_papers_counts_the_stored_venues():
    text, cites = _said("which venue has the most papers?")
    assert text == ("Counting the stored venue of the four papers found, the most frequent is arXiv (three); "
                    "then SIGIR (one).")
    assert cites == ("papers:p2#0", "papers:p1#0")  # a row holding each value named


def test_a_list_field_counts_each_value_once_per_row_and_ties_are_named():
    text, _ = _said("which author wrote the most papers?", PAPERS[:2] + [PAPERS[3], PAPERS[2]])
    assert "the most frequent is Ada Lovelace (three); then Alan Turing (two), Grace Hopper (one)" in text
    text, _ = _said("which author wrote the most papers?", PAPERS[:1])
    assert "each of the two values occurs once: Ada Lovelace, Alan Turing" in text
    text, _ = _said("which author wrote the most papers?", [PAPERS[0], PAPERS[3]])
    assert "Ada Lovelace and Alan Turing share the most (two each)" in text


def test_per_value_counts_of_releases():
    hits = [release(1, "langchain", "1.0", "x", 1), release(2, "vllm", "0.9", "y", 2),
            release(3, "langchain", "1.1", "z", 3)]
    text, _ = _said("how many releases per product", hits)
    assert text.startswith("Counting the stored product of the three releases found, the most frequent is "
                           "langchain (two); then vllm (one)")


def test_a_question_naming_no_field_or_no_collection_is_answered_as_before():
    for q in ("which venue has the most seats in london", "what did Ada Lovelace write about dense retrieval"):
        out = synthesize(Intent(), q, [], PAPERS, SPECS)
        assert not out.prose.sentences[0].text.startswith("Counting"), q


def test_values_that_each_occur_once_are_listed_not_ranked():
    hits = [release(1, "langchain", "1.0", "x", 1), release(2, "langchain", "1.1", "y", 2)]
    text, _ = _said("which product has the most releases", hits)
    assert "the most frequent is langchain (two)" in text
    text, _ = _said("how many releases per version", hits)
    assert text == ("Counting the stored version of the two releases found, each of the two values occurs once: "
                    "1.0, 1.1.")
