"""Path tricks in upload file names over the real app: every file lands in the caller's own upload folder."""

from __future__ import annotations

import pytest

from .conftest import Server, titles, upload


@pytest.mark.parametrize("name", [
    "../../escape.md", "..\\..\\escape.md", "/etc/escape.md", "a/../../escape.md", ".staging/../../escape.md",
    "..%2f..%2fescape.md", "nul\x00../../x.md", "ünï/../../x.md", "\u202edm.x/../../x.md", "....md", "..",
    "uploads/../t-0/x.md", "\\\\server\\share\\x.md",
])
def test_attack_a_file_name_cannot_leave_the_tenants_upload_folder(server: Server, name: str) -> None:
    """Another tenant's folder, the staging folder and anything outside the data directory stay untouched: the
    name is reduced to a safe base name inside ``uploads/t-<hash of the caller's tenant>/``."""
    data_dir = server.engine.settings.data_dir
    key = server.key("editor", "names")
    before = {p for p in server.tmp.rglob("*") if p.is_file()}
    with server.client(key) as c:
        r = upload(c, name, "# Escape\n\nAn upload trying to leave its folder.\n")
    assert r.status_code in (200, 400), r.text
    added = {p for p in server.tmp.rglob("*") if p.is_file()} - before
    outside = [p for p in added if (data_dir / "uploads") not in p.parents and data_dir / "store" not in p.parents
               and p.parent != data_dir]
    assert not outside, outside
    folders = {p.parent.name for p in added if (data_dir / "uploads") in p.parents}
    assert len(folders) <= 1 and all(f.startswith("t-") for f in folders), folders


@pytest.mark.parametrize("first,second", [
    ("a b.md", "a-b.md"),  # a space and the hyphen it was reduced to
    ("a-b.md", "a b.md"),
    ("ré sumé.md", "r-sum.md"),  # non-ASCII letters reduced like punctuation
    ("-lead.md", "lead.md"),  # a leading hyphen stripped
    ("x" * 130 + "-one.md", "x" * 130 + "-two.md"),  # two long names that share their first 120 characters
])
def test_attack_two_distinct_upload_names_never_overwrite_each_other(server: Server, first: str,
                                                                     second: str) -> None:
    """Uploads are incremental by source, so two names reduced to the same stored name shared one source: the
    second upload replaced the first one's item (``deleted: 1`` and the first text gone from search). Now a name
    the reduction changed keeps a hash of the exact name, and both items stay."""
    key = server.key("editor", f"collide-{len(first)}-{first[:3]}-{second[:3]}")
    with server.client(key) as c:
        r1 = upload(c, first, "# Quintessa\n\nThe quintessa ledger from the first upload.\n")
        assert r1.status_code == 200 and r1.json()["added"] == 1, r1.text
        r2 = upload(c, second, "# Zorbulon\n\nThe zorbulon ledger from the second upload.\n")
        assert r2.status_code == 200, r2.text
        assert r2.json()["deleted"] == 0 and r2.json()["added"] == 1, r2.json()
        assert "Quintessa" in titles(c, "quintessa ledger")
        assert "Zorbulon" in titles(c, "zorbulon ledger")
        again = upload(c, first, "# Quintessa\n\nThe quintessa ledger, revised in place.\n")
        assert again.json()["updated"] == 1 and again.json()["added"] == 0, again.json()  # still one source
