"""The graph leg: Personalized PageRank over entity co-occurrence, seeded from the query's entities.

Keyword and vector legs find chunks that *say* what the query says. The graph leg finds chunks about
entities that keep company with the query's entities (HippoRAG, Gutiérrez et al. 2024): a comparison
of "pgvector vs HNSW" reaches chunks on "ivfflat" because the three co-occur. Only the neighbourhood of
the seeds is fetched (two hops, bounded), so the walk stays small whatever the corpus size.

As in HippoRAG, names that mean the same thing are joined by synonym edges: two entities of the walked
subgraph whose names embed to a cosine >= 0.8 ("American Psychological Association" / "the APA's"
spellings, "GPT-4" / "GPT 4") get an edge, so the walk crosses spellings that never co-occur.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from ..models.base import Embedder
from ..store.base import Store
from ..types import EntityEdge, Hit, SearchFilter

__all__ = ["NameVectors", "damp_hubs", "graph_hits", "neighbourhood", "personalized_pagerank", "rank_chunks", "synonym_edges"]

# HippoRAG's damping: with restarts to the seeds half the mass returns to them each step, so scores fall
# by about half per hop — the walk stays local to the question's entities (0.85, PageRank's own, lets a
# two-hop subgraph's hubs take over).
DAMPING = 0.5
ITERATIONS = 200  # an upper bound: the error shrinks by the damping each step (0.5: 1e-9 in ~30)
TOLERANCE = 1e-9
EDGES_PER_HOP = 200
TOP_ENTITIES = 20
SYNONYM_COSINE = 0.8  # HippoRAG's synonymy threshold on entity-name embeddings
SYNONYM_CANDIDATES = 50  # names compared per query (embedding them is the leg's main cost): the seeds and the best entities


def personalized_pagerank(
    edges: Sequence[EntityEdge],
    seeds: Sequence[str],
    *,
    damping: float = DAMPING,
    iterations: int = ITERATIONS,
) -> dict[str, float]:
    """PageRank on the undirected weighted graph ``edges``, restarting to ``seeds`` (uniformly).

    Power iteration ``r ← (1-d)·p + d·(Wᵀ r)`` with ``W`` the row-normalised weight matrix; a node with
    no edges gives its mass back to the seeds (so total mass stays 1). Seeds missing from the graph
    still count in ``p``: a seed nobody co-occurs with simply keeps its own restart mass.
    Returns entity → score, summing to 1; empty when there are no seeds.
    """
    seeds = list(dict.fromkeys(seeds))
    if not seeds:
        return {}
    nodes = list(dict.fromkeys([*seeds, *(e.source for e in edges), *(e.target for e in edges)]))
    index = {n: i for i, n in enumerate(nodes)}
    n = len(nodes)
    w = np.zeros((n, n), dtype=np.float64)
    for e in edges:
        if e.source == e.target or e.weight <= 0:
            continue
        i, j = index[e.source], index[e.target]
        w[i, j] += e.weight
        w[j, i] += e.weight
    out_weight = w.sum(axis=1)
    dangling = out_weight == 0
    w[~dangling] /= out_weight[~dangling, None]
    p = np.zeros(n)
    p[[index[s] for s in seeds]] = 1.0 / len(seeds)
    r = p.copy()
    for _ in range(iterations):
        nxt = (1 - damping) * p + damping * (w.T @ r + r[dangling].sum() * p)
        if np.abs(nxt - r).sum() < TOLERANCE:
            r = nxt
            break
        r = nxt
    return {node: float(r[i]) for i, node in enumerate(nodes)}


def neighbourhood(store: Store, seeds: Sequence[str], f: SearchFilter, *, per_hop: int = EDGES_PER_HOP) -> list[EntityEdge]:
    """Edges within two hops of ``seeds``: the seeds' heaviest edges, then their neighbours' heaviest."""
    first = store.entity_edges(list(seeds), f, per_hop)
    frontier = sorted({x for e in first for x in (e.source, e.target)} - set(seeds))
    second = store.entity_edges(frontier, f, per_hop) if frontier else []
    unique: dict[tuple[str, str], EntityEdge] = {}
    for e in [*first, *second]:
        unique.setdefault(tuple(sorted((e.source, e.target))), e)  # type: ignore[arg-type]
    return list(unique.values())


def rank_chunks(mentions: Sequence[tuple[int, str]], scores: Mapping[str, float],
                ids: Callable[[Sequence[int]], Mapping[int, str]] | None = None) -> list[Hit]:
    """Chunks (``(key, entity)`` mentions) scored by the summed PageRank of the entities they mention.

    Ties go by the names a chunk mentions, then by chunk id (``ids`` looks them up, for tied chunks only), then
    by key. Not by key alone: a key is the order of ingest, so a file re-ingested (its chunks get new keys)
    would flip its ties against every other file's, and a store with that history — or the other backend —
    would rank unlike a fresh build of the same files. Names and ids are the content's."""
    total: dict[int, float] = {}
    names: dict[int, list[str]] = {}
    for key, entity in mentions:
        total[key] = total.get(key, 0.0) + scores.get(entity, 0.0)
        names.setdefault(key, []).append(entity)
    rank = {c: (-total[c], tuple(sorted(names[c]))) for c in total}
    alike = Counter(rank.values())
    tied = [c for c in total if alike[rank[c]] > 1 and total[c] > 0]
    id_of = ids(tied) if ids is not None and tied else {}
    order = sorted(total, key=lambda c: (*rank[c], id_of.get(c, ""), c))
    return [(c, total[c]) for c in order if total[c] > 0]


def damp_hubs(scores: Mapping[str, float], edges: Sequence[EntityEdge]) -> dict[str, float]:
    """Degree-normalised PageRank: mass divided by the entity's weighted degree in the walked subgraph.

    On an undirected graph a plain random walk settles with mass proportional to degree, so raw PPR
    ranks hubs ("pypi", "arxiv", linked to everything) first whatever the seeds. Dividing by degree
    leaves what proximity to the seeds adds (the sweep score of Andersen, Chung & Lang, FOCS 2006). Seeds
    keep their restart mass, so they and their specific neighbours lead.
    """
    degree: dict[str, float] = {}
    for e in edges:
        if e.source != e.target and e.weight > 0:
            degree[e.source] = degree.get(e.source, 0.0) + e.weight
            degree[e.target] = degree.get(e.target, 0.0) + e.weight
    return {name: s / max(1.0, degree.get(name, 0.0)) for name, s in scores.items()}


def synonym_edges(names: Sequence[str], vectors: np.ndarray, threshold: float = SYNONYM_COSINE) -> list[EntityEdge]:
    """An edge (weight = cosine) between every two ``names`` whose unit ``vectors`` reach ``threshold``."""
    if len(names) < 2:
        return []
    sims = np.asarray(vectors, dtype=np.float32) @ np.asarray(vectors, dtype=np.float32).T
    i, j = np.nonzero(np.triu(sims >= threshold, k=1))
    return [EntityEdge(names[a], names[b], float(sims[a, b])) for a, b in zip(i.tolist(), j.tolist())]


def graph_hits(store: Store, seeds: Sequence[str], f: SearchFilter, limit: int, *,
               embedder: Embedder | None = None) -> list[Hit]:
    """The graph leg: walk from ``seeds`` and return up to ``limit`` chunks mentioning the top entities.

    With an ``embedder``, synonym edges join the seeds and the subgraph's entities (the best-scored
    ``SYNONYM_CANDIDATES`` of the first walk), and the walk runs again over the joined graph."""
    if not seeds:
        return []
    edges = neighbourhood(store, seeds, f)
    scores = damp_hubs(personalized_pagerank(edges, seeds), edges)
    if embedder is not None and edges:
        best = sorted(scores, key=lambda e: (-scores[e], e))[:SYNONYM_CANDIDATES]
        names = list(dict.fromkeys([*seeds, *best]))
        joined = synonym_edges(names, embedder.embed_queries(names))
        if joined:
            edges = [*edges, *joined]
            scores = damp_hubs(personalized_pagerank(edges, seeds), edges)
    top = sorted(scores, key=lambda e: (-scores[e], e))[:TOP_ENTITIES]
    mentions = store.entity_chunks(top, f, limit * 4)
    return rank_chunks(mentions, scores, lambda keys: chunk_ids(store, keys))[:limit]


def chunk_ids(store: Store, keys: Sequence[int]) -> dict[int, str]:
    """Chunk key -> chunk id, for the keys the store still holds."""
    return {k: view.chunk.id for k, view in store.hydrate(list(keys)).items()}


# Entity names whose vectors are kept for the graph leg's synonym edges (~75 MB at 384 floats).
NAME_VECTOR_CACHE = 50_000


class NameVectors:
    """Entity-name vectors for synonym edges, memoised: the same names recur across queries' subgraphs."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._cache: dict[tuple[str, str], np.ndarray] = {}  # (caller scope, name)
        self._lock = threading.Lock()

    def scoped(self, scope: str) -> _ScopedNames:
        """The memo as one caller scope sees it: a name memoised by another tenant's walk is embedded again, or
        the graph leg's time would tell this caller that the name is in someone's graph."""
        return _ScopedNames(self, scope)

    def embed_queries(self, names: Sequence[str], scope: str = "") -> np.ndarray:
        keys = [(scope, n) for n in names]
        missing = [k for k in dict.fromkeys(keys) if k not in self._cache]
        if missing:
            vectors = self.embedder.embed_queries([n for _, n in missing])
            with self._lock:
                if len(self._cache) + len(missing) > NAME_VECTOR_CACHE:
                    self._cache.clear()
                self._cache.update(zip(missing, vectors))
        return np.stack([self._cache[k] if k in self._cache else self.embedder.embed_queries([k[1]])[0] for k in keys])


class _ScopedNames:
    def __init__(self, names: NameVectors, scope: str) -> None:
        self.names, self.scope = names, scope

    def embed_queries(self, names: Sequence[str]) -> np.ndarray:
        return self.names.embed_queries(names, self.scope)
