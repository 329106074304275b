"""Query-focused extractive answers: prose only, typed answer lines, conflicts, abstention, cached vectors."""

from __future__ import annotations

import pytest

from groundsearch.answer.answer_type import answer_spans, choices, expected_type
from groundsearch.answer.audit import audit
from groundsearch.answer.extractive import ANSWER_PREFIX, CONFLICT_PREFIX, NO_ANSWER, answer
from groundsearch.answer.sentence_vectors import SentenceVectors, sentence_vectors_for
from groundsearch.answer.sentences import is_prose, quotable, split_sentences
from groundsearch.models.fake import HashEmbedder
from groundsearch.types import Chunk, EvidenceHit, Item, LegScore

from .helpers import doc, paper


def snippet(n: int, text: str, cosine: float = 0.6) -> EvidenceHit:
    item = Item(id=f"news:s{n}", collection="news", title=f"Story {n}", text=text)
    chunk = Chunk(id=f"news:s{n}#0", item_id=item.id, position=0, text=text)
    return EvidenceHit(chunk=chunk, item=item, score=1 / (60 + n), legs=(LegScore("vector", n + 1, cosine),))


# ---- what counts as a sentence ------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models",  # a bare title
    "## How fusion works",
    "| `ingest PATH` | ingest files and folders into the store |",
    'groundsearch search "vector index" -f product=usearch --json',
    "pip install groundsearch --upgrade",
    "run_search(request) -> SearchResponse is the one orchestrator entry point.",
    "GROUNDSEARCH_DATA_DIR=./data groundsearch serve --port 8000",
    "Agent-Based Infrastructure Core - Runtime and CLI",
])
def test_titles_headings_table_rows_code_and_cli_lines_are_not_prose(text: str) -> None:
    assert not any(is_prose(s) for s in split_sentences(text)) or not split_sentences(text)


def test_real_sentences_are_prose_even_wrapped_or_with_inline_markup() -> None:
    text = ("Retrieval runs a BM25 leg and a dense leg concurrently, and fuses them with\n"
            "Reciprocal Rank Fusion (k = 60).\n\n```bash\ngroundsearch ingest docs/\n```\n\n"
            "It runs **embedded by default**: one data directory and `tantivy` for keywords.")
    sentences = split_sentences(text)
    assert sentences == [
        "Retrieval runs a BM25 leg and a dense leg concurrently, and fuses them with Reciprocal Rank Fusion (k = 60).",
        "It runs embedded by default: one data directory and tantivy for keywords.",
    ]
    assert all(is_prose(s) for s in sentences)


def test_abbreviations_do_not_end_sentences_and_a_repeated_title_is_not_a_sentence() -> None:
    assert split_sentences("The U.S. Open was won by Bianca Andreescu in 2019. She beat Serena Williams.") == [
        "The U.S. Open was won by Bianca Andreescu in 2019.", "She beat Serena Williams."]
    assert not is_prose("Dense retrieval for open-domain questions.", not_equal_to=("Dense retrieval for open-domain questions",))


def test_a_full_stop_inside_a_bracket_the_next_piece_closes_ends_no_sentence() -> None:
    # MuSiQue's "Han dynasty" passage was quoted as "... the nomadic Xiongnu chieftain Modu Chanyu (r."
    text = ("To the north of China proper, the nomadic Xiongnu chieftain Modu Chanyu (r. 209–174 BC) conquered "
            "various tribes. Thomas Cabot (b. 1790, d. 1850) was the eldest of six brothers.")
    assert split_sentences(text) == [
        "To the north of China proper, the nomadic Xiongnu chieftain Modu Chanyu (r. 209–174 BC) conquered various tribes.",
        "Thomas Cabot (b. 1790, d. 1850) was the eldest of six brothers."]
    # a bracket the next piece does not close joins nothing: a stray "(" cannot run sentences together
    stray = "A stray bracket ( opens here in this sentence. Then another sentence follows it. And a third one too."
    assert split_sentences(stray) == ["A stray bracket ( opens here in this sentence.", "Then another sentence follows it.",
                                      "And a third one too."]


# ---- answer types -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("question", "kind"), [
    ("Who acquired Instagram?", "person"),
    ("When was GPT-3 released?", "date"),
    ("What is the date of the 2021 NBA Draft?", "date"),
    ("How many Publix stores are in North Carolina?", "number"),
    ("Where was Super Bowl LV played?", "place"),
    ("Which country won the most medals in 2018?", "place"),
    ("Is BM25 a lexical model?", "yesno"),
    ("compare LangChain vs LlamaIndex releases", "choice"),
    ("How does HippoRAG use Personalized PageRank?", "other"),
    ("What was Tesla's revenue in Q1 2021?", "number"),
])
def test_expected_answer_type(question: str, kind: str) -> None:
    assert expected_type(question) == kind


def test_answer_spans_are_of_the_asked_type_and_not_in_the_question() -> None:
    s = "The game was played on February 7, 2021, at Raymond James Stadium in Tampa, Florida."
    assert answer_spans(s, "date", "When was Super Bowl LV played?") == ["February 7, 2021"]
    assert "Tampa, Florida" in answer_spans(s, "place", "Where was Super Bowl LV played?")
    assert answer_spans("Facebook bought Instagram in 2012 for $1 billion.", "person", "Who acquired Instagram?") == [
        "Facebook"]
    assert answer_spans("Google paid $1.65 billion in 2006.", "number", "How much did Google pay?") == ["$1.65 billion"]
    assert choices("compare LangChain vs LlamaIndex releases") == ["LangChain", "LlamaIndex"]


# ---- answers ------------------------------------------------------------------------------------------------


def test_a_typed_question_opens_with_a_cited_one_line_answer() -> None:
    hits = (snippet(0, "Facebook announced that it has reached an agreement to acquire Instagram in April 2012."),
            snippet(1, "Facebook acquired Instagram for $1 billion, and the photo app kept its own brand."),
            snippet(2, "Instagram is a photo and video sharing app with filters and stories."))
    prose = answer("Who acquired Instagram?", hits, SentenceVectors(HashEmbedder()))
    first = prose.sentences[0]
    assert first.text == f"{ANSWER_PREFIX}Facebook."
    assert first.citations and set(first.citations) <= {"news:s0#0", "news:s1#0"}
    assert all(s.citations for s in prose.sentences)
    assert audit(prose, hits).failures == ()


def test_two_sources_giving_different_values_for_one_claim_are_flagged_not_resolved() -> None:
    hits = (snippet(0, "Super Bowl LV was played on February 7, 2021, at Raymond James Stadium in Tampa, Florida."),
            snippet(1, "Super Bowl LV was played on February 7, 2021, at Raymond James Stadium in Glendale, Arizona."))
    prose = answer("Where was the Super Bowl 2021 played?", hits, SentenceVectors(HashEmbedder()))
    assert prose.sentences[0].text.startswith(CONFLICT_PREFIX)
    assert "Tampa, Florida" in prose.sentences[0].text and "Glendale, Arizona" in prose.sentences[0].text
    assert set(prose.sentences[0].citations) == {"news:s0#0", "news:s1#0"}
    assert not any(s.text.startswith(ANSWER_PREFIX) for s in prose.sentences)
    assert audit(prose, hits).failures == ()


def test_title_only_records_get_a_plain_no_answer_that_lists_the_matches() -> None:
    hits = (paper(1, "HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models", ("B. Gutierrez",),
                  "arXiv", 5),
            paper(2, "Lost in the Middle: How Language Models Use Long Contexts", ("N. Liu",), "TACL", 7))
    prose = answer("How does HippoRAG use Personalized PageRank?", hits, None)
    assert len(prose.sentences) == 1
    only = prose.sentences[0]
    assert only.text.startswith(NO_ANSWER) and "“HippoRAG: Neurobiologically" in only.text
    assert set(only.citations) == {"papers:p1#0", "papers:p2#0"}
    assert audit(prose, hits).failures == ()


def test_a_page_that_mentions_the_topic_but_not_the_answer_says_so() -> None:
    hits = (snippet(0, "Tickets for the 2021 Wimbledon final went on sale in March, and queues formed early."),
            snippet(1, "Wimbledon is the oldest tennis tournament in the world, played on grass since 1877."))
    prose = answer("Who won the women's singles Wimbledon in 2021?", hits, SentenceVectors(HashEmbedder()))
    assert prose.sentences[0].text.startswith(NO_ANSWER)
    assert not any(s.text.startswith(ANSWER_PREFIX) for s in prose.sentences)


def test_a_name_near_the_topic_but_not_the_relation_is_not_stated_as_the_answer() -> None:
    # negatives-only RGB pages look like this: the question's names everywhere, nobody said to have won
    hits = (snippet(0, "The 2017 French presidential election saw a disinformation campaign spread on Twitter."),
            snippet(1, "Voters in France went to the polls on Sunday in the first round of the presidential election."),
            snippet(2, "Analysts at Oxford studied how bots shaped the 2017 French presidential election debate."))
    prose = answer("Who won the French Presidential Election 2017?", hits, SentenceVectors(HashEmbedder()))
    assert prose.sentences[0].text.startswith(NO_ANSWER)
    assert not any(s.text.startswith(ANSWER_PREFIX) for s in prose.sentences)


def test_a_bare_year_does_not_answer_when_a_date_is_asked_but_is_shown() -> None:
    hits = (snippet(0, "Generative Pre-trained Transformer 3 (GPT-3) is a language model released by OpenAI in 2020."),
            snippet(1, "OpenAI released GPT-3 to a limited beta of developers in 2020."))
    prose = answer("When was GPT-3 released?", hits, SentenceVectors(HashEmbedder()))
    assert prose.sentences[0].text.startswith(NO_ANSWER) and "the year, 2020" in prose.sentences[0].text
    assert "released by OpenAI in 2020" in prose.text
    asked_year = answer("What year was GPT-3 released?", hits, SentenceVectors(HashEmbedder()))
    assert asked_year.sentences[0].text == f"{ANSWER_PREFIX}2020."


def test_a_second_hop_question_gets_no_one_line_answer_from_its_bridge() -> None:
    # the page names the first hop (the association) many times; it is not the answer (its first president)
    hits = tuple(snippet(i, f"The Journal of Psychotherapy Integration is published by the American Psychological "
                            f"Association, report {i} says.") for i in range(3))
    question = "Who was the first president of the association which published Journal of Psychotherapy Integration?"
    prose = answer(question, hits, SentenceVectors(HashEmbedder()))
    assert not any(s.text.startswith(ANSWER_PREFIX) for s in prose.sentences)
    assert "American Psychological Association" in prose.text


def test_a_two_hop_question_quotes_the_sentence_that_continues_from_the_bridge(monkeypatch: pytest.MonkeyPatch) -> None:
    hits = (snippet(0, "Gisvi is a Portuguese footballer who was born in Windhoek and played as a forward."),
            *(snippet(i, f"The most popular hotel in {city} is a grand old building near the city centre.")
              for i, city in enumerate(("Toronto", "Galveston", "Lisbon", "Porto", "Madrid", "Boston", "Oslo"), start=1)),
            snippet(8, "Namibia has a number of notable hotels in Windhoek such as Windhoek Country Club Resort."))
    question = "What is the most popular hotel in the city where Gisvi was born?"
    assert "Windhoek Country Club Resort" in answer(question, hits, SentenceVectors(HashEmbedder())).text
    monkeypatch.setattr("groundsearch.answer.extractive.CHAIN_SEEDS", 0)
    assert "Windhoek Country Club Resort" not in answer(question, hits, SentenceVectors(HashEmbedder())).text


def test_a_comparison_draws_on_both_compared_names() -> None:
    hits = (doc(0, "LangChain composes LLM calls into chains and agents with many integrations."),
            doc(1, "LangChain also ships LangGraph for stateful agents built as graphs."),
            doc(2, "LlamaIndex focuses on indexing documents and querying them with retrieval pipelines."))
    prose = answer("compare LangChain vs LlamaIndex", hits, SentenceVectors(HashEmbedder()))
    text = prose.text
    assert "LangChain" in text and "LlamaIndex" in text


def test_sentences_come_from_the_whole_page_not_only_its_top_eight() -> None:
    filler = tuple(snippet(i, f"Weather report number {i} says the spring was mild and wet in the north.")
                   for i in range(12))
    late = snippet(12, "Simona Halep won the women's singles title at Wimbledon in 2019, beating Serena Williams.")
    prose = answer("Who won the women's singles Wimbledon in 2019?", (*filler, late), SentenceVectors(HashEmbedder()))
    # the 13th result's sentence is quoted; a lone source outside the top five is not stated as the answer
    assert late.chunk.text in [s.text for s in prose.sentences]
    assert not prose.sentences[0].text.startswith(ANSWER_PREFIX)


# ---- the sentence-vector cache -------------------------------------------------------------------------------


class CountingEmbedder(HashEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.passages = 0

    def embed_passages(self, texts):  # type: ignore[no-untyped-def]
        self.passages += len(texts)
        return super().embed_passages(texts)


def test_sentence_vectors_are_computed_once_and_evicted_least_recently_used() -> None:
    embedder = CountingEmbedder()
    cache = SentenceVectors(embedder, size=2)
    first = cache.sentences([("c1", "alpha beta"), ("c2", "gamma delta")])
    again = cache.sentences([("c2", "gamma delta"), ("c1", "alpha beta")])
    assert embedder.passages == 2 and (again[0] == first[1]).all() and (again[1] == first[0]).all()
    cache.sentences([("c3", "epsilon")])  # evicts c2 ("c1" was used last)
    cache.sentences([("c1", "alpha beta")])
    assert embedder.passages == 3
    cache.sentences([("c2", "gamma delta")])
    assert embedder.passages == 4 and len(cache) == 2
    # the same sentence text under another chunk key (or a changed chunk) is its own entry
    cache.sentences([("c9", "gamma delta")])
    assert embedder.passages == 5


def test_one_cache_per_retriever_and_a_new_one_for_a_new_embedder() -> None:
    class Owner:
        def __init__(self) -> None:
            self.embedder = HashEmbedder()

    owner = Owner()
    assert sentence_vectors_for(owner) is sentence_vectors_for(owner)
    before = sentence_vectors_for(owner)
    owner.embedder = HashEmbedder(dim=32)
    assert sentence_vectors_for(owner) is not before
    assert sentence_vectors_for(Owner()) is not sentence_vectors_for(owner)


def test_rival_values_on_the_page_lower_the_confidence_in_the_best_one() -> None:
    # a negatives-only page offers a different name in every snippet; an answering page agrees on one
    from types import SimpleNamespace

    from groundsearch.answer.answerable import confident, support, vote_margin

    def held(text: str, span: str, score: float = 1.0) -> SimpleNamespace:
        return SimpleNamespace(hit=None, text=text, spans=(span,), score=score, sim=0.6, cover=0.6)

    q = "Who directed the film Nomadland?"
    agreeing = [held("Chloe Zhao directed the film Nomadland.", "Chloe Zhao"),
                held("Nomadland was directed by Chloe Zhao.", "Chloe Zhao")]
    scattered = [held("Chloe Zhao directed the film Nomadland.", "Chloe Zhao"),
                 held("Frances McDormand directed praise at the film Nomadland.", "Frances McDormand"),
                 held("Joshua James Richards directed the photography of Nomadland.", "Joshua James Richards", 0.9)]
    assert vote_margin(agreeing, q) == 1.0
    assert vote_margin(scattered, q) < 0.2
    # the same relation words and page share: only the margin differs
    assert confident(support(q, agreeing[:1], 0.4, vote_margin(agreeing, q)))
    assert not confident(support(q, scattered[:1], 0.4, vote_margin(scattered, q)))


def test_an_unreadable_sentence_store_costs_time_not_the_answer() -> None:
    from groundsearch.errors import StoreUnavailable

    class Down:
        def sentence_vectors(self, model, chunk_ids):  # type: ignore[no-untyped-def]
            raise StoreUnavailable("connection refused")

    vectors = SentenceVectors(HashEmbedder(), store=Down())
    got = vectors.sentences([("news:s0#0", "Facebook acquired Instagram for $1 billion.")])
    assert got.shape == (1, HashEmbedder().dim) and vectors.misses == 1


def test_one_date_spelled_two_ways_is_agreement_not_a_conflict() -> None:
    # RGB's answerable pages spell one date several ways; counted apart, they looked like rival values
    hits = (snippet(0, "Super Bowl LV was played on February 7, 2021, at Raymond James Stadium in Tampa."),
            snippet(1, "Super Bowl LV was played on 7 February 2021, at Raymond James Stadium in Tampa."))
    prose = answer("When was Super Bowl LV played?", hits, SentenceVectors(HashEmbedder()))
    assert not any(s.text.startswith(CONFLICT_PREFIX) for s in prose.sentences)
    assert prose.sentences[0].text == f"{ANSWER_PREFIX}February 7, 2021."
    assert set(prose.sentences[0].citations) == {"news:s0#0", "news:s1#0"}


def test_a_rival_date_in_may_is_a_span_and_its_conflict_is_flagged() -> None:
    # "May" is a stop word: read by its words, "May 5, 2020" was half the question's ("... Awards 2020"), so the
    # counterfactual source's date was no span and the two sources never disagreed (RGB en_fact tune, twice)
    q = "When did the Golden Globe Awards 2020 take place?"
    assert answer_spans("The awards will take place on May 5, 2020 in Los Angeles.", "date", q) == ["May 5, 2020"]
    assert answer_spans("It took place on May 5, 2020.", "date", "What happened on 5 May 2020?") == []
    assert answer_spans("It took place on May 5, 2020.", "date", "what happened on may 5, 2020?") == []
    hits = (snippet(0, "The 77th Golden Globe Awards will take place on 5 January 2020 at The Beverly Hilton Hotel."),
            snippet(1, "The 77th Golden Globe Awards will take place on May 5, 2020 at The Beverly Hilton Hotel."))
    prose = answer(q, hits, SentenceVectors(HashEmbedder()))
    assert prose.sentences[0].text.startswith(CONFLICT_PREFIX)
    assert "5 January 2020" in prose.sentences[0].text and "May 5, 2020" in prose.sentences[0].text
    assert not any(s.text.startswith(ANSWER_PREFIX) for s in prose.sentences)


def test_date_keys_read_every_spelling_of_a_day_and_leave_bare_years_alone() -> None:
    from groundsearch.answer.answer_type import date_key, date_keys

    assert {date_key(s) for s in ("5 January 2020", "January 5, 2020", "Jan. 5th, 2020", "2020-01-05")} == {"2020-01-05"}
    assert date_key("May 2012") == "2012-05" and date_key("2012") is None and date_key("Tampa") is None
    assert date_keys("Held on 5 January 2020, then again on Jan 5, 2021, and in 2022.") == {"2020-01-05", "2021-01-05"}


def test_the_asked_value_s_noun_is_not_a_relation_the_answer_must_repeat() -> None:
    # "the date of the draft" is answered by "the draft took place on ...", which says no "date"
    from groundsearch.answer.answerable import relation_and_topic

    relation, topic = relation_and_topic("What is the date of the 2020 NBA Draft?")
    assert "date" not in relation and {"nba", "draft", "2020"} <= topic
    hits = tuple(snippet(i, f"The 2020 NBA Draft took place on November 18, 2020, report {i} says.") for i in range(2))
    prose = answer("What is the date of the 2020 NBA Draft?", hits, SentenceVectors(HashEmbedder()))
    assert prose.sentences[0].text == f"{ANSWER_PREFIX}November 18, 2020."


# ---- an overlong sentence is quoted by its clauses ---------------------------------------------------------

_RUN_ON = ("Retrieval runs a BM25 leg (tantivy, block-max WAND, one shared tokenizer: NFKC, casefold, split on "
           "non-alphanumerics, stopwords, Snowball English stems) and a dense leg (exact cosine over an in-memory "
           "matrix up to 200k chunks, HNSW beyond) concurrently, and fuses them by z-scored leg scores (each leg "
           "standardised over its own candidates; measured above Reciprocal Rank Fusion on SciFact and MuSiQue), "
           "with dense feedback from the top 2 hits (Rocchio) when those two legs run alone; a graph leg "
           "(Personalized PageRank over entity co-occurrence) joins for entity-seeking questions (\"Who…?\", "
           "\"In which…?\"), fused with the z-scored ranking by RRF (k = 8, graph ranks ×1.2), and for comparisons "
           "and bridge phrases, fused by RRF over the three legs (k = 10).")


def test_an_overlong_sentence_is_cut_at_its_top_level_semicolons_into_quotable_clauses() -> None:
    # the README's ~120-word sentence on fusion was no candidate (MAX_WORDS 100), so "How does groundsearch fuse
    # keyword and vector results?" quoted other lines; the semicolon inside "(each leg …; measured …)" is no cut
    assert len(_RUN_ON.split()) > 100
    first, second = split_sentences(_RUN_ON)
    assert first.startswith("Retrieval runs a BM25 leg") and first.endswith("when those two legs run alone …")
    assert "(each leg standardised over its own candidates; measured above" in first
    assert second.startswith("… a graph leg (Personalized PageRank") and second.endswith("(k = 10).")
    assert is_prose(first) and is_prose(second)
    # the words are the source's: only the cut semicolon became the elision mark
    assert f"{first[:-2]}; {second[2:]}" == _RUN_ON
    hit = doc(1, _RUN_ON, heading=("How it works",))
    prose = answer("How does groundsearch fuse keyword and vector results?", [hit])
    assert any("fuses them by z-scored leg scores" in s.text for s in prose.sentences), prose.text


def test_a_short_sentence_with_semicolons_and_a_long_one_without_stay_whole() -> None:
    short = "The store keeps chunks; the index keeps terms; both are rebuilt on open."
    assert split_sentences(short) == [short]
    long_without = "The engine " + "reads and ranks and fuses " * 30 + "every page."
    assert split_sentences(long_without) == [long_without]
    assert not is_prose(long_without)


def test_a_chunk_that_begins_inside_a_table_row_quotes_nothing_of_that_row() -> None:
    # the README's CLI table: a long row is packed into several chunks, and the one cut from its middle has no
    # "|" in it ("Incremental and idempotent ... A bad file is reported with its reason and skipped; nothing of
    # it is written.") — its sentences were quoted as prose, and where the cuts fall moves with the row's length
    row = ("| `ingest PATH` | ingest files and folders. The text is written first, so items are keyword-searchable "
           "at once. Unchanged files are skipped and changed files replace their chunks. A bad file is reported "
           "with its reason and skipped; nothing of it is written. Exit code 1 if any file failed |")
    after = "The keyword index is stored in tantivy, next to the SQLite database that holds the text."
    text = f"## CLI\n\n| command | what it does |\n|---|---|\n{row}\n\n{after}\n"
    cut = text.index("Unchanged files")
    item = Item(id="docs:readme", collection="docs", title="README", text=text)
    head = Chunk(id="docs:readme#0", item_id=item.id, position=0, text=text[:cut].strip(), heading_path=("CLI",))
    middle = Chunk(id="docs:readme#1", item_id=item.id, position=1, text=text[cut:].strip(), heading_path=("CLI",))
    assert quotable(item, head) == []
    assert quotable(item, middle) == [after]  # the row's tail is no sentence; the paragraph after it still is
    # a chunk cut inside a paragraph keeps its sentences as they were
    prose = "First sentence of a paragraph here. The second sentence of the same paragraph follows it."
    item2 = Item(id="docs:p", collection="docs", title="P", text=prose)
    at = prose.index("The second")
    chunk2 = Chunk(id="docs:p#1", item_id=item2.id, position=1, text=prose[at:])
    assert quotable(item2, chunk2) == [prose[at:]]


def test_a_flattened_table_with_a_semicolon_is_not_cut_into_a_quotable_first_clause() -> None:
    # a MuSiQue infobox flattened into one run: its 18 words before the semicolon read as prose, but the 180-word
    # rest is the table; cut, the first piece was quoted instead of a real sentence (tune: Deng Pufang lost)
    table = ("Party and government leaders Name Position (s) in 1989 Deng Xiaoping Chairman of the Central Military "
             "Commission; de facto paramount leader " + "Chen Yun Chairman of the CPC Central Advisory Commission " * 20
             + "Zhao Ziyang General Secretary of the Communist Party of China.")
    assert split_sentences(table) == [" ".join(table.split())]
    items = "The release adds " + "; ".join(f"feature number {n}" for n in range(40)) + "."
    assert split_sentences(items) == [items]  # a list's items are no clauses
