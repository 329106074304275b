"""The BEIR loader on small folders written per test, including the malformed cases it must name."""

from __future__ import annotations

from pathlib import Path

import pytest

from groundsearch.errors import InvalidInput
from groundsearch.evaluation.datasets import load_beir, read_qrels


def test_loads_only_judged_queries_in_qrels_order(beir_dir: Path) -> None:
    ds = load_beir(beir_dir)
    assert ds.name == "tiny_beir"
    assert [d.id for d in ds.corpus] == ["d1", "d2", "d3", "d4", "d5", "6"]  # integer _id read as text
    assert list(ds.queries) == ["q1", "q2", "q3"]  # q9 has no qrels
    assert ds.qrels["q3"] == {"d4": 1, "6": 2}
    assert len(ds.content_hash) == 64
    assert list(ds.limited(2).queries) == ["q1", "q2"] and ds.limited(None) is ds


def test_qrels_without_header(tmp_path: Path) -> None:
    p = tmp_path / "qrels.tsv"
    p.write_text("q1\td1\t1\r\nq1\td2\t0\n\nq2\td3\t2\n")
    assert read_qrels(p) == {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}}


def test_content_hash_follows_corpus_bytes(beir_dir: Path) -> None:
    before = load_beir(beir_dir).content_hash
    with open(beir_dir / "corpus.jsonl", "a") as fh:
        fh.write('{"_id": "d7", "title": "", "text": "new"}\n')
    assert load_beir(beir_dir).content_hash != before


@pytest.mark.parametrize(
    ("file", "content", "message"),
    [
        ("corpus.jsonl", '{"_id": "a", "text": "x"}\n{"_id": "b", "text": \n', r"corpus.jsonl, line 2: not valid JSON"),
        ("corpus.jsonl", '{"title": "t", "text": "x"}\n', r"line 1: missing or empty '_id'"),
        ("corpus.jsonl", '{"_id": "a", "title": "t"}\n', r"line 1: missing 'text'"),
        ("corpus.jsonl", '{"_id": "a", "text": "x"}\n{"_id": "a", "text": "y"}\n', r"line 2: duplicate _id 'a'"),
        ("corpus.jsonl", "", r"the corpus is empty"),
        ("corpus.jsonl", "[1, 2]\n", r"line 1: each line must be a JSON object"),
        ("queries.jsonl", '{"_id": "q1", "text": "  "}\n', r"query 'q1' has empty text"),
        ("qrels.tsv", "query-id\tcorpus-id\tscore\nq1\td1\n", r"qrels.tsv, line 2: expected 3 tab-separated"),
        ("qrels.tsv", "q1\td1\t1\nq2\td2\thigh\n", r"line 2: score 'high' is not an integer"),
        ("qrels.tsv", "query-id\tcorpus-id\tscore\n", r"no judgements found"),
        ("qrels.tsv", "q1\td1\t1\nq404\td2\t1\n", r"1 query ids are not in queries.jsonl"),
    ],
)
def test_malformed_files_are_named(beir_dir: Path, file: str, content: str, message: str) -> None:
    (beir_dir / file).write_text(content)
    with pytest.raises(InvalidInput, match=message):
        load_beir(beir_dir)


@pytest.mark.parametrize("missing", ["corpus.jsonl", "queries.jsonl", "qrels.tsv"])
def test_missing_file_is_named(beir_dir: Path, missing: str) -> None:
    (beir_dir / missing).unlink()
    with pytest.raises(InvalidInput, match=rf"{missing}: file not found"):
        load_beir(beir_dir)


def test_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="dataset folder not found"):
        load_beir(tmp_path / "nope")


def test_another_qrels_file_picks_the_split_and_keeps_the_corpus(beir_dir: Path, tmp_path: Path) -> None:
    train = tmp_path / "qrels_train.tsv"
    train.write_text("query-id\tcorpus-id\tscore\nq9\td2\t1\n")
    ds = load_beir(beir_dir, train)
    assert list(ds.queries) == ["q9"] and ds.qrels == {"q9": {"d2": 1}}
    assert ds.content_hash == load_beir(beir_dir).content_hash  # the same cached index answers
    with pytest.raises(InvalidInput, match="file not found"):
        load_beir(beir_dir, tmp_path / "nope.tsv")


def test_musique_split_follows_the_committed_held_out_list(tmp_path: Path) -> None:
    import json
    from importlib import resources

    from groundsearch.evaluation.runner import retrieval_split

    listed = resources.files("groundsearch.evaluation.data").joinpath("musique_heldout.txt").read_text("utf-8")
    held = [line.strip() for line in listed.splitlines() if line.strip() and not line.startswith("#")][:2]
    folder = tmp_path / "hipporag_musique"
    folder.mkdir()
    (folder / "corpus.jsonl").write_text(json.dumps({"_id": "p1", "title": "t", "text": "x"}) + "\n")
    ids = [*held, "2hop__not_held_out"]
    (folder / "queries.jsonl").write_text("".join(json.dumps({"_id": q, "text": f"question {q}"}) + "\n" for q in ids))
    (folder / "qrels.tsv").write_text("".join(f"{q}\tp1\t1\n" for q in ids))
    ds = load_beir(folder)
    assert list(retrieval_split(ds, "heldout").queries) == held
    assert list(retrieval_split(ds, "tune").queries) == ["2hop__not_held_out"]
    assert retrieval_split(ds, "all") is ds
    with pytest.raises(InvalidInput, match="no committed held-out list"):
        retrieval_split(_renamed(ds, "tiny"), "heldout")


def _renamed(ds, name: str):  # noqa: ANN001, ANN202
    import dataclasses

    return dataclasses.replace(ds, name=name)
