"""The embedded store's writer hand-off, across real processes: a log writer (``shared=True`` beside an
owner) commits to SQLite only, and the owner indexes those commits without reopening."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from groundsearch.models.fake import HashEmbedder
from groundsearch.store.sqlite import SQLiteStore
from groundsearch.types import Chunk, Item, ItemWrite, SearchFilter
from tests.hits import item_ids

EMB = HashEmbedder(dim=16)
ANY = SearchFilter(statuses=("draft", "published", "archived"), include_superseded=True)

LOG_WRITER = r"""
import sys
from pathlib import Path
from groundsearch.models.fake import HashEmbedder
from groundsearch.store.sqlite import SQLiteStore
from groundsearch.types import Chunk, Item, ItemWrite
store = SQLiteStore.open(Path(sys.argv[1]), dim=16, shared=True)
print("owner" if store.owns_indexes else "log writer", flush=True)
text = "quokka marsupial island"
store.upsert([ItemWrite(Item(id="late", collection="docs", title="Late", text=text, content_hash="h"),
                        (Chunk("late#0", "late", 0, text),), None)])
keys = store.pending_vectors(0, 10)
store.set_vectors(keys, HashEmbedder(dim=16).embed_passages([text]))
store.delete(["early"])
store.close()
"""


def _write(store: SQLiteStore, item_id: str, text: str) -> None:
    store.upsert([ItemWrite(Item(id=item_id, collection="docs", title=item_id, text=text, content_hash=item_id),
                            (Chunk(f"{item_id}#0", item_id, 0, text),), EMB.embed_passages([text]))])


def test_a_log_writer_beside_the_owner_is_indexed_by_the_owner(tmp_path: Path) -> None:
    owner = SQLiteStore.open(tmp_path / "s", dim=16)
    try:
        _write(owner, "early", "wombat burrow")
        out = subprocess.run([sys.executable, "-c", LOG_WRITER, str(tmp_path / "s")], capture_output=True,
                             text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == "log writer"
        # no reopen: the owner's next search notices the other process's commits and replays them
        assert item_ids(owner, owner.keyword_search("quokka", ANY, 5).hits) == ["late"]
        assert owner.keyword_search("wombat", ANY, 5).hits == ()
        query = EMB.embed_queries(["quokka marsupial island"])[0]
        assert item_ids(owner, owner.vector_search(query, ANY, 1).hits) == ["late"]
        assert owner.count_pending_vectors() == 0 and owner.count() == 1
    finally:
        owner.close()
    with SQLiteStore.open(tmp_path / "s", dim=16) as again:  # and the owner's indexes were saved level
        assert item_ids(again, again.keyword_search("quokka", ANY, 5).hits) == ["late"]


def test_a_second_opener_never_wipes_a_live_writers_index(tmp_path: Path) -> None:
    owner = SQLiteStore.open(tmp_path / "s", dim=16)
    try:
        _write(owner, "kept", "platypus river")
        state = tmp_path / "s" / "keyword" / "applied.json"
        # a keyword state another format would make a writer wipe and rebuild: not while another one writes
        state.write_text(json.dumps({"format": 999, "seq": 1}))
        segments = sorted(p.name for p in (tmp_path / "s" / "keyword").iterdir() if p.suffix == ".idx")
        code = ("import sys; from pathlib import Path; from groundsearch.store.sqlite import SQLiteStore\n"
                "s = SQLiteStore.open(Path(sys.argv[1]), dim=16, shared=True); print(s.owns_indexes); s.close()")
        out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "s")], capture_output=True, text=True,
                             timeout=120)
        assert out.returncode == 0 and out.stdout.strip() == "False", out.stderr
        assert sorted(p.name for p in (tmp_path / "s" / "keyword").iterdir() if p.suffix == ".idx") == segments
        assert item_ids(owner, owner.keyword_search("platypus", ANY, 5).hits) == ["kept"]
    finally:
        owner.close()
