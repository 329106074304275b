"""Suggestions leak (issue 9, item 4): popular topics are computed inside the caller's filter.

Topics are entity names counted over the chunks the caller may search (its tenant, published only). Popular
*query* terms need query telemetry, which does not exist yet.
"""

from __future__ import annotations

from .conftest import Server, upload


def _suggest(server: Server, key: str) -> list[str]:
    r = server.client(key).get("/api/search/suggestions", params={"limit": 50})
    assert r.status_code == 200, r.text
    return r.json()["suggestions"]


def test_suggestions_stay_inside_the_tenant_and_skip_drafts(server: Server) -> None:
    other = server.client(server.key("editor", "s-other"))
    mine = server.client(server.key("editor", "s-mine"))
    assert upload(other, "secret.md", "# Zanzibar merger\n\nOur rival acquires Zanzibar and Quillonix this spring.\n"
                  ).status_code == 200
    assert upload(mine, "draft.md", "---\nstatus: draft\n---\n# Unreleased\n\nWe ship Pangolin soon.\n"
                  ).status_code == 200
    assert upload(mine, "live.md", "# Roadmap\n\nWe ship Heronbridge in May.\n").status_code == 200
    viewer = server.key("viewer", "s-mine")
    topics = {t.casefold() for t in _suggest(server, viewer)}
    assert any("heronbridge" in t for t in topics), topics
    assert not any("zanzibar" in t or "quillonix" in t for t in topics), topics
    assert not any("pangolin" in t for t in topics), topics
    theirs = {t.casefold() for t in _suggest(server, server.key("viewer", "s-other"))}
    assert any("zanzibar" in t for t in theirs) and not any("heronbridge" in t for t in theirs)
