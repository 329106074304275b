"""Attacks on writes (issue 9, items 1 and 3) against the real app over HTTP with real keys.

1. A payload never chooses its tenant: a record's ``tenant`` field or Markdown front matter ``tenant:`` naming
   another tenant is refused, and the other tenant's items stay exactly as they were.
3. Incremental ingest diffs by (tenant, collection, source): uploading the same file name as another tenant,
   into another collection, or as a tenant whose name differs only in punctuation never deletes anything.
"""

from __future__ import annotations

from .conftest import Server, preview_ids, titles, upload


def test_a_record_cannot_write_into_another_tenant(server: Server) -> None:
    victim = server.client(server.key("editor", "w1-victim"))
    victim_viewer = server.client(server.key("viewer", "w1-victim"))
    attacker = server.client(server.key("editor", ""))  # the default tenant, explicitly
    row = {"id": "r1", "product": "Vaultcore", "version": "1.0", "notes": "genuine release notes"}
    assert victim.post("/api/items/records", json={"collection": "rel", "records": [row]}).json()["added"] == 1
    before = victim_viewer.get("/api/items/rel:w1-victim:r1")
    assert before.status_code == 200

    forged = {**row, "notes": "pwned by the default tenant", "tenant": "w1-victim"}
    r = attacker.post("/api/items/records", json={"collection": "rel", "records": [forged]})
    assert r.status_code == 400, r.text
    assert "tenant" in r.json()["error"]["message"]
    after = victim_viewer.get("/api/items/rel:w1-victim:r1")
    assert after.status_code == 200 and after.json() == before.json()
    hits = victim_viewer.post("/api/search", json={"query": "pwned", "limit": 50}).json()["results"]
    assert all("pwned" not in h["snippet"] for h in hits)


def test_front_matter_cannot_move_an_upload_into_another_tenant(server: Server) -> None:
    attacker = server.client(server.key("editor", ""))  # the default tenant, as in the report
    victim_viewer = server.client(server.key("viewer", "w2-victim"))
    text = "---\ntenant: w2-victim\n---\n# Quarterly phishing notice\n\nReset your Vaultcore password now.\n"
    r = upload(attacker, "notice.md", text)
    assert r.status_code == 400, r.text
    assert "Quarterly phishing notice" not in titles(victim_viewer, "quarterly phishing notice vaultcore")
    assert preview_ids(victim_viewer, "quarterly") == []


def test_same_file_name_in_two_tenants_keeps_both(server: Server) -> None:
    a, b = server.client(server.key("editor", "w3-a")), server.client(server.key("editor", "w3-b"))
    assert upload(a, "handbook.md", "# Handbook of A\n\nTenant A's handbook text.\n").json()["added"] == 1
    second = upload(b, "handbook.md", "# Handbook of B\n\nTenant B's handbook text.\n").json()
    assert second["added"] == 1 and second["deleted"] == 0
    assert "Handbook of A" in titles(server.client(server.key("viewer", "w3-a")), "handbook")


def test_same_file_name_in_two_collections_keeps_both(server: Server) -> None:
    a = server.client(server.key("editor", "w4"))
    viewer = server.client(server.key("viewer", "w4"))
    assert upload(a, "guide.md", "# Guide in docs\n\nThe docs guide.\n", "docs").json()["added"] == 1
    second = upload(a, "guide.md", "# Guide in notes\n\nThe notes guide.\n", "notes").json()
    assert second["added"] == 1 and second["deleted"] == 0
    assert {"Guide in docs", "Guide in notes"} <= set(titles(viewer, "guide", collections=["docs", "notes"]))


def test_tenants_differing_only_in_punctuation_do_not_share_uploads(server: Server) -> None:
    spaced, dashed = server.client(server.key("editor", "x y")), server.client(server.key("editor", "x-y"))
    assert upload(spaced, "plan.md", "# Plan of x y\n\nSpaced tenant plan.\n").json()["added"] == 1
    second = upload(dashed, "plan.md", "# Plan of x-y\n\nDashed tenant plan.\n").json()
    assert second["added"] == 1 and second["deleted"] == 0
    assert titles(server.client(server.key("viewer", "x y")), "plan") == ["Plan of x y"]
    assert titles(server.client(server.key("viewer", "x-y")), "plan") == ["Plan of x-y"]
