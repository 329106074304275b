"""How the embedded keyword index's schema and queries are built (pure: no index is opened here).

Queries are built programmatically (``term_query`` per analysed term, OR-ed) — never ``parse_query`` —
so no character of user text can become syntax. Filters are compiled into the same query as ``MUST`` /
``MUST_NOT`` clauses on raw fields, wrapped in a zero-score ``const_score_query`` so they restrict the match
set without changing BM25. Split from ``keyword_tantivy.py`` (the index and its partitions), which re-exports
these names.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import tantivy

from ..errors import StoreError
from ..types import SearchFilter
from .sqlite_schema import casefold_value

__all__ = ["FIELD_SEP", "SCHEMA", "build_schema", "compile_filter", "compile_query", "field_term", "inert_clauses"]

FIELD_SEP = "\x1f"  # unit separator: cannot occur in a field name typed in TOML, so name/value stay apart


def field_term(name: str, value: object) -> str:
    """The raw term a field value is indexed and filtered under (casefolded, literal)."""
    return f"{name}{FIELD_SEP}{casefold_value(value)}"


def build_schema() -> tantivy.Schema:
    """Every field is stored: a partition is written anew from its own documents when a batch deletes from it
    (``keyword_tantivy._expunge``), without asking the store for them again."""
    sb = tantivy.SchemaBuilder()
    sb.add_unsigned_field("key", stored=True, indexed=True, fast=True)
    # "freq" keeps term frequencies for BM25 but no positions: no phrase queries are ever built.
    sb.add_text_field("body", stored=True, tokenizer_name="whitespace", index_option="freq")
    for name in ("item_id", "collection", "status", "tenant", "fv"):
        sb.add_text_field(name, stored=True, tokenizer_name="raw", index_option="basic")
    sb.add_unsigned_field("superseded", stored=True, indexed=True)
    sb.add_integer_field("date", stored=True, indexed=True, fast=True)
    return sb.build()


SCHEMA = build_schema()


@lru_cache(maxsize=1 << 16)
def _term_query(term: str) -> tantivy.Query:
    """One analysed term's BM25 query, built once per distinct term (LRU, 64k terms).

    A query is an immutable description (field + term), valid for every index of this schema — the only
    schema a keyword index is opened with (``FORMAT`` guards it). Building one through pyo3 was ~0.7 µs,
    most of the query-building cost of a typical 9-term query.
    """
    return tantivy.Query.term_query(SCHEMA, "body", term, index_option="freq")


def compile_filter(schema: tantivy.Schema, f: SearchFilter, drop: frozenset[str] = frozenset()) -> tantivy.Query | None:
    """The filter as one zero-score query (``MUST`` / ``MUST_NOT`` clauses on raw and fast fields).

    Values are terms, not text to parse, so ``%``, quotes or ``field:`` in them only ever match literally.
    ``drop`` names clauses known not to exclude any document (see :func:`inert_clauses`); ``None`` means
    no restriction remains.
    """
    Q, Occ = tantivy.Query, tantivy.Occur
    if f.review_statuses or f.review_due_before is not None:
        # the index holds no review dates; the store resolves those parts to item ids first (never drop them)
        raise StoreError("review filters must be resolved to item ids before the keyword index sees them")
    if not f.statuses or any(not ff.values for ff in f.fields):
        return Q.empty_query()
    clauses: list[tuple[tantivy.Occur, tantivy.Query]] = []
    if "status" not in drop:
        clauses.append((Occ.Must, Q.term_set_query(schema, "status", list(f.statuses))))
    if f.collections and "collection" not in drop:
        clauses.append((Occ.Must, Q.term_set_query(schema, "collection", list(f.collections))))
    if f.date_from is not None or f.date_to is not None:
        lower = None if f.date_from is None else f.date_from.toordinal()
        upper = None if f.date_to is None else f.date_to.toordinal()
        clauses.append((Occ.Must, Q.range_query(schema, "date", tantivy.FieldType.Integer, lower, upper)))
    for ff in f.fields:
        clauses.append((Occ.Must, Q.term_set_query(schema, "fv", [field_term(ff.name, v) for v in ff.values])))
    if not f.include_superseded and "superseded" not in drop:
        clauses.append((Occ.Must, Q.term_query(schema, "superseded", 0)))
    if f.tenant is not None and "tenant" not in drop:
        clauses.append((Occ.Must, Q.term_query(schema, "tenant", f.tenant)))
    if f.item_ids:
        clauses.append((Occ.Must, Q.term_set_query(schema, "item_id", list(f.item_ids))))
    if f.exclude_item_ids:
        clauses.append((Occ.MustNot, Q.term_set_query(schema, "item_id", list(f.exclude_item_ids))))
    if not clauses:
        return None
    if all(occ == Occ.MustNot for occ, _ in clauses):
        clauses.append((Occ.Must, Q.all_query()))  # a purely negative boolean query matches nothing
    return Q.const_score_query(Q.boolean_query(clauses), 0.0)


def inert_clauses(searcher: tantivy.Searcher, f: SearchFilter) -> frozenset[str]:
    """Filter clauses that cannot exclude any indexed document, judged from the term dictionary.

    Why: tantivy's block-max WAND only prunes a pure OR of terms. Any ``MUST`` filter turns a query into
    an exhaustive scan of every matching document — measured ~20× slower at 100k chunks. The default
    filter (published, not superseded) excludes nothing in most stores, so dropping such clauses keeps the
    common case on the fast path. Term statistics still count deleted-but-unmerged documents, so the
    test errs on the side of keeping a clause; it never drops one that matters.
    """
    drop = set()
    if {t for t, _ in searcher.terms_with_prefix("status", "")} <= set(f.statuses):
        drop.add("status")
    if not f.include_superseded and searcher.doc_freq("superseded", 1) == 0:
        drop.add("superseded")
    # limit: one term beyond the allowed set already proves the clause matters (stores with many tenants)
    wanted = set(f.collections)
    if wanted and {t for t, _ in searcher.terms_with_prefix("collection", "", limit=len(wanted) + 1)} <= wanted:
        drop.add("collection")
    if f.tenant is not None and {t for t, _ in searcher.terms_with_prefix("tenant", "", limit=2)} <= {f.tenant}:
        drop.add("tenant")
    return frozenset(drop)


def compile_query(
    schema: tantivy.Schema, terms: Sequence[str], f: SearchFilter, drop: frozenset[str] = frozenset(),
    boosts: Sequence[float] | None = None,
) -> tantivy.Query:
    """BM25 over the distinct ``terms`` (OR-ed), restricted by the filter.

    ``boosts`` (one per distinct term, see :func:`~groundsearch.store.keyword_scope.idf_boosts`) rescales each
    term's score; a term boosted by 0 is left out. ``None`` scores with the index's own statistics."""
    Q, Occ = tantivy.Query, tantivy.Occur
    distinct = list(dict.fromkeys(terms))
    if boosts is not None:
        clauses = [Q.boost_query(_term_query(t), w) for t, w in zip(distinct, boosts) if w > 0]
    else:
        clauses = [_term_query(t) for t in distinct]
    if not clauses:
        return Q.empty_query()
    union = Q.boolean_query([(Occ.Should, c) for c in clauses])
    restriction = compile_filter(schema, f, drop)
    return union if restriction is None else Q.boolean_query([(Occ.Must, union), (Occ.Must, restriction)])
