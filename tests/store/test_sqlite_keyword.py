"""The embedded keyword index against independent oracles: the shared analyser and a hand-written BM25."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import pytest

from groundsearch.store.sqlite import SQLiteStore
from groundsearch.store.text import BM25_B, BM25_K1, analyze, keyword_terms
from groundsearch.types import Chunk, Item, ItemWrite, SearchFilter
from tests.hits import chunk_ids, item_ids, scores_by_chunk

DOCS = {
    "d1": ("Graph Retrieval", "Personalized PageRank walks the entity graph; graphs of entities help retrieval."),
    "d2": ("Vectors", "Dense vectors and cosine similarity: HNSW graphs answer nearest-neighbour queries."),
    "d3": ("Keyword search", "BM25 ranks documents by term frequency, inverse document frequency and length."),
    "d4": ("Café naïve façade", "Unicode: ÉCOLE, straße, Ｆｕｌｌｗｉｄｔｈ letters, 3.14 and v2.0-rc1 versions!"),
    "d5": ("Notes", "graph graph graph retrieval retrieval"),
    "d6": ("Short", "PageRank"),
}


def _writes(heading: tuple[str, ...] = ("Guide", "Part one")) -> list[ItemWrite]:
    out = []
    for item_id, (title, text) in DOCS.items():
        item = Item(id=item_id, collection="docs", title=title, text=text, content_hash=item_id)
        chunk = Chunk(id=f"{item_id}#0", item_id=item_id, position=0, text=text, heading_path=heading)
        out.append(ItemWrite(item=item, chunks=(chunk,), vectors=None))
    return out


@pytest.fixture
def corpus(tmp_path: Path) -> SQLiteStore:
    store = SQLiteStore.open(tmp_path / "kw", dim=8)
    store.upsert(_writes())
    yield store
    store.close()


def _indexed_terms() -> dict[str, list[str]]:
    return {f"{i}#0": keyword_terms(title, ("Guide", "Part one"), text) for i, (title, text) in DOCS.items()}


def test_tantivy_indexes_exactly_the_shared_keyword_terms(corpus: SQLiteStore) -> None:
    searcher = corpus._keyword.searcher()
    in_index = dict(searcher.terms_with_prefix("body", ""))
    expected_df = Counter(t for terms in _indexed_terms().values() for t in set(terms))
    assert in_index == dict(expected_df)
    # the tricky document went through NFKC, casefolding, splitting on punctuation and stemming
    assert {"école", "strass", "fullwidth", "v2", "rc1", "3", "14", "unicod"} <= set(_indexed_terms()["d4#0"])


def _bm25_oracle(query: str) -> dict[str, float]:
    """BM25 as tantivy defines it, computed by hand from the shared terms.

    idf = ln(1 + (N − n + 0.5) / (n + 0.5)); per term idf · (k1 + 1) · tf / (tf + k1 · (1 − b + b · dl / avgdl)).
    Documents here are shorter than 40 terms, where tantivy's one-byte field-norm encoding is exact.
    """
    docs = _indexed_terms()
    n_docs = len(docs)
    avgdl = sum(len(t) for t in docs.values()) / n_docs
    df = Counter(t for terms in docs.values() for t in set(terms))
    scores: dict[str, float] = {}
    for chunk_id, terms in docs.items():
        tf = Counter(terms)
        score = 0.0
        for term in dict.fromkeys(analyze(query)):
            if tf[term] == 0:
                continue
            idf = math.log(1 + (n_docs - df[term] + 0.5) / (df[term] + 0.5))
            norm = BM25_K1 * (1 - BM25_B + BM25_B * len(terms) / avgdl)
            score += idf * (BM25_K1 + 1) * tf[term] / (tf[term] + norm)
        if score > 0:
            scores[chunk_id] = score
    return scores


@pytest.mark.parametrize("query", ["graph", "graph retrieval", "PageRank entity", "cosine BM25 length", "école"])
def test_bm25_scores_match_an_independent_computation(corpus: SQLiteStore, query: str) -> None:
    assert all(len(t) < 40 for t in _indexed_terms().values())
    expected = _bm25_oracle(query)
    page = corpus.keyword_search(query, SearchFilter(), 20)
    got = scores_by_chunk(corpus, page.hits)
    assert got.keys() == expected.keys()
    for chunk_id, score in expected.items():
        assert got[chunk_id] == pytest.approx(score, rel=1e-5), chunk_id
    assert chunk_ids(corpus, page.hits) == sorted(expected, key=lambda c: -expected[c])


def test_filters_do_not_change_scores(corpus: SQLiteStore) -> None:
    plain = scores_by_chunk(corpus, corpus.keyword_search("graph retrieval", SearchFilter(), 20).hits)
    narrowed = corpus.keyword_search("graph retrieval", SearchFilter(collections=("docs",), tenant=""), 20)
    assert scores_by_chunk(corpus, narrowed.hits) == plain


def test_repeated_query_terms_count_once(corpus: SQLiteStore) -> None:
    once = corpus.keyword_search("graph", SearchFilter(), 5).hits
    thrice = corpus.keyword_search("graph GRAPH graphs", SearchFilter(), 5).hits
    assert once == thrice


def test_default_filter_is_pruned_to_the_fast_path_only_when_it_excludes_nothing(corpus: SQLiteStore) -> None:
    from groundsearch.store.keyword_tantivy import inert_clauses

    searcher = corpus._keyword.searcher()
    assert inert_clauses(searcher, SearchFilter()) == {"status", "superseded"}
    assert inert_clauses(searcher, SearchFilter(collections=("docs",), tenant="")) == {
        "status", "superseded", "collection", "tenant"
    }
    corpus.upsert([ItemWrite(Item(id="ar", collection="other", title="A", text="graph", status="archived",
                                  superseded_by="d1"), (Chunk("ar#0", "ar", 0, "graph"),), None),
                   ItemWrite(Item(id="dr", collection="other", title="D", text="graph", status="draft",
                                  tenant="t"), (Chunk("dr#0", "dr", 0, "graph"),), None)])
    searcher = corpus._keyword.searcher()
    # a partition holds one tenant (keyword_scope.py), so the tenant clause never matters inside it
    assert inert_clauses(searcher, SearchFilter(collections=("docs",), tenant="")) == {"tenant"}
    assert not {"ar", "dr"} & set(item_ids(corpus, corpus.keyword_search("graph", SearchFilter(), 20).hits))


def test_keys_without_a_chunk_are_skipped_and_unknown_keys_never_hydrate(corpus: SQLiteStore) -> None:
    """tantivy can hand back a document without a key (``None``): the leg skips it. A key SQLite no longer
    holds (deleted between the two phases) is simply absent from ``hydrate``."""
    from groundsearch.store.sqlite import _hits

    keys, scores = corpus._keyword.search(analyze("graph retrieval"), SearchFilter(), 10, 0)
    assert len(keys) >= 2
    hits = _hits(keys, scores)
    assert hits == list(zip(keys, scores))
    assert all(c.endswith("#0") for c in chunk_ids(corpus, hits))
    mixed = _hits([keys[0], None, keys[1]], [3.0, 2.0, 1.0])
    assert mixed == [(keys[0], 3.0), (keys[1], 1.0)]
    unknown = max(keys) + 1000
    assert set(corpus.hydrate([keys[0], unknown])) == {keys[0]}
