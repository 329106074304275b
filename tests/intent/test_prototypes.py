"""Tier 2: prototypes embedded once per embedder, cached on disk by model id; the real MiniLM on paraphrases."""

from __future__ import annotations


import numpy as np
import pytest

from groundsearch.models.fake import HashEmbedder
from groundsearch.query.intent.prototypes import PrototypeIndex, load_prototypes
from groundsearch.query.intent.rules import DomainVocab
from groundsearch.errors import ConfigError

VOCAB = DomainVocab(("docs", "releases", "papers"))


class CountingEmbedder(HashEmbedder):
    def __init__(self, dim=64, model_id=None):
        super().__init__(dim)
        if model_id:
            self.model_id = model_id
        self.embedded = 0

    def embed_queries(self, texts):
        self.embedded += len(texts)
        return super().embed_queries(texts)


def test_packaged_prototypes_are_many_and_cover_every_format_and_complexity():
    index = PrototypeIndex(HashEmbedder(16))
    protos = index.prototypes
    assert len(protos) >= 30
    assert {p.format for p in protos} == {"default", "table", "chart", "timeline", "graph"}
    assert {p.complexity for p in protos} == {"simple", "medium", "complex"}
    assert {p.chart_subtype for p in protos if p.format == "chart"} >= {"bar", "ranked-bar", "line", "tornado"}


def test_embedded_once_and_cached_on_disk_by_model_id(tmp_path):
    first = CountingEmbedder()
    index = PrototypeIndex(first, data_dir=tmp_path)
    assert first.embedded == len(index.prototypes) and index.cache_file.is_file()
    second = CountingEmbedder()
    again = PrototypeIndex(second, data_dir=tmp_path)
    assert second.embedded == 0 and np.array_equal(again.vectors, index.vectors)
    other_model = CountingEmbedder(model_id="hash-64-other-weights")
    PrototypeIndex(other_model, data_dir=tmp_path)
    assert other_model.embedded == len(index.prototypes)  # new weights: re-embedded, not read stale
    assert len(list((tmp_path / "intent-prototypes").glob("*.npy"))) == 2


def test_corrupt_cache_file_is_re_embedded(tmp_path):
    index = PrototypeIndex(CountingEmbedder(), data_dir=tmp_path)
    index.cache_file.write_bytes(b"garbage")
    fresh = CountingEmbedder()
    PrototypeIndex(fresh, data_dir=tmp_path)
    assert fresh.embedded > 0


def test_exact_prototype_text_matches_itself():
    index = PrototypeIndex(HashEmbedder(64))
    proto = index.prototypes[0]
    match = index.nearest(proto.query, VOCAB)
    assert match.prototype == proto and match.cosine == pytest.approx(1.0, abs=1e-5)


def test_malformed_prototype_file_names_the_line(tmp_path):
    with pytest.raises(ConfigError, match="line 2"):
        load_prototypes(b'{"query": "a", "format": "table", "chart_subtype": null, "domains": [], "complexity": "simple"}\n{oops\n')
    with pytest.raises(ConfigError, match="empty"):
        load_prototypes(b"\n")


@pytest.mark.slow
def test_real_minilm_maps_paraphrases_to_the_right_prototype(tmp_path):
    from groundsearch.models.onnx import MiniLMEmbedder

    index = PrototypeIndex(MiniLMEmbedder(threads=2), data_dir=tmp_path)
    cases = {
        "put the latest product launches into a table": ("table", ("releases",)),
        "explain what a vector embedding is": ("default", ()),
        "draw the network of organisations and the people linked to them": ("graph", ()),
        "chart how activity evolved over the months": ("chart", ()),
    }
    for query, (fmt, domains) in cases.items():
        match = index.nearest(query, VOCAB)
        assert match.prototype.format == fmt, (query, match)
        assert match.domains == domains, (query, match)
        assert 0.3 < match.cosine <= 1.0
    unrelated = index.nearest("the cat sat on the mat", VOCAB)
    assert unrelated.cosine < 0.8  # nothing unrelated clears the tier-2 gate
