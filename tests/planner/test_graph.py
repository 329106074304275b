"""Personalized PageRank: hand-checkable cases and invariants."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings as hsettings, strategies as st

from groundsearch.query.graph import personalized_pagerank, rank_chunks
from groundsearch.types import EntityEdge


def test_no_seeds_no_scores() -> None:
    assert personalized_pagerank([EntityEdge("a", "b", 1)], []) == {}


def test_isolated_seed_keeps_all_mass() -> None:
    assert personalized_pagerank([], ["a"]) == {"a": pytest.approx(1.0)}


def test_two_node_graph_matches_closed_form() -> None:
    # r_a = 0.15 + 0.85 r_b, r_b = 0.85 r_a  =>  r_a = 0.15 / (1 - 0.85²)
    r = personalized_pagerank([EntityEdge("a", "b", 3)], ["a"], damping=0.85)
    assert r["a"] == pytest.approx(0.15 / (1 - 0.85**2), rel=1e-6)
    assert r["b"] == pytest.approx(0.85 * r["a"], rel=1e-6)


def test_default_damping_is_hipporags_half() -> None:
    # r_a = 0.5 + 0.5 r_b, r_b = 0.5 r_a  =>  r_a = 0.5 / (1 - 0.25) = 2/3
    r = personalized_pagerank([EntityEdge("a", "b", 3)], ["a"])
    assert r["a"] == pytest.approx(2 / 3, rel=1e-6) and r["b"] == pytest.approx(1 / 3, rel=1e-6)


def test_synonym_edges_join_names_whose_embeddings_agree() -> None:
    from groundsearch.query.graph import synonym_edges

    v = np.array([[1.0, 0.0], [0.96, 0.28], [0.0, 1.0]], dtype=np.float32)  # cos(a, b) = 0.96, cos(a, c) = 0
    edges = synonym_edges(["gpt-4", "gpt 4", "pagerank"], v)
    assert [(e.source, e.target) for e in edges] == [("gpt-4", "gpt 4")] and edges[0].weight == pytest.approx(0.96)
    assert synonym_edges(["x"], v[:1]) == []


def test_a_synonym_edge_carries_mass_across_spellings(tmp_path) -> None:
    """"Acme Corp" and "Acme Corporation" never co-occur; the synonym edge between them (their names embed
    alike) lets the walk from "Zeta Holdings" reach B's spelling directly, so B scores higher."""
    from groundsearch.engine import Engine
    from groundsearch.models.fake import HashEmbedder
    from groundsearch.query.graph import graph_hits
    from groundsearch.settings import Settings
    from groundsearch.types import CollectionSpec, SearchFilter

    class Spelling(HashEmbedder):  # "corporation" embeds as "corp"; everything else by hash
        def embed_queries(self, texts):
            return self._embed([t.replace("corporation", "corp") for t in texts])

    docs = {"a": "The ledger of Acme Corp lists Zeta Holdings as a client.",
            "b": "The founder of Acme Corporation was Ada Quill, born in Portsmouth.",
            "c": "A profile of Ada Quill mentions her stake in Zeta Holdings."}
    for name, text in docs.items():
        (tmp_path / f"{name}.md").write_text(f"# {name.upper()}\n\n{text}\n")
    settings = Settings(data_dir=tmp_path / "data", embedder="hash", collections=(CollectionSpec("docs", "documents"),))
    with Engine.open(settings, embedder=HashEmbedder(64)) as e:
        e.ingest([tmp_path / f"{n}.md" for n in docs], "docs")
        by_title = lambda hits: {e.store.hydrate([k])[k].item.title: s for k, s in hits}  # noqa: E731
        plain = by_title(graph_hits(e.store, ["zeta holdings"], SearchFilter(), 10))
        joined = by_title(graph_hits(e.store, ["zeta holdings"], SearchFilter(), 10, embedder=Spelling(64)))
    assert set(plain) == set(joined) == {"A", "B", "C"}
    assert joined["B"] / sum(joined.values()) > plain["B"] / sum(plain.values())

def test_near_neighbours_outrank_far_ones_and_weights_matter() -> None:
    edges = [EntityEdge("seed", "near", 5), EntityEdge("seed", "weak", 1), EntityEdge("near", "far", 1)]
    r = personalized_pagerank(edges, ["seed"])
    assert r["seed"] > r["near"] > r["weak"]
    assert r["near"] > r["far"]


def test_rank_chunks_sums_entity_scores() -> None:
    hits = rank_chunks([(1, "a"), (1, "b"), (2, "b"), (3, "z")], {"a": 0.5, "b": 0.2})
    assert [(key, round(score, 6)) for key, score in hits] == [(1, 0.7), (2, 0.2)]


names = st.sampled_from(list("abcdefg"))


@given(st.lists(st.builds(EntityEdge, names, names, st.floats(0.1, 10)), max_size=20),
       st.lists(names, min_size=1, max_size=3))
@hsettings(max_examples=200, deadline=None)
def test_scores_are_a_distribution(edges: list[EntityEdge], seeds: list[str]) -> None:
    r = personalized_pagerank(edges, seeds)
    assert sum(r.values()) == pytest.approx(1.0, abs=1e-6)
    assert all(v >= 0 for v in r.values())
    assert set(seeds) <= set(r)


def test_hubs_are_damped_below_specific_neighbours() -> None:
    from groundsearch.query.graph import damp_hubs

    # "hub" and "specific" are each linked once to both seeds; the hub is also linked to 30 other names
    edges = [EntityEdge("a", "hub", 1), EntityEdge("b", "hub", 1), EntityEdge("a", "specific", 1),
             EntityEdge("b", "specific", 1), *(EntityEdge("hub", f"x{i}", 1) for i in range(30))]
    raw = personalized_pagerank(edges, ["a", "b"])
    assert raw["hub"] > raw["specific"]  # the walk's bias towards degree
    damped = damp_hubs(raw, edges)
    assert damped["specific"] > damped["hub"]
    assert min(damped["a"], damped["b"]) > damped["specific"]  # seeds still lead
