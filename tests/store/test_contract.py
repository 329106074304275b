"""The Store contract: every backend passes these, unchanged (see ``conftest.BACKENDS``)."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from groundsearch.models.fake import HashEmbedder
from groundsearch.store.base import Store
from groundsearch.types import Chunk, FieldFilter, Item, ItemWrite, SearchFilter
from tests.hits import chunk_ids, item_ids

EMB = HashEmbedder(dim=32)
ANY_STATUS = SearchFilter(statuses=("draft", "published", "archived"), include_superseded=True)


def write(
    item_id: str,
    *texts: str,
    collection: str = "docs",
    title: str | None = None,
    status: str = "published",
    date: dt.date | None = None,
    fields: dict | None = None,
    tenant: str = "",
    superseded_by: str | None = None,
    content_hash: str | None = None,
    source: str | None = None,
    entities: tuple[tuple[str, ...], ...] | None = None,
    embed: bool = True,
) -> ItemWrite:
    texts = texts or (f"text of {item_id}",)
    item = Item(
        id=item_id,
        collection=collection,
        title=title if title is not None else f"Title {item_id}",
        text="\n\n".join(texts),
        url=f"https://example.org/{item_id}",
        date=date,
        fields=fields or {},
        tenant=tenant,
        status=status,  # type: ignore[arg-type]
        superseded_by=superseded_by,
        content_hash=content_hash or f"hash-{item_id}",
        source=source,
    )
    chunks = tuple(
        Chunk(
            id=f"{item_id}#{i}",
            item_id=item_id,
            position=i,
            text=t,
            heading_path=("Doc", f"Section {i}"),
            entities=entities[i] if entities else (),
        )
        for i, t in enumerate(texts)
    )
    vectors = EMB.embed_passages([c.text for c in chunks]) if embed else None
    return ItemWrite(item=item, chunks=chunks, vectors=vectors)


def kw_ids(store: Store, query: str, filter: SearchFilter = SearchFilter(), limit: int = 50, offset: int = 0) -> list[str]:
    return item_ids(store, store.keyword_search(query, filter, limit, offset).hits)


def vec_ids(store: Store, text: str, filter: SearchFilter = SearchFilter(), limit: int = 50, offset: int = 0) -> list[str]:
    vector = EMB.embed_queries([text])[0]
    return item_ids(store, store.vector_search(vector, filter, limit, offset).hits)


# ------------------------------------------------------------------------------------------------ writes


def test_upsert_then_get_round_trips_every_field(store: Store) -> None:
    w = write(
        "r1",
        "Chunk one about vectors.",
        "Chunk two about keywords.",
        collection="releases",
        title="Release r1",
        date=dt.date(2025, 3, 1),
        fields={"product": "Acme", "authors": ("Ann", "Bob"), "stars": 12},
        tenant="t1",
        source="file.jsonl",
    )
    store.upsert([w])
    got = store.get("r1")
    assert got is not None
    assert (got.id, got.collection, got.title, got.url, got.date, got.tenant) == (
        "r1", "releases", "Release r1", "https://example.org/r1", dt.date(2025, 3, 1), "t1"
    )
    assert got.fields["product"] == "Acme"
    assert tuple(got.fields["authors"]) == ("Ann", "Bob")
    assert got.fields["stars"] == 12
    assert got.content_hash == "hash-r1" and got.source == "file.jsonl" and got.status == "published"
    views = store.item_chunks("r1")
    assert [v.chunk.text for v in views] == ["Chunk one about vectors.", "Chunk two about keywords."]
    assert views[1].chunk.heading_path == ("Doc", "Section 1")
    assert store.get_many(["r1", "missing"]).keys() == {"r1"}
    hydrated = store.chunks(["r1#1", "nope#0"])
    assert set(hydrated) == {"r1#1"} and hydrated["r1#1"].item.id == "r1"
    vecs = store.item_vectors("r1")
    assert vecs.shape == (2, 32)
    np.testing.assert_allclose(vecs, w.vectors, atol=1e-5)
    assert store.get("missing") is None


def test_reupsert_replaces_chunks_everywhere(store: Store) -> None:
    store.upsert([write("a", "alpha apples", "alpha avocados", "alpha apricots")])
    store.upsert([write("a", "beta bananas")])
    assert kw_ids(store, "alpha") == []
    assert kw_ids(store, "bananas") == ["a"]
    assert set(store.chunks(["a#0", "a#1", "a#2"])) == {"a#0"}
    assert store.count_chunks() == 1
    hits = store.vector_search(EMB.embed_queries(["alpha apricots"])[0], SearchFilter(), 10).hits
    assert chunk_ids(store, hits) == ["a#0"]
    assert store.item_vectors("a").shape == (1, 32)


def test_hydrate_resolves_leg_keys_and_never_a_stale_one(store: Store) -> None:
    store.upsert([write("h1", "hydrate me please", "second chunk about hydration"), write("h2", "unrelated words")])
    hits = store.keyword_search("hydrate", SearchFilter(), 10).hits
    old = [key for key, _ in hits]
    views = store.hydrate(old)
    assert sorted(v.chunk.id for v in views.values()) == ["h1#0", "h1#1"]
    assert all(views[key].item.title == "Title h1" for key in old)
    assert store.hydrate([]) == {}
    store.upsert([write("h1", "hydrate me again")])  # re-upsert: new chunks, new keys; the old keys are gone
    assert store.hydrate(old) == {}
    new = [key for key, _ in store.keyword_search("hydrate", SearchFilter(), 10).hits]
    assert len(new) == 1 and not set(new) & set(old)
    store.delete(["h1"])
    assert store.hydrate(new) == {}


def test_delete_removes_every_trace(store: Store) -> None:
    store.upsert([
        write("gone", "zebra stripes", content_hash="h-gone", entities=(("zebra", "savanna"),)),
        write("kept", "lion mane", entities=(("lion", "savanna"),)),
    ])
    assert store.delete(["gone", "never-existed"]) == 1
    assert store.get("gone") is None
    assert kw_ids(store, "zebra") == []
    assert "gone" not in vec_ids(store, "zebra stripes")
    assert store.find_by_hash("h-gone") == []
    assert store.count() == 1 and store.count_chunks() == 1
    assert store.item_vectors("gone").shape[0] == 0
    assert store.entity_chunks(["zebra"], SearchFilter(), 10) == []
    assert all("zebra" not in (e.source, e.target) for e in store.entity_edges(["savanna"], SearchFilter(), 10))
    assert store.delete(["gone"]) == 0


def test_batch_upsert_is_atomic(store: Store) -> None:
    good = write("good", "fine text")
    bad = write("bad", "broken vector")
    bad = ItemWrite(item=bad.item, chunks=bad.chunks, vectors=np.ones((1, 7), dtype=np.float32))  # wrong dim
    with pytest.raises(Exception):
        store.upsert([good, bad])
    assert store.get("good") is None and store.count() == 0
    assert kw_ids(store, "fine") == []


def test_items_without_vectors_are_keyword_only(store: Store) -> None:
    store.upsert([write("nov", "plain keyword text", embed=False)])
    assert kw_ids(store, "keyword") == ["nov"]
    assert vec_ids(store, "plain keyword text") == []


def test_writes_survive_reopen(backend) -> None:
    store = backend.make()
    store.upsert([write("p", "persistent penguins")])
    store = backend.reopen(store)
    assert store.get("p") is not None
    assert kw_ids(store, "penguins") == ["p"]
    assert vec_ids(store, "persistent penguins")[:1] == ["p"]


# ------------------------------------------------------------------------------------------------ keyword leg


def test_keyword_ranks_by_bm25(store: Store) -> None:
    store.upsert([
        write("strong", "graph retrieval graph walks graph ranking"),
        write("weak", "a long text that mentions graph only once among many many other unrelated words here"),
        write("none", "nothing relevant at all"),
    ])
    assert kw_ids(store, "graph") == ["strong", "weak"]
    scores = [score for _, score in store.keyword_search("graph", SearchFilter(), 10).hits]
    assert scores[0] > scores[1] > 0


def test_keyword_matches_stems_and_ignores_case(store: Store) -> None:
    store.upsert([write("s", "Running RUNNERS ran quickly")])
    assert kw_ids(store, "runs") == ["s"]
    assert kw_ids(store, "RUNNING") == ["s"]


def test_keyword_searches_titles_too(store: Store) -> None:
    store.upsert([write("t", "body words only", title="Quokka handbook")])
    assert kw_ids(store, "quokka") == ["t"]


@pytest.mark.parametrize(
    "query",
    [
        "title:secret", "a AND NOT b", "\"unclosed quote", "NEAR(alpha beta)", "prefix*", "(group", "[1 TO 2]",
        "+must -mustnot", "^boost~2", "100%_\\", "'; DROP TABLE items; --", "collection:docs OR 1=1", "{}", "*",
        "AND", "OR NOT", "\x00", "field:\"x\" && || !",
    ],
)
def test_query_syntax_in_user_text_is_never_syntax(store: Store, query: str) -> None:
    store.upsert([
        write("q1", "this is not a drill and we must act"),
        write("q2", "the secret title of docs"),
    ])
    page = store.keyword_search(query, SearchFilter(), 10)  # must not raise
    assert set(item_ids(store, page.hits)) <= {"q1", "q2"}
    assert store.count() == 2  # nothing was dropped


def test_operators_become_plain_terms(store: Store) -> None:
    # Titles are indexed too, so they must not contain "title" (the default "Title n" would match "title:drill").
    store.upsert([write("n", "this is not a drill", title="N"), write("o", "nothing here", title="O")])
    assert kw_ids(store, "NOT") == ["n"]  # the word, not the operator
    assert kw_ids(store, "drill*") == ["n"]
    assert kw_ids(store, "title:drill") == ["n"]  # "title" and "drill" as words


def test_empty_analysis_returns_no_hits(store: Store) -> None:
    store.upsert([write("x", "some words")])
    page = store.keyword_search("the of and", SearchFilter(), 10)
    assert page.hits == () and page.has_more is False


# ------------------------------------------------------------------------------------------------ vector leg


def test_vector_search_returns_nearest_first(store: Store) -> None:
    store.upsert([write("cats", "cats purr softly"), write("dogs", "dogs bark loudly"), write("mix", "cats and dogs")])
    hits = store.vector_search(EMB.embed_queries(["cats purr softly"])[0], SearchFilter(), 3).hits
    assert item_ids(store, hits)[0] == "cats"
    assert hits[0][1] == pytest.approx(1.0, abs=1e-3)
    scores = [score for _, score in hits]
    assert scores == sorted(scores, reverse=True)


def test_vector_search_rejects_wrong_dimension(store: Store) -> None:
    store.upsert([write("v", "vector")])
    with pytest.raises(Exception):
        store.vector_search(np.ones(5, dtype=np.float32), SearchFilter(), 3)


# ------------------------------------------------------------------------------------------------ status


def test_status_and_supersession_excluded_by_default(store: Store) -> None:
    store.upsert([
        write("pub", "shared topic words"),
        write("draft", "shared topic words", status="draft"),
        write("arch", "shared topic words", status="archived"),
        write("old", "shared topic words", superseded_by="pub"),
    ])
    for ids in (kw_ids(store, "topic"), vec_ids(store, "shared topic words")):
        assert set(ids) == {"pub"}
    assert store.count(SearchFilter()) == 1
    assert set(kw_ids(store, "topic", SearchFilter(statuses=("published", "draft")))) == {"pub", "draft"}
    assert set(kw_ids(store, "topic", SearchFilter(statuses=("published", "archived")))) == {"pub", "arch"}
    assert set(kw_ids(store, "topic", SearchFilter(include_superseded=True))) == {"pub", "old"}
    assert set(vec_ids(store, "shared topic words", ANY_STATUS)) == {"pub", "draft", "arch", "old"}
    assert store.count() == 4  # no filter: everything


# ------------------------------------------------------------------------------------------------ filters


@pytest.fixture
def catalog(store: Store) -> Store:
    store.upsert([
        write("r2024", "model release notes", collection="releases", date=dt.date(2024, 6, 1),
              fields={"product": "Acme", "version": "1.0"}),
        write("r2025", "model release notes", collection="releases", date=dt.date(2025, 6, 1),
              fields={"product": "Beta-Corp", "version": "2.0"}),
        write("p2025", "model release notes", collection="papers", date=dt.date(2025, 1, 15),
              fields={"authors": ("Ann Lee", "Bo Chen"), "venue": "SIGIR"}),
        write("tenant2", "model release notes", collection="releases", tenant="other",
              date=dt.date(2025, 7, 1), fields={"product": "Acme"}),
        write("doc", "model release notes", collection="docs"),
    ])
    return store


def both_legs(store: Store, f: SearchFilter) -> tuple[set[str], set[str]]:
    return set(kw_ids(store, "release", f)), set(vec_ids(store, "model release notes", f))


def test_filter_by_collection(catalog: Store) -> None:
    for ids in both_legs(catalog, SearchFilter(collections=("releases",))):
        assert ids == {"r2024", "r2025", "tenant2"}
    for ids in both_legs(catalog, SearchFilter(collections=("papers", "docs"))):
        assert ids == {"p2025", "doc"}


def test_filter_by_date_range_is_inclusive(catalog: Store) -> None:
    f = SearchFilter(date_from=dt.date(2025, 1, 15), date_to=dt.date(2025, 6, 1))
    for ids in both_legs(catalog, f):
        assert ids == {"r2025", "p2025"}  # undated items never match a date range
    for ids in both_legs(catalog, SearchFilter(date_from=dt.date(2025, 6, 2))):
        assert ids == {"tenant2"}


def test_filter_by_field_equality_and_membership_case_insensitive(catalog: Store) -> None:
    for ids in both_legs(catalog, SearchFilter(fields=(FieldFilter("product", ("acme",)),))):
        assert ids == {"r2024", "tenant2"}
    for ids in both_legs(catalog, SearchFilter(fields=(FieldFilter("product", ("ACME", "beta-corp")),))):
        assert ids == {"r2024", "r2025", "tenant2"}
    for ids in both_legs(catalog, SearchFilter(fields=(FieldFilter("authors", ("bo chen",)),))):
        assert ids == {"p2025"}
    both = SearchFilter(fields=(FieldFilter("product", ("acme",)), FieldFilter("version", ("1.0",))))
    for ids in both_legs(catalog, both):
        assert ids == {"r2024"}


def test_field_filter_values_are_literal(catalog: Store) -> None:
    for value in ("%", "_", "acm%", "a_me", "' OR '1'='1", "\\", "*"):
        for ids in both_legs(catalog, SearchFilter(fields=(FieldFilter("product", (value,)),))):
            assert ids == set(), value


def test_filter_by_tenant(catalog: Store) -> None:
    for ids in both_legs(catalog, SearchFilter(tenant="other")):
        assert ids == {"tenant2"}
    for ids in both_legs(catalog, SearchFilter(tenant="")):
        assert "tenant2" not in ids and len(ids) == 4
    assert catalog.count(SearchFilter(tenant="other")) == 1


def test_filter_by_item_ids(catalog: Store) -> None:
    for ids in both_legs(catalog, SearchFilter(item_ids=("r2024", "doc"))):
        assert ids == {"r2024", "doc"}
    for ids in both_legs(catalog, SearchFilter(exclude_item_ids=("r2024", "doc"))):
        assert ids == {"r2025", "p2025", "tenant2"}


def test_filtered_page_is_full_when_matches_exist(store: Store) -> None:
    writes = [
        write(f"c{i:03d}", f"common words number {i}", fields={"product": "rare" if i % 25 == 0 else "usual"},
              collection="releases")
        for i in range(300)
    ]
    store.upsert(writes)
    f = SearchFilter(fields=(FieldFilter("product", ("rare",)),))
    expected = {f"c{i:03d}" for i in range(0, 300, 25)}
    for search in (
        lambda off: store.keyword_search("common words", f, 10, off),
        lambda off: store.vector_search(EMB.embed_queries(["common words number 7"])[0], f, 10, off),
    ):
        first, second = search(0), search(10)
        assert len(first.hits) == 10 and first.has_more is True
        assert len(second.hits) == 2 and second.has_more is False
        assert set(item_ids(store, first.hits + second.hits)) == expected


def test_pagination_is_consistent(store: Store) -> None:
    store.upsert([write(f"d{i:02d}", f"pagination topic {'extra ' * i}") for i in range(23)])
    q = EMB.embed_queries(["pagination topic"])[0]
    for run in (
        lambda limit, off: store.keyword_search("pagination topic", SearchFilter(), limit, off),
        lambda limit, off: store.vector_search(q, SearchFilter(), limit, off),
    ):
        whole = chunk_ids(store, run(23, 0).hits)
        assert len(whole) == 23
        pages = [run(5, off) for off in range(0, 25, 5)]
        assert [c for p in pages for c in chunk_ids(store, p.hits)] == whole
        assert [p.has_more for p in pages] == [True, True, True, True, False]


# ------------------------------------------------------------------------------------------------ preview


def test_preview_prefers_title_matches_and_escapes_wildcards(store: Store) -> None:
    store.upsert([
        write("pg", "tuning guide", title="Postgres tuning"),
        write("gis", "maps", title="PostGIS basics"),
        write("body", "we post updates", title="Newsletter"),
        write("pct", "coverage", title="100% coverage"),
        write("snake", "names", title="snake_case names"),
        write("draft", "x", title="Postgres draft", status="draft"),
    ])
    hits = store.preview("post", SearchFilter(), 10)
    ids = [h.item_id for h in hits]
    assert set(ids[:2]) == {"pg", "gis"} and all(h.title_match for h in hits[:2])
    assert "draft" not in ids
    assert [h.item_id for h in store.preview("%", SearchFilter(), 10)] == ["pct"]
    assert [h.item_id for h in store.preview("_", SearchFilter(), 10)] == ["snake"]
    assert store.preview("\\", SearchFilter(), 10) == []
    assert len(store.preview("post", SearchFilter(), 1)) == 1


# ------------------------------------------------------------------------------------------------ lookups


def test_find_by_hash_and_source_hashes(store: Store) -> None:
    store.upsert([
        write("one", "same", content_hash="H", source="a.md"),
        write("two", "same", content_hash="H", source="b.md"),
        write("three", "other", content_hash="K", source="a.md"),
    ])
    assert {i.id for i in store.find_by_hash("H")} == {"one", "two"}
    assert store.find_by_hash("missing") == []
    assert store.source_hashes(["a.md", "zzz"], "docs", "") == {"a.md": {"one": "H", "three": "K"}}


def test_source_hashes_are_keyed_by_tenant_and_collection(store: Store) -> None:
    store.upsert([
        write("a", source="/kb/handbook.md"),
        write("b", source="/kb/handbook.md", tenant="acme"),
        write("c", source="/kb/handbook.md", collection="notes"),
        write("d", source="/kb/handbook.md", tenant="acme", collection="notes"),
    ])
    assert store.source_hashes(["/kb/handbook.md"], "docs", "") == {"/kb/handbook.md": {"a": "hash-a"}}
    assert store.source_hashes(["/kb/handbook.md"], "docs", "acme") == {"/kb/handbook.md": {"b": "hash-b"}}
    assert store.source_hashes(["/kb/handbook.md"], "notes", "acme") == {"/kb/handbook.md": {"d": "hash-d"}}
    assert store.source_hashes(["/kb/handbook.md"], "docs", "globex") == {}


def test_sources_under_is_a_literal_prefix_within_collection_and_tenant(store: Store) -> None:
    store.upsert([
        write("a", source="/kb/a.md"),
        write("b", source="/kb/sub/b.md"),
        write("c", source="/kb/sub/b.md"),  # two items of one file: one source
        write("d", source="/kbx/d.md"),  # shares the characters, not the folder
        write("e", source="/k%/e.md"),
        write("f", source="/kb/f.md", collection="notes"),
        write("g", source="/kb/g.md", tenant="acme"),
        write("h"),  # no source at all
    ])
    assert store.sources_under("/kb/", "docs") == ["/kb/a.md", "/kb/sub/b.md"]
    assert store.sources_under("/kb/", "docs", "acme") == ["/kb/g.md"]
    assert store.sources_under("/kb/", "notes") == ["/kb/f.md"]
    assert store.sources_under("/k_/", "docs") == [] and store.sources_under("/k%/", "docs") == ["/k%/e.md"]
    assert store.sources_under("/nowhere/", "docs") == []


def test_entity_graph(store: Store) -> None:
    store.upsert([
        write("e1", "openai released gpt", entities=(("openai", "gpt"),)),
        write("e2", "openai and anthropic", entities=(("openai", "anthropic"),)),
        write("e3", "openai gpt again", entities=(("openai", "gpt"),)),
    ])
    edges = store.entity_edges(["openai"], SearchFilter(), 10)
    weights = {frozenset((e.source, e.target)): e.weight for e in edges}
    assert weights == {frozenset(("openai", "gpt")): 2, frozenset(("openai", "anthropic")): 1}
    mentions = store.entity_chunks(["anthropic"], SearchFilter(), 10)
    assert [e for _, e in mentions] == ["anthropic"]
    assert [v.chunk.id for v in store.hydrate([k for k, _ in mentions]).values()] == ["e2#0"]
    terms = dict(store.top_terms(ANY_STATUS, 10))
    assert terms["openai"] == 3


def test_top_terms_count_only_what_the_filter_admits(store: Store) -> None:
    store.upsert([
        write("p1", "openai one", entities=(("openai",),)),
        write("p2", "openai two", entities=(("openai", "gpt"),)),
        write("t1", "acme secret", tenant="acme", entities=(("zephyr", "openai"),)),
        write("t2", "acme secret", tenant="acme", entities=(("zephyr",),)),
        write("d1", "unreleased", status="draft", entities=(("pangolin",),)),
        write("s1", "old", superseded_by="p1", entities=(("heron",),)),
    ])
    assert store.top_terms(SearchFilter(tenant=""), 10) == [("openai", 2), ("gpt", 1)]
    assert store.top_terms(SearchFilter(tenant="acme"), 10) == [("zephyr", 2), ("openai", 1)]
    assert store.top_terms(SearchFilter(tenant="acme"), 1) == [("zephyr", 2)]
    assert dict(store.top_terms(SearchFilter(), 10)) == {"openai": 3, "gpt": 1, "zephyr": 2}
    drafts = SearchFilter(tenant="", statuses=("published", "draft"), include_superseded=True)
    assert dict(store.top_terms(drafts, 10)) == {"openai": 2, "gpt": 1, "pangolin": 1, "heron": 1}
    assert dict(store.top_terms(ANY_STATUS, 10)) == {"openai": 3, "gpt": 1, "zephyr": 2, "pangolin": 1, "heron": 1}


def test_meta_persists(backend) -> None:
    store = backend.make()
    assert store.meta_get("embedder") is None
    store.meta_set("embedder", "minilm-abc")
    store.meta_set("embedder", "minilm-def")
    store = backend.reopen(store)
    assert store.meta_get("embedder") == "minilm-def"


# ------------------------------------------------------------------------------------------------ properties

_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=0, max_size=80)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(title=_text, body=_text, query=_text)
def test_property_round_trip_and_search_never_raises(store: Store, title: str, body: str, query: str) -> None:
    item_id = f"h{abs(hash((title, body))) % 10**9}"
    store.upsert([write(item_id, body or "x", title=title)])
    got = store.get(item_id)
    assert got is not None and got.title == title
    assert store.item_chunks(item_id)[0].chunk.text == (body or "x")
    store.keyword_search(query, SearchFilter(), 5)
    store.preview(query, SearchFilter(), 5)


# ------------------------------------------------------------------------------------------------ review cadence


@pytest.fixture
def reviewed(store: Store) -> Store:
    store.upsert([
        write("ok", "policy notes", fields={"review_status": "verified", "next_review_date": dt.date(2026, 9, 1)}),
        write("due", "policy notes", fields={"review_status": "Verified", "next_review_date": "2026-06-20"}),
        write("late", "policy notes", fields={"review_status": "flagged", "next_review_date": dt.date(2026, 5, 1)}),
        write("unset", "policy notes"),
        write("plain", "policy notes", fields={"review_status": "unverified"}),
        write("odd", "policy notes", fields={"next_review_date": "someday"}),
        write("other", "policy notes", tenant="t2",
              fields={"review_status": "verified", "next_review_date": dt.date(2026, 5, 1)}),
    ])
    return store


def review_legs(store: Store, f: SearchFilter) -> tuple[set[str], set[str], int]:
    return set(kw_ids(store, "policy", f)), set(vec_ids(store, "policy notes", f)), store.count(f)


def test_filter_by_review_status_counts_unreviewed_as_unverified(reviewed: Store) -> None:
    cases = {
        ("verified",): {"ok", "due"},
        ("flagged",): {"late"},
        ("unverified",): {"unset", "plain", "odd"},
        ("unverified", "flagged"): {"unset", "plain", "odd", "late"},
        ("verified", "unverified", "flagged"): {"ok", "due", "late", "unset", "plain", "odd"},
    }
    for statuses, expected in cases.items():
        kw, vec, n = review_legs(reviewed, SearchFilter(tenant="", review_statuses=statuses))
        assert kw == vec == expected, statuses
        assert n == len(expected)


def test_filter_by_review_due_date_is_inclusive_and_skips_undated(reviewed: Store) -> None:
    cases = {
        dt.date(2026, 4, 30): set(),
        dt.date(2026, 5, 1): {"late"},
        dt.date(2026, 6, 19): {"late"},
        dt.date(2026, 6, 20): {"late", "due"},
        dt.date(2030, 1, 1): {"late", "due", "ok"},  # never "unset" nor the unparseable "someday"
    }
    for before, expected in cases.items():
        kw, vec, n = review_legs(reviewed, SearchFilter(tenant="", review_due_before=before))
        assert kw == vec == expected, before
        assert n == len(expected)


def test_review_filters_combine_with_tenant_and_each_other(reviewed: Store) -> None:
    f = SearchFilter(tenant="t2", review_due_before=dt.date(2026, 6, 1))
    assert review_legs(reviewed, f) == ({"other"}, {"other"}, 1)
    f = SearchFilter(tenant="", review_due_before=dt.date(2026, 6, 30), review_statuses=("verified",))
    assert review_legs(reviewed, f) == ({"due"}, {"due"}, 1)
    f = SearchFilter(tenant="", review_due_before=dt.date(2026, 6, 30), review_statuses=("unverified",))
    assert review_legs(reviewed, f) == (set(), set(), 0)


def test_dated_mentions_and_browse_rows_admit_only_what_the_filter_does(store: Store) -> None:
    store.upsert([
        write("a", "x", "y", date=dt.date(2026, 1, 5), entities=(("rust", "wasm"), ("rust",)),
              fields={"review_status": "flagged", "next_review_date": dt.date(2026, 2, 1)}),
        write("b", "x", date=dt.date(2026, 1, 6), entities=(("rust",),)),
        write("undated", "x", entities=(("rust",),)),
        write("draft", "x", date=dt.date(2026, 1, 7), status="draft", entities=(("rust",),)),
        write("theirs", "x", date=dt.date(2026, 1, 8), tenant="t2", entities=(("rust",),)),
    ])
    mine = SearchFilter(tenant="")
    # once per (entity, item) however many chunks mention it; undated items have no place on a timeline
    assert sorted(store.dated_mentions(mine)) == [
        ("rust", "a", dt.date(2026, 1, 5)), ("rust", "b", dt.date(2026, 1, 6)), ("wasm", "a", dt.date(2026, 1, 5))]
    assert store.dated_mentions(SearchFilter(tenant="t2")) == [("rust", "theirs", dt.date(2026, 1, 8))]
    assert store.browse_rows(mine) == [("a", dt.date(2026, 1, 5), "2026-02-01", "flagged"),
                                       ("b", dt.date(2026, 1, 6), None, None), ("undated", None, None, None)]
    assert [r[0] for r in store.browse_rows(SearchFilter(tenant="", review_statuses=("unverified",)))] == [
        "b", "undated"]
