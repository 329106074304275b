"""The labelled demo-corpus questions and their loader (``eval --answers-demo``)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from groundsearch.errors import InvalidInput
from groundsearch.evaluation.demo_answers import default_paths, load_questions

# recorded in evaluation/data/README.md when the held-out half was committed alone (ec6d174)
HELDOUT_SHA256 = "73d545c9bb9e295022fdd657471047ba5959ac565abe9c97732af3b196d9016e"


def test_the_held_out_half_is_the_one_committed_blind() -> None:
    heldout = next(p for p in default_paths() if p.name == "demo-answers-heldout.jsonl")
    assert hashlib.sha256(heldout.read_bytes()).hexdigest() == HELDOUT_SHA256


def test_shipped_halves_load_disjoint_with_both_kinds() -> None:
    rows = load_questions(default_paths())
    splits = {r["split"] for r in rows}
    assert splits == {"demo-tune", "demo-heldout"}
    for split in splits:
        mine = [r for r in rows if r["split"] == split]
        assert sum(bool(r["answers"]) for r in mine) >= 15 and sum(not r["answers"] for r in mine) >= 5
    root = Path(__file__).resolve().parents[2]
    for r in rows:  # every gold file exists in the corpus the demo ingests
        assert r["source"] is None or (root / r["source"]).is_file()


@pytest.mark.parametrize("row", [
    {"id": "x", "question": "q?", "answers": ["a"], "source": None},  # answers without the file stating them
    {"id": "x", "question": "q?", "answers": [], "source": "README.md"},  # a file but nothing it states
    {"id": "x", "question": "q?", "answers": "a", "source": "README.md"},
    {"question": "q?", "answers": [], "source": None},
])
def test_a_malformed_row_names_its_line(tmp_path: Path, row: dict) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps({"id": "ok", "question": "q?", "answers": [], "source": None}) + "\n"
                    + json.dumps(row) + "\n", encoding="utf-8")
    with pytest.raises(InvalidInput, match=r"line 2"):
        load_questions([path])


def test_a_repeated_id_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    row = json.dumps({"id": "a", "question": "q?", "answers": [], "source": None})
    path.write_text(row + "\n" + row + "\n", encoding="utf-8")
    with pytest.raises(InvalidInput):
        load_questions([path])
