"""Path tricks in upload file names over the real app: every file lands in the caller's own upload folder."""

from __future__ import annotations

import pytest

from .conftest import Server, upload


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
