"""Question decomposition: the question one hop on (answer/decompose.py), the answer scored against it, and the
engine's follow-up retrieval of it (orchestrate.Orchestrator._follow_up). Hash embeddings: logic, not quality."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from groundsearch import orchestrate
from groundsearch.answer import decompose, extractive, hops
from groundsearch.answer.extractive import NO_ANSWER, _score, answer, candidates
from groundsearch.answer.sentence_vectors import SentenceVectors
from groundsearch.engine import Engine
from groundsearch.models.fake import HashEmbedder
from groundsearch.settings import Settings
from groundsearch.types import Chunk, CollectionSpec, EvidenceHit, Hints, Item, LegScore, SearchRequest

QUESTION = "Who is the spouse of the musician who performed Green?"


def article(n: int, title: str, text: str) -> EvidenceHit:
    item = Item(id=f"wiki:{n}", collection="wiki", title=title, text=text)
    chunk = Chunk(id=f"wiki:{n}#0", item_id=item.id, position=0, text=text)
    return EvidenceHit(chunk=chunk, item=item, score=1 / (60 + n), legs=(LegScore("vector", n + 1, 0.5),))


# the answer's sentence shares no word with the question and its item is named by no sentence on the page,
# so neither the question's words nor the title walk reach it; only the question asked of the bridge does
PAGE = (
    article(0, "Green (album)", "Green is the fourth studio album by Steve Hillage, released in 1978."),
    *(article(i, f"Green {s}", f"The {s} musician who performed Green songs was the spouse of a fan.")
      for i, s in enumerate(("Day", "Party", "Room", "Line", "Bay"), start=1)),
    article(6, "Miquette Giraudy", "Miquette Giraudy is a keyboard player married to Steve Hillage since 1979."),
)


def test_the_sub_question_puts_the_bridge_where_the_anchor_was() -> None:
    pool = candidates(PAGE)
    _score(QUESTION, pool, SentenceVectors(HashEmbedder()), "person")
    reached = hops.rescore(pool, QUESTION)
    subs = decompose.subquestions(pool, QUESTION, reached)
    assert [(s.text, s.bridge) for s in subs] == [("Who is the spouse of Steve Hillage?", "Steve Hillage")]
    assert [s.text for s in extractive.follow_ups(QUESTION, PAGE, SentenceVectors(HashEmbedder()))] == [subs[0].text]
    assert extractive.follow_ups("Who is Steve Hillage?", PAGE) == []  # no relative clause: no second hop


def test_the_sentence_answering_the_sub_question_is_quoted(monkeypatch: pytest.MonkeyPatch) -> None:
    prose = answer(QUESTION, PAGE, SentenceVectors(HashEmbedder()))
    assert prose.sentences[0].text.startswith(NO_ANSWER)
    assert any("Miquette Giraudy" in s.text and s.citations == ("wiki:6#0",) for s in prose.sentences)
    monkeypatch.setattr(extractive, "SUB_QUESTIONS", False)  # scored against the question alone it is not quoted
    assert "Miquette Giraudy" not in answer(QUESTION, PAGE, SentenceVectors(HashEmbedder())).text


WIKI = CollectionSpec(name="wiki", kind="documents")
PRIVATE = CollectionSpec(name="private", kind="documents")


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    root = tmp_path_factory.mktemp("kb")
    files: dict[str, list[Path]] = {"wiki": [], "private": []}

    def page(collection: str, name: str, title: str, text: str) -> None:
        path = root / collection / f"{name}.md"
        path.parent.mkdir(exist_ok=True)
        path.write_text(f"# {title}\n\n{text}\n")
        files[collection].append(path)

    for hit in PAGE[:4]:  # three look-alikes: the anchor is on the first page of four, its bridge's item is not
        page("wiki", hit.item.id.split(":")[1], hit.item.title, hit.chunk.text)
    page("wiki", "hillage", "Steve Hillage", "Steve Hillage is a guitarist, married to Miquette Giraudy since 1979.")
    page("wiki", "hillage-tour", "Hillage tour", "The Steve Hillage tour of 1979 was a long one.")
    # outside the request's collections: a follow-up that dropped the plan's filter would find it first
    page("private", "notes", "Steve Hillage (notes)", "Steve Hillage married a secret spouse, the private notes say.")
    settings = Settings(data_dir=root / "data", embedder="hash", collections=(WIKI, PRIVATE),
                        domains={"wiki": ("wiki",), "private": ("private",)})
    with Engine.open(settings, embedder=HashEmbedder()) as e:
        for collection, paths in files.items():
            e.ingest(paths, collection)
        yield e


def test_the_follow_up_fetches_the_item_off_the_page_and_keeps_the_filter(engine: Engine,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    request = SearchRequest(query=QUESTION, collections=("wiki",), limit=4)
    monkeypatch.setattr(orchestrate, "FOLLOW_UPS", 0)
    engine.clear_caches()
    before = engine.search(request)
    assert "Green (album)" in {r.title for r in before.results} and "Steve Hillage" not in {r.title for r in before.results}
    monkeypatch.setattr(orchestrate, "FOLLOW_UPS", 2)
    engine.clear_caches()
    after = engine.search(request)
    titles = [r.title for r in after.results]
    assert titles[:len(before.results)] == [r.title for r in before.results]  # the page itself is unchanged
    # only what is about the bridge is added: not the tour page that merely shares the question's words
    assert titles[len(before.results):] == ["Steve Hillage"]
    assert {r.collection for r in after.results} == {"wiki"}  # never the collection the request left out
    hillage = next(r.id for r in after.results if r.title == "Steve Hillage")
    assert any(hillage in s.citations and s.verified and "Miquette Giraudy" in s.text for s in after.prose.sentences)
    assert "retrieve.follow_up" in after.diagnostics.latency_ms


@pytest.mark.parametrize("shape", ["chart", "table", "timeline"])
def test_a_shaped_request_follows_the_same_hops_and_draws_its_shape_from_the_page(engine: Engine, shape: str) -> None:
    """A chart, table or timeline request (a timeline of undated pages is a downgrade to a table) on a bridge
    question issues the follow-up a plain question does: the bridge's item joins the results its prose may
    cite, while the shape itself is drawn from the page alone (the follow-up's hits are about the bridge,
    not rows the request asked to see)."""
    plain = SearchRequest(query=QUESTION, collections=("wiki",), limit=4)
    engine.clear_caches()
    default = engine.search(plain)
    engine.clear_caches()
    shaped = engine.search(plain.model_copy(update={"hints": Hints(format=shape)}))
    assert shaped.intent.format == shape
    assert "retrieve.follow_up" in shaped.diagnostics.latency_ms
    assert [r.id for r in shaped.results] == [r.id for r in default.results]  # the same evidence as a plain answer
    hillage = next(r.id for r in shaped.results if r.title == "Steve Hillage")
    page = {r.id for r in shaped.results[:4]}
    drawn = set()
    for result in shaped.structured_results:
        drawn.update(getattr(result, "row_ids", ()) or ())
        drawn.update(i for p in getattr(result, "points", ()) or () for i in p.source_ids)
        drawn.update(e.source_id for e in getattr(result, "events", ()) or ())
    assert drawn and drawn <= page and hillage not in drawn


def test_a_graph_requests_prose_quotes_the_item_its_bridge_reached(engine: Engine) -> None:
    """A graph's prose is the extractive answer (the short paragraph says nothing of a graph): with the follow-up
    it quotes the bridge's item, cited and verified, as a plain question's does."""
    engine.clear_caches()
    shaped = engine.search(SearchRequest(query=QUESTION, collections=("wiki",), limit=4, hints=Hints(format="graph")))
    assert [r.kind for r in shaped.structured_results] == ["graph"]
    hillage = next(r.id for r in shaped.results if r.title == "Steve Hillage")
    assert any(hillage in s.citations and s.verified and "Miquette Giraudy" in s.text for s in shaped.prose.sentences)


@pytest.mark.parametrize(("title", "bridge", "about"), [("West Chicago, Illinois", "West Chicago High School", True),
                                                        ("Kansas", "Kansas", True),
                                                        ("Greenville High School (New York)", "West Chicago High School", False)])
def test_a_follow_up_hit_must_be_about_the_bridge(title: str, bridge: str, about: bool) -> None:
    assert decompose.about(title, bridge) is about


@pytest.mark.parametrize(("term", "word"), [("spouse", "married"), ("charge", "minister"), ("born", "birthplace"),
                                            ("formed", "founded"), ("dissolved", "acquired")])
def test_a_relation_is_covered_by_the_words_that_state_it(term: str, word: str) -> None:
    from groundsearch.answer.relations import covered
    from groundsearch.store.text import analyze
    assert covered(analyze(term)[0], frozenset(analyze(f"it was {word} then")))
    assert not covered(analyze(term)[0], frozenset(analyze("it was sold then")))


def test_a_description_starts_at_a_word_start() -> None:
    # not "i[n birth place of]": without a word boundary the description began inside "in" and the rewrite
    # kept its first letter ("the main airport iKestavia")
    assert decompose._rewrite("What is the main airport in birth place of Anton Brask?", "Anton Brask",
                              "Kestavia") == "What is the main airport in Kestavia?"
