"""Capitalised words that name no one, kept out of the answer line's candidates (issue 11, session 6).

A negatives-only page offers junk spans — a tag, an adjective, a common noun capitalised by its place — and
removing the rival makes the junk look agreed on. Each case below is a sentence written for the test."""

from __future__ import annotations

from groundsearch.answer.answer_type import answer_spans
from groundsearch.answer.extractive import _score, candidates
from groundsearch.answer.sentence_vectors import SentenceVectors
from groundsearch.models.fake import HashEmbedder
from groundsearch.types import Chunk, EvidenceHit, Item, LegScore


def test_a_hashtag_or_a_handle_is_not_a_name_in_the_claim() -> None:
    spans = answer_spans("The 2031 #LanternPrize went to Mira Osei for her novel, said @prizedesk today.",
                         "person", "Who won the Lantern Prize in 2031?")
    assert "Mira Osei" in spans
    assert "LanternPrize" not in spans


def test_a_capitalised_word_joined_to_lower_case_parts_is_an_adjective() -> None:
    spans = answer_spans("Oscar-winning director Tomas Reyes shot the film near Valparaiso in the spring.",
                         "person", "Who directed The Salt Road?")
    assert spans[0] == "Tomas Reyes" and "Oscar-winning" not in spans
    spans = answer_spans("Twelve-year-old Noor plays the young queen in the remake.", "person",
                         "Who plays the young queen in the remake?")
    assert "Twelve-year-old Noor" not in spans and spans == ["Noor"]


def test_a_name_after_a_or_an_that_describes_a_noun_is_not_the_answer() -> None:
    spans = answer_spans("An Emmy winner, Dana Whitlock signed a Netflix deal to write the series.", "person",
                         "Who will write the series?")
    assert spans == ["Dana Whitlock"]


def _hit(n: int, text: str) -> EvidenceHit:
    item = Item(id=f"news:s{n}", collection="news", title=f"Story {n}", text=text)
    return EvidenceHit(chunk=Chunk(id=f"news:s{n}#0", item_id=item.id, position=0, text=text), item=item,
                       score=1 / (60 + n), legs=(LegScore("vector", n + 1, 0.6),))


def test_a_word_the_passage_writes_in_lower_case_anywhere_is_no_name_when_it_opens_a_sentence() -> None:
    # "voters" in lower case only in a caption line, which is no quotable sentence: before, only the quotable
    # sentences were read for lower-case words, so "Voters" opening the sentence was a candidate answer
    text = "Photo: voters queue in Riverton\n\nVoters in Riverton chose Ana Lopez as their mayor in 2031."
    pool = candidates((_hit(0, text),))
    assert [c.text for c in pool] == ["Voters in Riverton chose Ana Lopez as their mayor in 2031."]
    q = "Who won the Riverton mayoral election in 2031?"
    _score(q, pool, SentenceVectors(HashEmbedder()), "person")
    assert pool[0].spans == ("Ana Lopez",)
    # the same word written nowhere in lower case keeps its capital's benefit of the doubt
    pool = candidates((_hit(0, "Voters in Riverton chose Ana Lopez as their mayor in 2031."),))
    _score(q, pool, SentenceVectors(HashEmbedder()), "person")
    assert "Voters" in pool[0].spans


def test_a_name_that_says_whose_people_they_are_is_not_the_one_who_acted() -> None:
    spans = answer_spans("The app was started in 2029 by two former Brightline employees, Ivo Marsh and Lea Kent.",
                         "person", "Who bought the app?")
    assert "Brightline" not in spans and spans[0].startswith("Ivo Marsh")


def test_the_date_of_an_embedded_posts_byline_is_not_a_date_it_reports() -> None:
    # RGB en_fact tune, rgb-fact-91's negatives-only page: "Answer: June 20, 2020." for the 2020 NBA Draft
    question = "What is the date of the 2020 NBA Draft?"
    assert answer_spans("— Adrian Wojnarowski (@wojespn) June 20, 2020.", "date", question) == []
    # a date after a handle that is not a byline's stays an answer
    assert answer_spans("The draft, the league said (@NBA), is set for November 18, 2020.", "date",
                        question) == ["November 18, 2020"]
