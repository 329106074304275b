"""The ingest pipeline against the real embedded store (SQLite + derived indexes) on temp directories."""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from groundsearch.errors import EmbeddingFailed
from groundsearch.ingest.ids import document_id, record_id, source_key
from groundsearch.ingest.pipeline import IngestProgress, embedding_text, ingest_paths
from groundsearch.models.fake import HashEmbedder
from groundsearch.store.base import Store
from groundsearch.store.sqlite import SQLiteStore
from groundsearch.types import Chunk, CollectionSpec, Item, ItemWrite, SearchFilter
from tests.hits import item_ids, views

EMB = HashEmbedder(dim=64)
ANY = SearchFilter(statuses=("draft", "published", "archived"), include_superseded=True)


class CountingStore:
    """A real store with its writes counted, to prove a re-run writes nothing."""

    def __init__(self, inner: Store) -> None:
        self._inner = inner
        self.upserts: list[int] = []
        self.deletes: list[int] = []

    def upsert(self, writes: Sequence[ItemWrite]) -> None:
        self.upserts.append(len(writes))
        self._inner.upsert(writes)

    def delete(self, item_ids: Sequence[str]) -> int:
        self.deletes.append(len(item_ids))
        return self._inner.delete(item_ids)

    def __getattr__(self, name: str):  # reads go straight through
        return getattr(self._inner, name)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[CountingStore]:
    inner = SQLiteStore.open(tmp_path / "data", dim=64)
    yield CountingStore(inner)
    inner.close()


@pytest.fixture
def docs(tmp_path: Path, fixtures: Path) -> Path:
    target = tmp_path / "docs"
    shutil.copytree(fixtures / "docs", target)
    return target


def run(paths: list[Path], spec: CollectionSpec, store: Store, embedder=EMB, **kw):
    return ingest_paths(paths, spec, store, embedder, **kw)


def test_folder_ingest_walks_sorted_skips_hidden_and_unsupported(docs: Path, store: CountingStore, specs) -> None:
    seen: list[IngestProgress] = []
    report = run([docs], specs["docs"], store, progress=seen.append)
    assert report.errors == ()
    assert (report.added, report.updated, report.unchanged, report.deleted) == (5, 0, 0, 0)
    assert sorted(Path(p).name for p, _ in report.skipped) == [".hidden.md", "image.png"]
    assert store.count() == 5
    assert report.chunks_written == store.count_chunks() > 5
    assert sorted(set(p.files_done for p in seen)) == [0, 1, 2, 3, 4, 5] and seen[-1].current is None
    assert list(dict.fromkeys(Path(p.current).name for p in seen[:-1])) == [
        "guide.md", "notes.txt", "page.html", "report.pdf", "draft.md"]
    assert [p.chunks_done for p in seen] == sorted(p.chunks_done for p in seen)  # never goes backwards
    assert seen[-1].chunks_done == report.chunks_written
    guide = store.get(document_id("docs", source_key(docs / "guide.md")))
    assert guide is not None and guide.title == "Search Guide" and guide.url == "https://example.org/guide"
    views = store.item_chunks(guide.id)
    assert views[-1].chunk.heading_path == ("Search Guide", "Querying", "Explain")
    assert store.item_vectors(guide.id).shape == (len(views), 64)
    draft = store.get(document_id("docs", source_key(docs / "sub" / "draft.md")))
    assert draft is not None and draft.status == "draft" and draft.superseded_by == "docs:guide"


def test_progress_moves_while_one_big_file_embeds(tmp_path: Path, store: CountingStore, specs) -> None:
    rows = tmp_path / "releases.jsonl"
    rows.write_text("".join(f'{{"id": "r{i}", "product": "P{i}", "version": "1.{i}", "summary": "release {i}", '
                            f'"date": "2025-01-{i + 1:02d}"}}\n' for i in range(10)))
    seen: list[IngestProgress] = []
    report = run([rows], specs["releases"], store, batch_size=3, progress=seen.append)
    assert report.chunks_written == 10
    within = [p.chunks_done for p in seen if p.files_done == 0]
    assert within == [0, 3, 6, 9, 10]  # file start, then after each batch of 3


def test_second_run_writes_nothing(docs: Path, store: CountingStore, specs) -> None:
    run([docs], specs["docs"], store)
    writes_before = list(store.upserts)
    again = run([docs], specs["docs"], store)
    assert (again.added, again.updated, again.unchanged, again.deleted, again.chunks_written) == (0, 0, 5, 0, 0)
    assert store.upserts == writes_before and store.deletes == []


def test_changed_file_replaces_its_chunks(docs: Path, store: CountingStore, specs) -> None:
    run([docs], specs["docs"], store)
    guide = docs / "guide.md"
    guide.write_text(guide.read_text().replace("Install the package with pip", "Install the wheel with uv"))
    report = run([docs], specs["docs"], store)
    assert (report.added, report.updated, report.unchanged) == (0, 1, 4)
    item_id = document_id("docs", source_key(guide))
    texts = " ".join(v.chunk.text for v in store.item_chunks(item_id))
    assert "wheel with uv" in texts and "package with pip" not in texts
    hits = store.keyword_search("uv wheel", ANY, 10).hits
    assert hits and item_ids(store, hits)[0] == item_id
    old_hits = store.keyword_search("package pip", ANY, 10).hits
    assert all("package with pip" not in v.chunk.text for v in views(store, old_hits))


def test_prune_deletes_items_of_files_gone_from_the_folder_and_nothing_else(
        docs: Path, tmp_path: Path, store: CountingStore, specs) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "kept.md").write_text("# Kept\n\nA file ingested on its own, outside the pruned folder.\n")
    run([docs, outside], specs["docs"], store)
    gone, broken = docs / "notes.txt", docs / "guide.md"
    gone_id = document_id("docs", source_key(gone))
    assert gone_id in item_ids(store, store.keyword_search("meeting notes team", ANY, 10).hits)
    gone.unlink()
    broken.write_bytes(b"\xff\xfe not utf-8 \x00")  # still there, fails to parse: keeps its items
    (outside / "kept.md").unlink()  # gone, but outside the folder being pruned

    plain = run([docs], specs["docs"], store)
    assert plain.deleted == 0 and store.get(gone_id) is not None  # without prune nothing unread is touched

    pruned = run([docs], specs["docs"], store, prune=True)
    assert [Path(p).name for p, _ in pruned.errors] == ["guide.md"]
    assert pruned.deleted == 1 and store.get(gone_id) is None
    assert gone_id not in item_ids(store, store.keyword_search("meeting notes team", ANY, 10).hits)
    assert store.get(document_id("docs", source_key(broken))) is not None
    assert store.get(document_id("docs", source_key(outside / "kept.md"))) is not None
    assert run([docs], specs["docs"], store, prune=True).deleted == 0  # idempotent


def test_metadata_only_change_is_an_update(docs: Path, store: CountingStore, specs) -> None:
    run([docs], specs["docs"], store)
    draft = docs / "sub" / "draft.md"
    draft.write_text(draft.read_text().replace("status: draft", "status: archived"))
    report = run([docs], specs["docs"], store)
    assert report.updated == 1 and report.unchanged == 4
    assert store.get(document_id("docs", source_key(draft))).status == "archived"


def test_records_update_and_vanish(tmp_path: Path, fixtures: Path, store: CountingStore, specs) -> None:
    path = tmp_path / "releases.jsonl"
    shutil.copyfile(fixtures / "records" / "releases.jsonl", path)
    first = run([path], specs["releases"], store)
    assert first.added == 3 and first.chunks_written == 3
    r1 = store.get("releases:r1")
    assert r1 is not None and r1.title == "Groundsearch 1.0" and r1.fields["tags"] == ("search", "rrf")
    lines = [line for line in path.read_text().splitlines() if line.strip()]
    lines = [lines[0].replace("First stable release", "First GA release"), lines[2]]  # r2 removed, r1 edited
    path.write_text("\n".join(lines) + "\n")
    second = run([path], specs["releases"], store)
    assert (second.added, second.updated, second.unchanged, second.deleted) == (0, 1, 1, 1)
    assert store.get("releases:r2") is None
    assert "First GA release" in store.get("releases:r1").text
    assert store.source_hashes([source_key(path)], "releases", "")[source_key(path)].keys() == {
        "releases:r1", "releases:r3"}


def test_records_without_id_use_a_row_hash_and_fields_become_entities(fixtures: Path, store: CountingStore, specs) -> None:
    report = run([fixtures / "records" / "papers.json"], specs["papers"], store)
    assert report.added == 2
    ids = list(store.source_hashes([source_key(fixtures / "records" / "papers.json")], "papers", "").values())[0]
    assert all(i.startswith("papers:row-") for i in ids)
    mentions = store.entity_chunks(["vladimir karpukhin"], SearchFilter(), 10)
    hydrated = store.hydrate([key for key, _ in mentions])
    assert [hydrated[key].item.id for key, _ in mentions] == [i for i in ids if store.get(i).title == "Dense Passage Retrieval"]


def test_a_bad_file_is_reported_and_others_still_ingest(tmp_path: Path, fixtures: Path, store: CountingStore, specs) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copyfile(fixtures / "records" / "releases.csv", folder / "a.csv")
    (folder / "b.jsonl").write_text(
        '{"id": "ok", "product": "P", "version": "1"}\n{"id": "bad", "product": "P", "version": "1", "date": "2026-99"}\n'
    )
    report = run([folder], specs["releases"], store)
    assert report.added == 2
    assert len(report.errors) == 1
    path, message = report.errors[0]
    assert path.endswith("b.jsonl") and "line 2" in message and "bad date '2026-99'" in message
    assert store.get("releases:ok") is None  # nothing of the failed file was written


class PickyEmbedder(HashEmbedder):
    """Fails on any passage containing a marker word, as a real model fails on text it cannot take."""

    def embed_passages(self, texts):
        if any("poison" in t for t in texts):
            raise EmbeddingFailed("the model returned non-finite values")
        return super().embed_passages(texts)


def test_a_file_the_embedder_fails_on_is_reported_and_others_still_ingest(docs: Path, store: CountingStore,
                                                                        specs) -> None:
    (docs / "bad.md").write_text("# Bad\n\nThis text contains poison for the model.\n")
    report = run([docs], specs["docs"], store, embedder=PickyEmbedder(dim=64))
    assert [(Path(p).name, m) for p, m in report.errors] == [
        ("bad.md", "embedding failed: the model returned non-finite values")]
    assert report.added == 5 and store.count() == 5
    assert store.get(document_id("docs", source_key(docs / "bad.md"))) is None


def test_a_file_that_breaks_later_keeps_its_previous_items(tmp_path: Path, store: CountingStore, specs) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"id": "keep", "product": "P", "version": "1"}\n')
    run([path], specs["releases"], store)
    path.write_text('{"id": "keep", "product": "P", "version": "2"}\n{broken\n')
    report = run([path], specs["releases"], store)
    assert report.errors and report.deleted == 0
    assert store.get("releases:keep").title == "P 1"


@pytest.mark.parametrize(
    ("name", "collection", "message"),
    [
        ("data.csv", "docs", "collection 'docs' is a documents collection; ingest it into a records collection"),
        ("page.md", "releases", "collection 'releases' is a records collection; ingest it into a documents collection"),
        ("photo.png", "docs", "unknown extension '.png'"),
    ],
)
def test_wrong_kind_or_type_named_explicitly_is_an_error(tmp_path: Path, store: CountingStore, specs,
                                                         name: str, collection: str, message: str) -> None:
    path = tmp_path / name
    path.write_text("id,product,version\nx,P,1\n" if name.endswith(".csv") else "# T\nbody\n")
    report = run([path], specs[collection], store)
    assert len(report.errors) == 1 and report.errors[0][0] == str(path)
    assert message in report.errors[0][1] and str(path) in report.errors[0][1]
    assert store.count() == 0


def test_missing_path_and_duplicate_ids_are_errors(tmp_path: Path, store: CountingStore, specs) -> None:
    dupes = tmp_path / "d.jsonl"
    dupes.write_text('{"id": "x", "product": "P", "version": "1"}\n{"id": "x", "product": "Q", "version": "1"}\n')
    report = run([tmp_path / "nope", dupes], specs["releases"], store)
    messages = dict(report.errors)
    assert messages[str(tmp_path / "nope")] == "no such file or directory"
    assert "two records share the id 'x'" in messages[str(dupes)]


def test_identical_rows_collapse_to_one_item(tmp_path: Path, store: CountingStore, specs) -> None:
    path = tmp_path / "same.jsonl"
    row = '{"title": "T", "abstract": "A"}\n'
    path.write_text(row + row)
    assert run([path], specs["papers"], store).added == 1


def test_tenant_is_applied_and_conflicts_are_refused(docs: Path, store: CountingStore, specs) -> None:
    report = run([docs / "notes.txt"], specs["docs"], store, tenant="acme")
    item_id = document_id("docs", source_key(docs / "notes.txt"), "acme")
    assert report.added == 1 and store.get(item_id).tenant == "acme"
    other = docs / "owned.md"
    other.write_text("---\ntenant: globex\n---\n# Owned\ntext\n")
    report = run([other], specs["docs"], store, tenant="acme")
    assert "the file says tenant 'globex' but ingest was asked for 'acme'" in report.errors[0][1]
    report = run([other], specs["docs"], store)  # the default tenant is a tenant too: no licence to pick one
    assert "the file says tenant 'globex' but ingest was asked for ''" in report.errors[0][1]
    assert store.get(document_id("docs", source_key(other), "globex")) is None
    report = run([other], specs["docs"], store, tenant="globex")
    assert store.get(document_id("docs", source_key(other), "globex")).tenant == "globex"


def test_the_diff_is_keyed_by_tenant_and_collection(docs: Path, store: CountingStore, specs) -> None:
    notes = docs / "notes.txt"
    for tenant in ("a", "b", ""):
        assert run([notes], specs["docs"], store, tenant=tenant).added == 1
    other = dataclasses.replace(specs["docs"], name="notes")
    assert run([notes], other, store, tenant="a").deleted == 0
    assert all(store.get(document_id("docs", source_key(notes), t)) for t in ("a", "b", ""))
    notes.write_text("Changed text.\n")
    changed = run([notes], specs["docs"], store, tenant="b")
    assert (changed.updated, changed.deleted) == (1, 0)
    assert "Changed" not in store.get(document_id("docs", source_key(notes), "a")).text


def test_tenant_names_cannot_splice_into_another_tenants_ids() -> None:
    assert record_id("rel", "b:c", "x", "a") != record_id("rel", "c", "x", "a:b")
    assert document_id("docs", "/kb/f.md", "a:b") != document_id("docs", "/kb/f.md", "a%3Ab")
    assert record_id("rel", "r1", "x", "acme") == "rel:acme:r1"  # plain names keep readable ids


def test_exact_duplicates_share_their_content_hash(docs: Path, store: CountingStore, specs) -> None:
    shutil.copyfile(docs / "notes.txt", docs / "notes-copy.txt")
    run([docs], specs["docs"], store)
    original = store.get(document_id("docs", source_key(docs / "notes.txt")))
    twins = store.find_by_hash(original.content_hash)
    assert {t.id for t in twins} == {original.id, document_id("docs", source_key(docs / "notes-copy.txt"))}


def test_items_ingested_without_vectors_get_them_on_a_later_embedded_run(docs: Path, store: CountingStore, specs) -> None:
    first = run([docs / "notes.txt"], specs["docs"], store, embedder=None)
    item_id = document_id("docs", source_key(docs / "notes.txt"))
    assert first.added == 1 and len(store.item_vectors(item_id)) == 0
    second = run([docs / "notes.txt"], specs["docs"], store)
    assert second.updated == 1 and len(store.item_vectors(item_id)) == len(store.item_chunks(item_id))
    assert run([docs / "notes.txt"], specs["docs"], store).unchanged == 1


def test_chunk_entities_reach_the_graph(docs: Path, store: CountingStore, specs) -> None:
    run([docs], specs["docs"], store)
    mentions = store.entity_chunks(["tantivy"], SearchFilter(), 20)
    sources = {v.item.source.rsplit("/", 1)[-1] for v in store.hydrate([key for key, _ in mentions]).values()}
    assert {"notes.txt", "page.html", "report.pdf"} <= sources


def test_embedding_text_carries_title_and_breadcrumb() -> None:
    item = Item(id="i", collection="docs", title="Guide", text="")
    chunk = Chunk(id="i#1", item_id="i", position=1, text="Body.", heading_path=("Guide", "Setup", "Linux"))
    assert embedding_text(item, chunk, "documents") == "Guide > Setup > Linux\nBody."
    assert embedding_text(item, chunk, "records") == "Body."


def test_batches_do_not_change_vectors(docs: Path, tmp_path: Path, specs) -> None:
    stores = [SQLiteStore.open(tmp_path / f"s{b}", dim=64) for b in (1, 64)]
    try:
        for batch, st in zip((1, 64), stores):
            run([docs], specs["docs"], st, batch_size=batch)
        item_id = document_id("docs", source_key(docs / "guide.md"))
        np.testing.assert_allclose(stores[0].item_vectors(item_id), stores[1].item_vectors(item_id), atol=1e-6)
    finally:
        for st in stores:
            st.close()
