"""Prose: extractive by default, format-aware, LLM narration with fallback; the audit holds it to its citations."""

from __future__ import annotations

from groundsearch.answer.audit import UNVERIFIED_MARKER, audit, claims
from groundsearch.answer.normalize import normalize
from groundsearch.answer.synthesize import SHORT_WORDS, parse_narration, synthesize
from groundsearch.errors import LLMError
from groundsearch.models.fake import ScriptedLLM
from groundsearch.types import Intent, Prose, Sentence

from .helpers import SPECS, doc, paper, release

DOC_HITS = (
    doc(0, "# Install\nInstall groundsearch with pip into a virtualenv. It needs Python 3.11 or newer on Linux.",
        entities=("python",)),
    doc(1, "The keyword leg uses BM25 through tantivy, and the vector leg uses MiniLM embeddings via ONNX.",
        entities=("bm25", "minilm", "onnx")),
    doc(2, "Unrelated words about the weather in spring and flowers that bloom early in the garden.", ()),
)
RECORD_HITS = (
    release(1, "ragkit", "1.2.0", "RAG toolkit for LLM agents", 10, ("rag", "llm")),
    paper(2, "Dense Retrieval for RAG", ("Ada Lovelace",), "ICLR 2025", 3, ("rag",)),
    release(3, "agentx", "0.9.1", "Agents with MCP tools and LLM routing", 11, ("mcp", "llm")),
)


def test_extractive_full_answer_cites_each_sentence_verbatim() -> None:
    s = synthesize(Intent(), "how do I install groundsearch with pip", [], DOC_HITS, SPECS)
    assert s.prose.mode == "extractive" and s.prose.sentences
    texts = {h.id: h.chunk.text for h in DOC_HITS}
    for sentence in s.prose.sentences:
        assert len(sentence.citations) == 1 and sentence.text in " ".join(texts[sentence.citations[0]].split())
    assert s.prose.sentences[0].citations == ("docs:guide#0",)
    assert not any(h.startswith("#") for h in s.prose.text.split())  # headings are not sentences
    assert audit(s.prose, DOC_HITS).failures == ()


def test_short_paragraph_when_tables_carry_the_content_and_no_rows_in_prose() -> None:
    results = normalize(Intent(format="table"), RECORD_HITS, SPECS, collections=("releases", "papers"))
    s = synthesize(Intent(format="table"), "latest RAG releases and papers in a table", results, RECORD_HITS, SPECS)
    text = s.prose.text
    assert 0 < len(text.split()) <= SHORT_WORDS
    for table in results:
        for row in table.rows:
            for value in row:
                if isinstance(value, str) and len(value) > 4:
                    assert value not in text, f"table cell {value!r} leaked into the prose"
    report = audit(s.prose, RECORD_HITS)
    assert report.failures == () and all(x.verified for x in report.prose.sentences)


def test_a_question_for_one_value_read_as_a_shape_is_still_answered() -> None:
    # the format step may read (or a hint may ask for) a table beside a question that asks who or when: the
    # table's paragraph counts rows and never names the person, so the question's own answer comes first
    hits = (*RECORD_HITS, doc(4, "The ragkit toolkit was created by Grace Hopper at Example Labs in Boston.",
                              entities=("ragkit",)))
    results = normalize(Intent(format="table"), hits, SPECS, collections=("releases", "papers"))
    assert any(r.kind == "table" for r in results)
    s = synthesize(Intent(format="table"), "Who created the ragkit toolkit?", results, hits, SPECS)
    texts = [x.text for x in s.prose.sentences]
    assert any("Grace Hopper" in t for t in texts), texts
    assert any(t.startswith("The releases table shows ") for t in texts), texts  # the shape's paragraph stays
    assert audit(s.prose, hits).failures == ()
    # a request for the rows themselves keeps the one short paragraph
    plain = synthesize(Intent(format="table"), "ragkit releases in a table", results, hits, SPECS)
    assert not any("Grace Hopper" in x.text for x in plain.prose.sentences)
    assert len(plain.prose.text.split()) <= SHORT_WORDS


def test_llm_narration_maps_handles_to_ids_and_is_audited() -> None:
    llm = ScriptedLLM(["Install groundsearch with pip [e1]. It needs Python 3.11 [e1]. MiniLM runs via ONNX [e2]."])
    s = synthesize(Intent(), "install", [], DOC_HITS, SPECS, llm=llm, load_prompt=lambda name: f"prompt:{name}")
    assert s.prose.mode == "llm" and s.degraded == ()
    assert [x.citations for x in s.prose.sentences] == [("docs:guide#0",), ("docs:guide#0",), ("docs:guide#1",)]
    call = llm.calls[0]
    assert call["messages"][0].content == "prompt:synthesis_default"
    assert "<evidence>" in call["messages"][1].content and call["max_tokens"] <= 512
    assert audit(s.prose, DOC_HITS).failures == ()


def test_llm_failure_falls_back_to_extractive_with_a_note() -> None:
    for failure in (LLMError("timed out", details={"kind": "timeout"}), "", RuntimeError("boom")):
        llm = ScriptedLLM([failure])
        s = synthesize(Intent(), "install with pip", [], DOC_HITS, SPECS, llm=llm, load_prompt=lambda n: "p")
        assert s.prose.mode == "extractive" and s.prose.sentences
        assert s.degraded and "extractive" in s.degraded[0]
    cut = ScriptedLLM(["Install with pip [e1"], finish_reason="length")
    s = synthesize(Intent(), "install", [], DOC_HITS, SPECS, llm=cut, load_prompt=lambda n: "p")
    assert s.prose.mode == "extractive" and "cut off" in s.degraded[0]


def test_narration_cut_at_max_tokens_keeps_its_complete_sentences_and_says_so() -> None:
    cut = ScriptedLLM(["Install groundsearch with pip [e1]. It needs Python 3.11 [e1]. MiniLM runs via"],
                      finish_reason="length")
    s = synthesize(Intent(), "install", [], DOC_HITS, SPECS, llm=cut, load_prompt=lambda n: "p")
    assert s.prose.mode == "llm"
    assert [x.text for x in s.prose.sentences] == ["Install groundsearch with pip.", "It needs Python 3.11."]
    assert [x.citations for x in s.prose.sentences] == [("docs:guide#0",), ("docs:guide#0",)]
    assert len(s.degraded) == 1 and "max_tokens" in s.degraded[0] and "dropped" in s.degraded[0]


def test_markdown_the_model_adds_is_not_taken_for_sentences() -> None:
    reply = ("## Summary\n| product | version |\n|---------|---------|\n| ragkit | 1.2.0 |\n```\ncode\n```\n"
             "- Install groundsearch with pip [e1].\n2. It needs Python 3.11 [e1].\n|\n--- [e2]")
    prose = parse_narration(reply, ["docs:guide#0", "docs:guide#1"])
    assert [s.text for s in prose.sentences] == ["Install groundsearch with pip.", "It needs Python 3.11."]
    assert [s.citations for s in prose.sentences] == [("docs:guide#0",), ("docs:guide#0",)]


def test_table_format_uses_the_tables_prompt_and_caps_words() -> None:
    results = normalize(Intent(format="table"), RECORD_HITS, SPECS, collections=("releases", "papers"))
    long = " ".join(["RAG toolkit for LLM agents [e1]."] * 40)
    llm = ScriptedLLM([long])
    s = synthesize(Intent(format="table"), "q", results, RECORD_HITS, SPECS, llm=llm, load_prompt=lambda n: n)
    assert llm.calls[0]["messages"][0].content == "synthesis_tables"
    assert len(s.prose.text.split()) <= SHORT_WORDS


def test_audit_replaces_unsupported_and_unknown_citations_visibly() -> None:
    prose = Prose(sentences=(
        Sentence(text="Install groundsearch with pip.", citations=("docs:guide#0",)),
        Sentence(text="It needs Python 3.12 on Windows.", citations=("docs:guide#0",)),  # wrong number
        Sentence(text="See https://example.com/setup for details.", citations=("docs:guide#0",)),  # invented URL
        Sentence(text="Install with pip.", citations=("docs:nope#9",)),  # unknown id
        Sentence(text="OpenAI wrote it.", citations=()),  # a name with no citation
        Sentence(text="The evidence does not answer this.", citations=()),  # nothing to check
    ), mode="llm")
    report = audit(prose, DOC_HITS)
    verified = [s.verified for s in report.prose.sentences]
    assert verified == [True, False, False, False, False, True]
    assert len(report.prose.sentences) == 6  # never silently dropped
    assert report.prose.sentences[1].text == UNVERIFIED_MARKER
    assert "3.12" in report.failures[0] and "unknown ids" in report.failures[2]


def test_claims_finds_numbers_urls_and_names() -> None:
    found = claims("Qwen2.5 from Alibaba Cloud scored 71.3 on MMLU, see https://qwenlm.github.io/blog.")
    assert "https://qwenlm.github.io/blog" in found and "71.3" in found
    assert {"qwen2.5", "alibaba cloud", "mmlu"} <= set(found)


def test_parse_narration_keeps_unknown_handles_for_the_audit() -> None:
    prose = parse_narration("Alpha beta [e1][e3]. Gamma [e9].", ["a", "b", "c"])
    assert [s.citations for s in prose.sentences] == [("a", "c"), ("e9",)]
    assert prose.sentences[0].text == "Alpha beta."


def test_narration_that_repeats_table_rows_is_left_out_and_said() -> None:
    results = normalize(Intent(format="table"), RECORD_HITS, SPECS, collections=("releases", "papers"))
    llm = ScriptedLLM(["Recent releases focus on RAG and LLM agents [e1][e3]. "
                       "ragkit 1.2.0 is a RAG toolkit for LLM agents [e1]."])
    s = synthesize(Intent(format="table"), "q", results, RECORD_HITS, SPECS, llm=llm, load_prompt=lambda n: n)
    assert [x.text for x in s.prose.sentences] == ["Recent releases focus on RAG and LLM agents."]
    assert s.degraded and "repeated table rows" in s.degraded[0]
