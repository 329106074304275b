"""Ids name their tenant (ingest/ids.py): ``namespace_tenant`` inverts the scope of every id ingest writes."""

from __future__ import annotations

from hypothesis import given, settings as hsettings, strategies as st

from groundsearch.ingest.ids import document_id, moved_id, namespace_tenant, record_id

_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)


@hsettings(max_examples=300, deadline=None)
@given(tenant=_TEXT, key=_TEXT, source=_TEXT)
def test_every_written_id_is_shaped_like_its_tenants_only(tenant: str, key: str, source: str) -> None:
    assert namespace_tenant(record_id("rel", key, "ab" * 8, tenant)) == tenant
    assert namespace_tenant(document_id("docs", "/d/" + source, tenant)) == tenant
    assert namespace_tenant(moved_id("rel:x:" + key, "rel", tenant)) == tenant


def test_ids_no_version_could_write_are_nobodys() -> None:
    assert namespace_tenant("rel:a b:c") is None  # an unescaped tenant segment
    assert namespace_tenant("rel::c") is None
    assert namespace_tenant("rel:%ff:c") is None  # lowercase escapes: quote() writes uppercase
    assert namespace_tenant("rel:%FF:c") is None  # not UTF-8
    assert namespace_tenant("nocolon") is None
    assert namespace_tenant("rel:a%3Ab:c") == "a:b"
