"""Filter compilation, property-tested: for arbitrary items and filters, both legs and ``count`` return exactly
the items a plain Python predicate accepts — never more (no value becomes syntax), never fewer (full pages)."""

from __future__ import annotations

import datetime as dt
import tempfile
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from groundsearch.store.sqlite import SQLiteStore
from groundsearch.types import STATUSES, Chunk, FieldFilter, Item, ItemWrite, SearchFilter
from tests.hits import item_ids

DIM = 8
_tricky = st.sampled_from(["%", "_", "\\", "'", '"', "*", "a%", "A_b", "x:y", "OR", "NOT", "ß", "SS", "É", "é", " "])
_value = st.one_of(_tricky, st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=0, max_size=6))
_names = st.sampled_from(["product", "authors", "venue"])
_collections = st.sampled_from(["docs", "releases", "papers", "100%", "a_b"])
_dates = st.one_of(st.none(), st.dates(min_value=dt.date(2020, 1, 1), max_value=dt.date(2020, 1, 20)))


@st.composite
def items(draw: st.DrawFn) -> list[Item]:
    n = draw(st.integers(1, 12))
    out = []
    for i in range(n):
        fields = {}
        for name in draw(st.lists(_names, unique=True, max_size=3)):
            fields[name] = tuple(draw(st.lists(_value, min_size=1, max_size=3))) if name == "authors" else draw(_value)
        out.append(Item(
            id=f"i{i}", collection=draw(_collections), title=f"t{i}", text="common words", date=draw(_dates),
            fields=fields, tenant=draw(st.sampled_from(["", "t1", "T1"])), status=draw(st.sampled_from(STATUSES)),
            superseded_by=draw(st.sampled_from([None, "i0"])), content_hash=f"h{i}",
        ))
    return out


@st.composite
def filters(draw: st.DrawFn) -> SearchFilter:
    date_from, date_to = draw(_dates), draw(_dates)
    return SearchFilter(
        collections=tuple(draw(st.lists(_collections, max_size=2))),
        date_from=date_from,
        date_to=date_to,
        fields=tuple(FieldFilter(n, tuple(draw(st.lists(_value, min_size=1, max_size=3))))
                     for n in draw(st.lists(_names, unique=True, max_size=2))),
        statuses=tuple(draw(st.lists(st.sampled_from(STATUSES), unique=True, max_size=3))),
        include_superseded=draw(st.booleans()),
        tenant=draw(st.sampled_from([None, "", "t1", "T1"])),
        item_ids=tuple(draw(st.lists(st.sampled_from([f"i{i}" for i in range(14)]), max_size=4))),
        exclude_item_ids=tuple(draw(st.lists(st.sampled_from([f"i{i}" for i in range(14)]), max_size=3))),
    )


def accepts(f: SearchFilter, item: Item) -> bool:
    """The filter's meaning, written plainly (field values compare casefolded, as documented)."""
    if f.collections and item.collection not in f.collections:
        return False
    if f.date_from is not None and (item.date is None or item.date < f.date_from):
        return False
    if f.date_to is not None and (item.date is None or item.date > f.date_to):
        return False
    for ff in f.fields:
        raw = item.fields.get(ff.name)
        values = raw if isinstance(raw, tuple) else () if raw is None else (raw,)
        if not {str(v).casefold() for v in values} & {v.casefold() for v in ff.values}:
            return False
    if item.status not in f.statuses:
        return False
    if not f.include_superseded and item.superseded_by:
        return False
    if f.tenant is not None and item.tenant != f.tenant:
        return False
    if f.item_ids and item.id not in f.item_ids:
        return False
    return item.id not in f.exclude_item_ids


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stored=items(), fs=st.lists(filters(), min_size=1, max_size=4))
def test_filters_match_exactly_what_they_should(stored: list[Item], fs: list[SearchFilter]) -> None:
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        store = SQLiteStore.open(Path(tmp) / "s", dim=DIM)
        try:
            writes = []
            for item in stored:
                v = rng.standard_normal((1, DIM)).astype(np.float32)
                writes.append(ItemWrite(item=item, chunks=(Chunk(f"{item.id}#0", item.id, 0, item.text),),
                                        vectors=v / np.linalg.norm(v)))
            store.upsert(writes)
            query = np.ones(DIM, dtype=np.float32) / np.sqrt(DIM)
            for f in fs:
                expected = {i.id for i in stored if accepts(f, i)}
                assert set(item_ids(store, store.keyword_search("common", f, 50).hits)) == expected
                assert set(item_ids(store, store.vector_search(query, f, 50).hits)) == expected
                assert store.count(f) == len(expected)
                # a page of 2 is full whenever 2 match (filters are in the query, not applied after it)
                assert len(store.keyword_search("common", f, 2).hits) == min(2, len(expected))
                assert len(store.vector_search(query, f, 2).hits) == min(2, len(expected))
        finally:
            store.close()
