"""Search syntax in user text aimed at the tenant and draft boundaries, on both backends (real SQLite + tantivy,
and the real Postgres the suite starts).

The Store contract already checks that syntax never raises and never invents items. These queries try the
boundaries: field syntax naming the tenant or the status, boolean escapes, SQL-looking text. A caller scoped to
tenant ``a`` must only ever get tenant ``a``'s published item, whatever it types.
"""

from __future__ import annotations

import pytest

from groundsearch.store.base import Store
from groundsearch.types import SearchFilter
from tests.store.conftest import backend, store  # noqa: F401  (the contract suite's backends: SQLite, Postgres)
from tests.store.test_contract import kw_ids, write

ATTACKS = [
    "tenant:b", "tenant:b secret", 'tenant:"b" OR secret', "secret OR tenant:*", "* OR 1=1", "secret OR *",
    "') OR tenant = 'b' --", "secret' OR ''='", "status:draft secret", "secret AND status:draft",
    "collection:docs OR tenant:b", "secret tenant_b", "secret\\\" OR \\\"", "secret | b", "secret & !a",
    "secret:*", "(secret) OR (tenant:b)", "secret <-> plans", "secret:* & plans",
    # round 10: FTS5 and LIKE syntax, unbalanced and dangling operators
    "NEAR(secret plans)", "secret NEAR/2 plans", "-secret", "secret -first", "%", "%secret%", "_", "\\", "secret\\",
    "(secret", "secret)", '"secret', "secret AND", "NOT secret", "secret^9", "secret~2", "[a TO z]", "+secret",
    "*:*", "tenant:b*", "title:secret",
]


@pytest.mark.parametrize("query", ATTACKS)
def test_attack_syntax_in_the_query_cannot_cross_tenant_or_status(store: Store, query: str) -> None:  # noqa: F811
    store.upsert([
        write("a1", "secret plans of the first tenant", tenant="a"),
        write("b1", "secret plans of tenant b, tenant_b only", tenant="b"),
        write("a-draft", "secret plans still in draft", tenant="a", status="draft"),
    ])
    got = kw_ids(store, query, SearchFilter(tenant="a"))
    assert set(got) <= {"a1"}, f"{query!r} reached {got}"
    # the same words without syntax do find the caller's own item: the filter, not an empty match, keeps b out
    assert kw_ids(store, "secret plans", SearchFilter(tenant="a")) == ["a1"]


PREVIEW_ATTACKS = ATTACKS + ["%", "_", "%secret%", "secret%", "s_cret", "\\%", "'", "''", '"', "[s]ecret", "*"]


@pytest.mark.parametrize("prefix", PREVIEW_ATTACKS)
def test_attack_typeahead_text_is_literal_and_stays_in_the_tenant(store: Store, prefix: str) -> None:  # noqa: F811
    """The title typeahead (``Store.preview``, a LIKE/prefix match on both backends): wildcards, quotes and
    field syntax in what the user typed are literal text. A caller of tenant ``a`` never sees tenant ``b``'s or
    a draft's title, and ``%`` or ``_`` does not match every title."""
    store.upsert([
        write("a1", "secret plans of the first tenant", tenant="a", title="Secret plans A"),
        write("b1", "secret plans of tenant b", tenant="b", title="Secret plans B"),
        write("a-draft", "secret plans still in draft", tenant="a", status="draft", title="Secret draft"),
        write("a2", "percent and underscore", tenant="a", title="Quarterly numbers"),
    ])
    got = [h.item_id for h in store.preview(prefix, SearchFilter(tenant="a"), 20)]
    assert set(got) <= {"a1"}, f"{prefix!r} reached {got}"
    assert [h.item_id for h in store.preview("secret", SearchFilter(tenant="a"), 20)] == ["a1"]
