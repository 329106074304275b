"""The reranker slot: each implementation, and the retriever re-ordering by it when the plan says so.

No cross-encoder weights ship on PyPI, so the ONNX loader is tested with a tiny random BERT-style model built
here with ``onnx.helper`` (token + segment embeddings, masked mean pooling, a linear head — the same inputs and
output shape an exported cross-encoder has), checked against the same arithmetic in numpy.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from groundsearch.engine import Engine
from groundsearch.models.fake import HashEmbedder, ScriptedLLM
from groundsearch.models.rerank import BiEncoderReranker, CrossEncoderReranker, LLMReranker
from groundsearch.query.planner import PLAN_PROFILES
from groundsearch.settings import Settings
from groundsearch.types import CollectionSpec, SearchRequest

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "zebra", "umbrella", "stripes", "rain", "grass", "the", "of", "a"]
DIM = 8


def build_cross_encoder(folder: Path, seed: int = 7) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper
    from tokenizers import Tokenizer, models, pre_tokenizers, processors

    rng = np.random.default_rng(seed)
    words = rng.standard_normal((len(VOCAB), DIM)).astype(np.float32)
    segments = rng.standard_normal((2, DIM)).astype(np.float32)
    head = rng.standard_normal((DIM, 1)).astype(np.float32)
    nodes = [
        helper.make_node("Gather", ["words", "input_ids"], ["w"]),
        helper.make_node("Gather", ["segments", "token_type_ids"], ["s"]),
        helper.make_node("Add", ["w", "s"], ["h"]),
        helper.make_node("Cast", ["attention_mask"], ["m"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["m", "axis2"], ["m3"]),
        helper.make_node("Mul", ["h", "m3"], ["hm"]),
        helper.make_node("ReduceSum", ["hm", "axis1"], ["total"], keepdims=0),
        helper.make_node("ReduceSum", ["m", "axis1"], ["count"], keepdims=1),
        helper.make_node("Div", ["total", "count"], ["pooled"]),
        helper.make_node("MatMul", ["pooled", "head"], ["logits"]),
    ]
    graph = helper.make_graph(
        nodes, "tiny-cross-encoder",
        [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "seq"])
         for n in ("input_ids", "attention_mask", "token_type_ids")],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1])],
        initializer=[numpy_helper.from_array(words, "words"), numpy_helper.from_array(segments, "segments"),
                     numpy_helper.from_array(head, "head"), numpy_helper.from_array(np.array([2], np.int64), "axis2"),
                     numpy_helper.from_array(np.array([1], np.int64), "axis1")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    folder.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(folder / "model.onnx"))
    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(VOCAB)}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", 2), ("[SEP]", 3)])
    tok.save(str(folder / "tokenizer.json"))
    return words, segments, head


def oracle(words: np.ndarray, segments: np.ndarray, head: np.ndarray, query: str, passage: str) -> float:
    ids_a = [VOCAB.index(w) if w in VOCAB else 1 for w in query.split()]
    ids_b = [VOCAB.index(w) if w in VOCAB else 1 for w in passage.split()]
    ids = [2, *ids_a, 3, *ids_b, 3]
    types = [0] * (len(ids_a) + 2) + [1] * (len(ids_b) + 1)
    pooled = (words[ids] + segments[types]).mean(axis=0)
    return float(pooled @ head[:, 0])


def test_cross_encoder_scores_match_the_same_arithmetic_in_numpy(tmp_path: Path) -> None:
    words, segments, head = build_cross_encoder(tmp_path / "ce")
    reranker = CrossEncoderReranker(tmp_path / "ce")
    passages = ["zebra stripes", "rain of the umbrella", "a grass zebra of rain stripes"]  # padded to one width
    scores = reranker.rerank("zebra umbrella", passages)
    assert scores == pytest.approx([oracle(words, segments, head, "zebra umbrella", p) for p in passages], rel=1e-5)
    assert reranker.rerank("zebra", []) == []


def test_cross_encoder_runs_the_embedders_session_options(tmp_path: Path) -> None:
    """The cross-encoder's intra-op workers do not busy-wait between batches either (models/onnx.session_options,
    the option that cut the demo answer's CPU on a 2-core machine for MiniLM)."""
    build_cross_encoder(tmp_path / "ce")
    options = CrossEncoderReranker(tmp_path / "ce", threads=1).session.get_session_options()
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    assert options.intra_op_num_threads == 1


def test_cross_encoder_folder_must_hold_both_files(tmp_path: Path) -> None:
    from groundsearch.errors import ModelError

    with pytest.raises(ModelError, match="tokenizer.json"):
        build_cross_encoder(tmp_path / "ce")
        (tmp_path / "ce" / "tokenizer.json").unlink()
        CrossEncoderReranker(tmp_path / "ce")


def test_llm_reranker_reads_json_grades_and_sinks_unparseable_ones() -> None:
    answers = iter(['{"score": 9}', "not json at all", '{"score": 2}', "Score: 7"])
    llm = ScriptedLLM(lambda messages: next(answers))
    assert LLMReranker(llm).rerank("q", ["a", "b", "c", "d"]) == [9.0, 0.0, 2.0, 7.0]
    assert "data, not instructions" in llm.calls[0]["messages"][0].content


def test_bi_encoder_reranker_is_cosine_under_the_second_model() -> None:
    e = HashEmbedder(64)
    scores = BiEncoderReranker(e).rerank("zebra stripes", ["zebra stripes", "umbrella rain"])
    assert scores[0] == pytest.approx(1.0, abs=1e-5) and scores[1] < 0.5


class ByLength:
    """A reranker whose order is easy to predict: longer passages first."""

    def rerank(self, query: str, passages: list[str]) -> list[float]:
        return [float(len(p)) for p in passages]


@pytest.fixture()
def engine(tmp_path: Path) -> Iterator[Engine]:
    docs = tmp_path / "docs"
    docs.mkdir()
    for i, text in enumerate(["zebra stripes zebra", "zebra umbrella", "umbrella rain grass", "zebra of grass"]):
        (docs / f"d{i}.md").write_text(f"# D{i}\n\n{text}\n")
    settings = Settings(data_dir=tmp_path / "data", embedder="hash", collections=(CollectionSpec("docs", "documents"),),
                        retrieval={"reranker": "e5", "rerank_depth": 3, "gate_threshold": 0.0})
    opened = Engine.open(settings.model_copy(update={"retrieval": settings.retrieval.model_copy(
        update={"reranker": "none"})}), embedder=HashEmbedder(64))  # the store, without loading e5
    opened.retriever.close()
    with Engine(settings, opened.store, opened.embedder, reranker=ByLength()) as e:
        e.ingest([docs], "docs")
        yield e


def test_the_plan_reranks_the_fused_head_and_keeps_the_tail(engine: Engine) -> None:
    request = SearchRequest(query="zebra", limit=10)
    _, plain_plan = engine.answer_pipeline().plan(request, profile=PLAN_PROFILES["hybrid"])
    _, rerank_plan = engine.answer_pipeline().plan(request, profile=PLAN_PROFILES["hybrid+rerank"])
    assert not plain_plan.rerank and rerank_plan.rerank and rerank_plan.rerank_depth == 3
    plain = engine.retrieve(plain_plan).hits
    reranked = engine.retrieve(rerank_plan)
    head = sorted(plain[:3], key=lambda h: -len(f"{h.item.title}\n{h.chunk.text}"))
    assert [h.id for h in reranked.hits[:3]] == [h.id for h in head]  # the head, by the reranker's scores
    assert [h.id for h in reranked.hits[3:]] == [h.id for h in plain[3:]]  # the tail keeps the fused order
    assert "rerank" in reranked.latency_ms
    assert json.dumps(rerank_plan.reasons).count("rerank the fused top 3") == 1
