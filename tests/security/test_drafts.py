"""Drafts through side doors (issue 9, item 5): item reads and ``/similar`` apply search's governance.

Drafts are unpublished work: they need ``include_drafts`` *and* the editor role (viewers get 403 for asking,
and 404 for a draft id). Archived and superseded items are published history: any role may see them, but only
when the matching include flag is set.
"""

from __future__ import annotations

from .conftest import Server, upload

BODY = "\n\nThe Orrery budget is forty million for the Orrery launch.\n"


def _setup(server: Server, tenant: str) -> tuple[dict[str, str], str, str]:
    """Three exact duplicates (same title and text) in ``tenant``: published, draft and archived."""
    editor = server.client(server.key("editor", tenant))
    for name, status in (("live", "published"), ("draft", "draft"), ("old", "archived")):
        text = f"---\nstatus: {status}\n---\n# Orrery plan" + BODY
        assert upload(editor, f"{name}.md", text).status_code == 200
    hits = editor.post("/api/search", json={"query": "orrery budget", "limit": 50, "include_drafts": True,
                                            "include_archived": True}).json()["results"]
    ids = {name: h["item_id"] for h in hits for name in ("live", "draft", "old") if f":{name}-md-" in h["item_id"]}
    assert set(ids) == {"live", "draft", "old"}, hits
    return ids, server.key("viewer", tenant), server.key("editor", tenant)


def item_ids(client, query: str, **body: object) -> list[str]:
    r = client.post("/api/search", json={"query": query, "limit": 50, **body})
    assert r.status_code == 200, r.text
    return [x["item_id"] for x in r.json()["results"]]


def test_a_viewer_cannot_read_a_draft_by_id(server: Server) -> None:
    ids, viewer_key, editor_key = _setup(server, "d1")
    viewer, editor = server.client(viewer_key), server.client(editor_key)
    assert viewer.get(f"/api/items/{ids['live']}").status_code == 200
    assert viewer.get(f"/api/items/{ids['draft']}").status_code == 404
    assert viewer.get(f"/api/items/{ids['draft']}", params={"include_drafts": "true"}).status_code == 403
    assert editor.get(f"/api/items/{ids['draft']}").status_code == 404  # governance needs the flag
    assert editor.get(f"/api/items/{ids['draft']}", params={"include_drafts": "true"}).status_code == 200
    assert viewer.get(f"/api/items/{ids['old']}").status_code == 404
    assert viewer.get(f"/api/items/{ids['old']}", params={"include_archived": "true"}).status_code == 200


def test_similar_hides_drafts_among_exact_duplicates(server: Server) -> None:
    ids, viewer_key, editor_key = _setup(server, "d2")
    viewer, editor = server.client(viewer_key), server.client(editor_key)
    r = viewer.get(f"/api/items/{ids['live']}/similar")
    assert r.status_code == 200
    assert ids["draft"] not in r.json()["exact_duplicates"] and ids["old"] not in r.json()["exact_duplicates"]
    assert ids["draft"] not in {s["id"] for s in r.json()["similar"]}
    assert viewer.get(f"/api/items/{ids['draft']}/similar").status_code == 404
    both = editor.get(f"/api/items/{ids['live']}/similar",
                      params={"include_drafts": "true", "include_archived": "true"}).json()
    assert set(both["exact_duplicates"]) == {ids["draft"], ids["old"]}


def test_search_drafts_need_the_editor_role(server: Server) -> None:
    ids, viewer_key, editor_key = _setup(server, "d3")
    viewer, editor = server.client(viewer_key), server.client(editor_key)
    r = viewer.post("/api/search", json={"query": "orrery budget", "include_drafts": True})
    assert r.status_code == 403 and r.json()["error"]["details"]["required_role"] == "editor"
    assert ids["draft"] not in item_ids(viewer, "orrery budget")
    assert ids["draft"] in item_ids(editor, "orrery budget", include_drafts=True)
    assert ids["old"] in item_ids(viewer, "orrery budget", include_archived=True)


def test_an_editor_may_still_delete_its_drafts(server: Server) -> None:
    ids, _, editor_key = _setup(server, "d4")
    editor = server.client(editor_key)
    assert editor.delete(f"/api/items/{ids['draft']}").status_code == 204
    assert editor.get(f"/api/items/{ids['draft']}", params={"include_drafts": "true"}).status_code == 404
