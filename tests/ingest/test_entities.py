"""Entity extraction: deterministic, normalised, product-like names and multi-word phrases."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from groundsearch.ingest.entities import MAX_ENTITIES_PER_CHUNK, extract_entities, normalize_entity, record_entities
from groundsearch.types import CollectionSpec


def test_phrases_products_and_acronyms() -> None:
    text = ("The Reciprocal Rank Fusion method beat BM25 on SciFact. OpenAI released GPT-4 and "
            "Meta released Llama-3.1; PostgreSQL with pgVector also ran. Search is fun.")
    found = extract_entities(text)
    for name in ("reciprocal rank fusion", "bm25", "scifact", "openai", "gpt-4", "llama-3.1", "postgresql", "pgvector"):
        assert name in found, name
    assert "search" not in found  # a lone capitalised sentence start is not an entity
    assert "the reciprocal rank fusion" not in found


def test_multiword_names_with_connectors_and_normalisation() -> None:
    assert "bank of america" in extract_entities("She joined Bank of America in 2020.")
    assert normalize_entity("  New\u00a0York   Times, ") == "new york times"
    assert extract_entities("OpenAI and openai and OPENAI") .count("openai") == 1


def test_stop_acronyms_and_plain_numbers_are_ignored() -> None:
    assert extract_entities("OK so 2024 was fine in the US.") == ()


@given(st.text(max_size=400))
def test_extraction_is_deterministic_bounded_and_normalised(text: str) -> None:
    first = extract_entities(text)
    assert first == extract_entities(text)
    assert len(first) <= MAX_ENTITIES_PER_CHUNK and len(set(first)) == len(first)
    assert all(e == normalize_entity(e) and e for e in first)


def test_record_entities_take_keyword_and_list_fields_but_not_versions(specs: dict[str, CollectionSpec]) -> None:
    fields = {"id": "r1", "product": "Groundsearch", "version": "1.0", "tags": ("search", "v2")}
    names = record_entities(fields, specs["releases"], "Works with Tantivy and HNSW.")
    assert names[:2] == ("groundsearch", "search")
    assert "r1" not in names and "1.0" not in names and "v2" not in names
    assert "tantivy" in names and "hnsw" in names
