"""A tiny BEIR folder written per test: six documents, three judged queries, one unjudged query."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

DOCS = [
    {"_id": "d1", "title": "Aspirin and heart attacks", "text": "Daily aspirin lowers the risk of myocardial infarction."},
    {"_id": "d2", "title": "Statins", "text": "Statins reduce cholesterol and cardiovascular events in adults."},
    {"_id": "d3", "title": "Vitamin D", "text": "Vitamin D supplements do not prevent fractures in older people."},
    {"_id": "d4", "title": "Sleep and memory", "text": "Sleep consolidates memory; deprivation impairs recall."},
    {"_id": "d5", "title": "Coffee", "text": "Coffee consumption is associated with lower mortality.", "metadata": {}},
    {"_id": 6, "title": "Exercise", "text": "Aerobic exercise improves memory in older adults."},
]
QUERIES = [
    {"_id": "q1", "text": "aspirin myocardial infarction risk"},
    {"_id": "q2", "text": "vitamin D fractures older people"},
    {"_id": "q3", "text": "memory improvement sleep exercise"},
    {"_id": "q9", "text": "unjudged query about coffee"},
]
QRELS = "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td3\t1\nq3\td4\t1\nq3\t6\t2\n"


@pytest.fixture
def beir_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "tiny_beir"
    folder.mkdir()
    (folder / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in DOCS))
    (folder / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUERIES))
    (folder / "qrels.tsv").write_text(QRELS)
    return folder
