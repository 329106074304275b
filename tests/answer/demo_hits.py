"""Evidence built from the real demo records (demo/*.jsonl through the real record loader), without a store.

The chart tests need many real records with their stored fields; going through the record loader keeps them
exactly what ingest stores, while staying pure (no embedder, no SQLite).
"""

from __future__ import annotations

import functools
from pathlib import Path

from groundsearch.ingest.entities import record_entities
from groundsearch.ingest.records import load_records
from groundsearch.settings import load_settings
from groundsearch.types import Chunk, EvidenceHit, Item, LegScore

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "demo"
DEMO_SPECS = {c.name: c for c in load_settings(DEMO / "groundsearch.toml", env={}, data_dir=DEMO / "data").collections}


@functools.cache
def _collection(name: str) -> tuple[EvidenceHit, ...]:
    spec = DEMO_SPECS[name]
    if spec.kind != "records":
        path, text = ROOT / "README.md", (ROOT / "README.md").read_text(encoding="utf-8")
        item = Item(id="docs:readme", collection=name, title="README", text=text)
        return (EvidenceHit(chunk=Chunk(id="docs:readme#0", item_id=item.id, position=0, text=text[:2000]),
                            item=item, score=0.01, legs=(LegScore("vector", 1, 0.6),)),)
    out = []
    for n, draft in enumerate(load_records(DEMO / f"{name}.jsonl", spec)):
        item = Item(id=f"{name}:{draft.key}", collection=name, title=draft.title, text=draft.text, url=draft.url,
                    date=draft.date, fields=dict(draft.fields))
        entities = draft.entities[0] if draft.entities else record_entities(draft.fields, spec, draft.text)
        chunk = Chunk(id=f"{item.id}#0", item_id=item.id, position=0, text=draft.text, entities=entities)
        out.append(EvidenceHit(chunk=chunk, item=item, score=1 / (60 + n), legs=(LegScore("vector", n + 1, 0.5),)))
    return tuple(out)


def demo_hits(*collections: str) -> list[EvidenceHit]:
    """Every demo record of ``collections``, interleaved, so any prefix mixes them like fused results do."""
    lists = [_collection(c) for c in collections]
    out = []
    for i in range(max(len(lst) for lst in lists)):
        out.extend(lst[i] for lst in lists if i < len(lst))
    return out
