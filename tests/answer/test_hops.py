"""Multi-hop selection: the page's items reached through a bridge (answer/hops.py)."""

from __future__ import annotations

import pytest

from groundsearch.answer import hops
from groundsearch.answer.extractive import NO_ANSWER, answer
from groundsearch.answer.sentence_vectors import SentenceVectors
from groundsearch.models.fake import HashEmbedder
from groundsearch.types import Chunk, EvidenceHit, Item, LegScore


def article(n: int, title: str, text: str) -> EvidenceHit:
    item = Item(id=f"wiki:{n}", collection="wiki", title=title, text=text)
    chunk = Chunk(id=f"wiki:{n}#0", item_id=item.id, position=0, text=text)
    return EvidenceHit(chunk=chunk, item=item, score=1 / (60 + n), legs=(LegScore("vector", n + 1, 0.5),))


QUESTION = "Who was in charge of the state where Shringarpur is located?"
# the anchor names the bridge (Maharashtra); the answer's sentence shares no word with the question, and
# six items about being in charge of a state where something is located outscore both on the question's
# words, so a chain seeded only by the best sentences never starts from the anchor
PAGE = (
    article(0, "Shringarpur", "Shringarpur is a small village in the Ratnagiri district of Maharashtra, India."),
    *(article(i, f"Governor of {s}", f"The governor of {s} was in charge of the state where the capital is located.")
      for i, s in enumerate(("Texas", "Ohio", "Utah", "Iowa", "Maine", "Idaho"), start=1)),
    article(7, "Maharashtra", "Prithviraj Chavan of the Congress party was the last Chief Minister of Maharashtra."),
)


def test_the_sentence_of_the_item_the_anchor_names_is_quoted(monkeypatch: pytest.MonkeyPatch) -> None:
    prose = answer(QUESTION, PAGE, SentenceVectors(HashEmbedder()))
    assert prose.sentences[0].text.startswith(NO_ANSWER)  # a second-hop question states no answer line
    assert "Prithviraj Chavan" in prose.text
    assert any(s.citations == ("wiki:7#0",) for s in prose.sentences)  # quoted from, and cited to, its own item
    monkeypatch.setattr(hops, "W_LINK", 0.0)  # the walk off: the bridge's item is never reached
    assert "Prithviraj Chavan" not in answer(QUESTION, PAGE, SentenceVectors(HashEmbedder())).text


def test_links_follow_titles_hop_by_hop_and_weaken() -> None:
    page = (*PAGE, article(8, "Indian National Congress", "The Indian National Congress is a political party."))
    from groundsearch.answer.extractive import _score, candidates
    pool = candidates(page)
    _score(QUESTION, pool, SentenceVectors(HashEmbedder()), "person")
    reached = hops.links(pool, QUESTION)
    assert reached["wiki:0"] == 1.0  # the question names it
    assert 0 < reached["wiki:7"] < 1.0  # one hop: named by the anchor's sentence
    assert "wiki:8" not in reached  # nothing on the page names it (its title is not "Congress")
    assert all(item not in reached for item in ("wiki:1", "wiki:2"))


@pytest.mark.parametrize(("title", "head"), [("Indianola, Iowa", "Indianola"), ("Betrayed (1917 film)", "Betrayed"),
                                             ("Maharashtra", "Maharashtra")])
def test_a_title_is_referred_to_by_its_head(title: str, head: str) -> None:
    assert hops.title_head(title) == head
