"""Property (issue 9): for random tenants, keys and payloads, no read, write, delete or suggestion crosses a
tenant. Every step goes through the real app over HTTP with real keys.

Tenant names and record ids are drawn from an alphabet with ``:`` ``-`` and space, so names that differ only in
punctuation, and ids that could splice a tenant name into another tenant's ids (tenant ``a:b`` with record ``c``
against tenant ``a`` with record ``b:c``), are generated on purpose.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from urllib.parse import quote

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .conftest import Server

_names = st.text(alphabet="ab:- ", min_size=0, max_size=4)
_round = itertools.count()


@dataclass
class Write:
    actor: int  # index into the drawn tenants
    record: str
    claimed: int | None  # a tenant the payload names (``"tenant"`` field), if any


_writes = st.builds(Write, actor=st.integers(0, 2), record=st.text(alphabet="ab:", min_size=1, max_size=3),
                    claimed=st.none() | st.integers(0, 2))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(names=st.lists(_names, min_size=3, max_size=3, unique=True), writes=st.lists(_writes, min_size=1, max_size=5),
       deletes=st.lists(st.tuples(st.integers(0, 2), st.integers(0, 10)), max_size=3))
def test_no_operation_crosses_a_tenant(server: Server, names: list[str], writes: list[Write],
                                       deletes: list[tuple[int, int]]) -> None:
    n = next(_round)
    tenants = [f"p{n}{name}q" for name in names]  # no edge whitespace, which loaders trim
    editors = [server.client(server.key("editor", t)) for t in tenants]
    viewers = [server.client(server.key("viewer", t)) for t in tenants]
    product = [f"Quokka{n}x{i}" for i in range(3)]  # one entity name per tenant, to spot leaks in suggestions
    owner: dict[str, int] = {}
    texts: dict[str, str] = {}
    for step, w in enumerate(writes):
        notes = f"marker{n}s{step} notes"
        row = {"id": w.record, "product": product[w.actor], "version": str(step), "notes": notes}
        if w.claimed is not None:
            row["tenant"] = tenants[w.claimed]
        r = editors[w.actor].post("/api/items/records", json={"collection": "rel", "records": [row]})
        if w.claimed is not None and w.claimed != w.actor:
            assert r.status_code == 400, r.text  # the payload may not choose a tenant
            continue
        assert r.status_code == 200, r.text
        assert r.json()["deleted"] == 0
        # find the item the write produced, through the writer's own eyes
        hits = viewers[w.actor].post("/api/search", json={"query": f"marker{n}s{step}", "limit": 50,
                                                          "profile": "keyword"}).json()["results"]
        mine = [h["item_id"] for h in hits if notes in h["snippet"]]
        assert len(mine) == 1, hits
        previous = owner.get(mine[0])
        assert previous in (None, w.actor), "a write replaced another tenant's item"
        owner[mine[0]] = w.actor
        texts[mine[0]] = notes

    for actor, pick in deletes:
        if not owner:
            break
        item_id = sorted(owner)[pick % len(owner)]
        r = editors[actor].delete(f"/api/items/{quote(item_id, safe=':')}")
        if owner[item_id] == actor:
            assert r.status_code == 204
            del owner[item_id]
        else:
            assert r.status_code == 404

    for i, viewer in enumerate(viewers):
        for item_id, who in owner.items():
            r = viewer.get(f"/api/items/{quote(item_id, safe=':')}")  # ids carry the tenant percent-encoded
            assert r.status_code == (200 if who == i else 404), (item_id, who, i)
            if who == i:
                assert texts[item_id] in r.json()["text"]
        hits = viewer.post("/api/search", json={"query": f"marker{n}", "limit": 50}).json()["results"]
        assert {h["item_id"] for h in hits} <= {k for k, v in owner.items() if v == i}
        topics = " ".join(viewer.get("/api/search/suggestions", params={"limit": 50}).json()["suggestions"]).casefold()
        for j in range(3):
            if j != i:
                assert product[j].casefold() not in topics, (i, j, topics)
