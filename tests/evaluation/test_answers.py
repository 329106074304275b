"""``eval --answers`` end to end on a tiny RGB-style folder: real ingest, real SQLite, HashEmbedder (logic only)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from groundsearch.errors import InvalidInput
from groundsearch.evaluation.answers import CONDITIONS, OPEN_CONDITIONS, contains_answer, load_cases, run_answer_eval
from groundsearch.evaluation.datasets import load_beir
from groundsearch.interfaces.cli import main
from groundsearch.models.fake import HashEmbedder

SNIPPETS = {
    "q1": {
        "positive": ["Facebook acquired Instagram in April 2012 for one billion dollars in cash and stock.",
                     "Instagram was acquired by Facebook in 2012, two years after the photo app launched."],
        "positive_wrong": ["Apple acquired Instagram in April 2012 for one billion dollars in cash and stock."],
        "negative": ["Instagram photos and videos from the Acquire design studio in Raleigh, with many followers."],
    },
    "q2": {
        "positive": ["Simona Halep won the women's singles title at Wimbledon in 2019, beating Serena Williams."],
        "positive_wrong": ["Angelique Kerber won the women's singles title at Wimbledon in 2019, beating Serena Williams."],
        "negative": ["Tickets for the Wimbledon championships in 2019 went on sale in a public ballot in the spring."],
    },
}
QUERIES = [
    {"_id": "q1", "text": "Who acquired Instagram?", "answers": ["Facebook"], "meta": {"fake_answers": ["Apple"]}},
    {"_id": "q2", "text": "Who won the women's singles Wimbledon in 2019?", "answers": ["Simona Halep"],
     "meta": {"fake_answers": ["Angelique Kerber"]}},
]


@pytest.fixture
def rgb_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "tiny_rgb"
    folder.mkdir()
    corpus, labels, qrels = [], ["query-id\tcorpus-id\tlabel"], ["query-id\tcorpus-id\tscore"]
    for qid, kinds in SNIPPETS.items():
        for kind, texts in kinds.items():
            for j, text in enumerate(texts):
                doc_id = f"{qid}-{kind}-{j}"
                corpus.append({"_id": doc_id, "title": "", "text": text})
                labels.append(f"{qid}\t{doc_id}\t{kind}")
                if kind == "positive":
                    qrels.append(f"{qid}\t{doc_id}\t1")
    (folder / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in corpus))
    (folder / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUERIES))
    (folder / "qrels.tsv").write_text("\n".join(qrels) + "\n")
    (folder / "doc_labels.tsv").write_text("\n".join(labels) + "\n")
    return folder


def test_gold_strings_match_as_whole_words_after_normalisation() -> None:
    assert contains_answer("Answer: the Anglican Communion.", ["the Anglican Communion"])
    assert contains_answer("It opened on Sep. 20, 2019 in Cupertino.", ["Sep 20, 2019"])
    assert contains_answer("Pogačar won.", ["Tadej Pogacar", "Pogacar"])
    assert not contains_answer("It cost $10.65 billion.", ["$1.65 billion"])
    assert not contains_answer("Facebookish", ["Facebook"])


def test_a_query_without_gold_answers_is_a_clear_error(rgb_dir: Path) -> None:
    (rgb_dir / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "Who acquired Instagram?"}) + "\n"
                                           + json.dumps(QUERIES[1]) + "\n")
    with pytest.raises(InvalidInput, match="'answers' must be a non-empty list"):
        load_cases(load_beir(rgb_dir))


def test_rgb_conditions_are_scored_per_split(rgb_dir: Path, tmp_path: Path) -> None:
    report = run_answer_eval(load_beir(rgb_dir), embedder=HashEmbedder(64), embedder_name="hash",
                             cache_root=tmp_path / "cache")
    assert set(report["conditions"]) == set(CONDITIONS)
    for splits in report["conditions"].values():
        assert splits["all"]["queries"] == 2
        for key in ("prose_recall", "answer_line_recall", "citation_precision", "support_rate", "abstention",
                    "conflict_flagged", "fake_stated"):
            assert 0.0 <= splits["all"][key] <= 1.0
        assert splits["all"]["p95_ms"] >= splits["all"]["p50_ms"] > 0
    positive = report["conditions"]["positive"]["all"]
    assert positive["prose_recall"] == 1.0 and positive["citation_precision"] == 1.0
    assert positive["conflict_flagged"] == 0.0
    assert report["conditions"]["negative"]["all"]["prose_recall"] == 0.0  # no gold string on a negatives-only page
    counterfactual = report["conditions"]["counterfactual"]["all"]
    assert counterfactual["fake_stated"] == 0.0
    assert counterfactual["conflict_flagged"] == 1.0


def test_an_open_set_is_also_run_with_each_questions_relevant_documents_removed(rgb_dir: Path,
                                                                               tmp_path: Path) -> None:
    (rgb_dir / "doc_labels.tsv").unlink()  # an open set: qrels only, like MuSiQue
    report = run_answer_eval(load_beir(rgb_dir), embedder=HashEmbedder(64), embedder_name="hash",
                             cache_root=tmp_path / "cache")
    assert tuple(report["conditions"]) == OPEN_CONDITIONS
    assert report["conditions"]["open"]["all"]["prose_recall"] == 1.0
    without = report["conditions"]["no_relevant"]["all"]
    # the qrels documents are the only ones holding the gold strings: with them gone the prose cannot hold one
    assert without["queries"] == 2 and without["prose_recall"] == 0.0
    stated = report["conditions"]["open"]["all"]["answer_line_rate"] * 2
    assert without["open_stated"] == round(stated)


def test_cli_prints_one_json_object(rgb_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import groundsearch.evaluation.answers as answers

    real = answers.run_answer_eval
    monkeypatch.setattr(answers, "run_answer_eval",
                        lambda dataset, **kw: real(dataset, **{**kw, "embedder": HashEmbedder(64),
                                                                "embedder_name": "hash"}))
    result = CliRunner().invoke(main, ["eval", "--answers", str(rgb_dir), "--cache-dir", str(tmp_path / "c"),
                                       "--limit-queries", "1", "--json"])
    assert result.exit_code == 0, result.output
    body = json.loads(result.stdout)
    assert body["queries"] == 1 and set(body["conditions"]) == set(CONDITIONS)


def test_every_no_answer_the_extractive_answer_writes_is_what_the_eval_counts_as_abstention() -> None:
    # the client's bar: "the answer must say it found none" — each way extractive says so, and only those
    from types import SimpleNamespace

    from groundsearch.answer.extractive import NO_ANSWER, answer, no_answer
    from groundsearch.answer.sentence_vectors import SentenceVectors
    from groundsearch.evaluation.answers import abstained, answer_line
    from groundsearch.types import Chunk, EvidenceHit, Item, LegScore

    def hit(n: int, text: str, title: str = "") -> EvidenceHit:
        item = Item(id=f"news:s{n}", collection="news", title=title, text=text)
        return EvidenceHit(chunk=Chunk(id=f"news:s{n}#0", item_id=item.id, position=0, text=text), item=item,
                           score=1 / (60 + n), legs=(LegScore("vector", n + 1, 0.6),))

    vectors = SentenceVectors(HashEmbedder())
    listed = no_answer((hit(0, "x", "Wimbledon tickets"), hit(1, "y", "Grass courts")))
    topical = answer("Who won the women's singles Wimbledon in 2021?",
                     (hit(0, "Tickets for the 2021 Wimbledon final went on sale in March, and queues formed early."),
                      hit(1, "Wimbledon is the oldest tennis tournament in the world, played on grass since 1877.")),
                     vectors)
    year_only = answer("When was GPT-3 released?",
                       (hit(0, "OpenAI released GPT-3 to a limited beta of developers in 2020."),), vectors)
    answered = answer("Who won the women's singles Wimbledon in 2019?",
                      tuple(hit(i, f"Simona Halep won the women's singles title at Wimbledon in 2019, report {i} "
                                   f"says.") for i in range(2)), vectors)
    for prose in (SimpleNamespace(sentences=(listed,), text=listed.text), topical, year_only):
        response = SimpleNamespace(prose=prose)
        assert abstained(response) and answer_line(response) is None  # type: ignore[arg-type]
        assert prose.sentences[0].text.startswith(NO_ANSWER)
    assert "“Wimbledon tickets” and “Grass courts”" in listed.text  # what was found instead, by name
    assert len(topical.sentences) >= 1 and len(year_only.sentences) >= 2  # ... or the closest passages, quoted
    assert not abstained(SimpleNamespace(prose=answered))  # type: ignore[arg-type]
    assert answer_line(SimpleNamespace(prose=answered)) == "Simona Halep."  # type: ignore[arg-type]


def test_the_ceiling_counts_each_question_at_the_first_stage_that_holds_its_gold() -> None:
    from groundsearch.evaluation.ceiling import ceiling_stage

    gold = ["Simona Halep"]
    page = ["Wimbledon 2019\nSimona Halep won the title.", "Simona Halep | 2019 | Wimbledon"]
    assert ceiling_stage(gold, "Simona Halep won.", ["Simona Halep won the title."], page) == "in prose"
    assert ceiling_stage(gold, "Serena lost.", ["Simona Halep won the title."], page) == "not chosen"
    assert ceiling_stage(gold, "Serena lost.", ["Serena lost."], page) == "not a candidate"
    assert ceiling_stage(gold, "Serena lost.", ["Serena lost."], ["Serena lost."]) == "not retrieved"
    assert ceiling_stage(gold, "Simona Halepova won.", [], []) == "not retrieved"  # whole words only


def test_the_ceiling_runs_on_an_open_set_and_refuses_a_labelled_one(rgb_dir: Path, tmp_path: Path) -> None:
    from groundsearch.evaluation.ceiling import run_ceiling

    with pytest.raises(InvalidInput):
        run_ceiling(load_beir(rgb_dir), embedder=HashEmbedder(64), embedder_name="hash", cache_root=tmp_path / "c")
    (rgb_dir / "doc_labels.tsv").unlink()
    (rgb_dir / "corpus.jsonl").write_text(  # q2's gold nowhere in the corpus: not retrieved, not in the top 100
        json.dumps({"_id": "q1-positive-0", "title": "", "text": SNIPPETS["q1"]["positive"][0]}) + "\n"
        + json.dumps({"_id": "q2-negative-0", "title": "", "text": SNIPPETS["q2"]["negative"][0]}) + "\n")
    report = run_ceiling(load_beir(rgb_dir), embedder=HashEmbedder(64), embedder_name="hash", cache_root=tmp_path / "o")
    assert report["qids"]["in prose"] == ["q1"] and report["qids"]["not retrieved"] == ["q2"]
    assert report["not_retrieved_in_top_100"] == 0
    assert report["ceiling"] == 0.5 and report["queries"] == 2


def test_cli_ceiling_prints_the_breakdown(rgb_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import groundsearch.evaluation.ceiling as ceiling

    (rgb_dir / "doc_labels.tsv").unlink()
    real = ceiling.run_ceiling
    monkeypatch.setattr(ceiling, "run_ceiling", lambda dataset, **kw: real(
        dataset, **{**kw, "embedder": HashEmbedder(64), "embedder_name": "hash"}))
    result = CliRunner().invoke(main, ["eval", "--answers", str(rgb_dir), "--ceiling", "--cache-dir",
                                       str(tmp_path / "c")])
    assert result.exit_code == 0, result.output
    assert "ceiling 1.0" in result.stdout and "in top-100" in result.stdout


def test_the_ceiling_reads_the_page_the_answer_drew_on(rgb_dir: Path, tmp_path: Path) -> None:
    # the response's own results, in order (a multi-hop follow-up adds hits plain retrieval never returns)
    from groundsearch.evaluation.ceiling import answered_page
    from groundsearch.evaluation.runner import open_eval_engine
    from groundsearch.types import SearchRequest

    (rgb_dir / "doc_labels.tsv").unlink()
    engine = open_eval_engine(load_beir(rgb_dir), embedder=HashEmbedder(64), embedder_name="hash", cache_root=tmp_path)
    try:
        response = engine.search(SearchRequest(query="Who won the women's singles at Wimbledon 2019?", limit=5))
        page = answered_page(engine.store, response)
    finally:
        engine.close()
    assert response.results and [h.id for h in page] == [r.id for r in response.results]
    assert all(h.chunk.text and h.item.id == r.item_id for h, r in zip(page, response.results, strict=True))
