"""The graph leg (Personalized PageRank over entity co-occurrence) as an attacker of tenant B sees it, over the
real app on SQLite and on the real Postgres: do another tenant's edges, or B's own drafts' edges, steer B's
results or reach B's chat dossier?

The walk starts from the question's names and follows co-occurrence edges. Tenant A's published items pair
``Zorblax`` with ``Secretpartner``; B's own *draft* pairs it with ``Draftonly``; B's published items mention
``Secretpartner`` and ``Draftonly`` alone. If an edge crossed a tenant or came from a draft, the walk from
``zorblax`` would reach B's published ``Secretpartner``/``Draftonly`` chunks and rank them in the graph leg. The
control ``Visiblepal`` (paired with Zorblax in B's own published item) shows the probe sees edges when they are
allowed: without it, an empty graph leg would pass for any reason.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .conftest import Server, backend_server, chat, upload


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with backend_server(request, tmp_path_factory.mktemp(f"graph-{request.param}")) as server:
        yield server


def _plant(server: Server) -> tuple[object, object]:
    a = server.client(server.key("editor", "graph-a"))
    for n in range(3):
        assert upload(a, f"merger-{n}.md", f"# Merger {n}\n\nLast spring Zorblax and Secretpartner signed the "
                                          f"merger, part {n}.\n").status_code == 200
    b_editor = server.client(server.key("editor", "graph-b"))
    for name, text in (
        ("pact.md", "---\nstatus: draft\n---\n# Pact draft\n\nLast spring Zorblax and Draftonly signed a pact.\n"),
        ("control.md", "# Control pact\n\nLast spring Zorblax and Visiblepal signed a pact.\n"),
        ("picnic.md", "# Picnic notes\n\nNotes on the picnic held by Secretpartner this year.\n"),
        ("festival.md", "# Festival notes\n\nNotes on the festival run by Draftonly this year.\n"),
        ("yearbook.md", "# Yearbook notes\n\nNotes on the yearbook kept by Visiblepal this year.\n"),
        # closer to the question than any chunk above and naming no entity, so the walk's passage seeds (the
        # entities of the top three vector hits) add no name: what the walk reaches, it reaches by edges
        *((f"who-{n}.md", f"# Who {n}\n\nwho signed a pact with whom, who signed a pact, a pact signed {n}\n")
          for n in range(3)),
    ):
        assert upload(b_editor, name, text).status_code == 200, name
    return b_editor, server.client(server.key("viewer", "graph-b"))


def _graph_titles(client, query: str, **body) -> dict[str, float]:  # type: ignore[no-untyped-def]
    r = client.post("/api/search", json={"query": query, "limit": 50, "threshold": 0, **body})
    assert r.status_code == 200, r.text
    assert "graph" in r.json()["diagnostics"]["plan"]["legs"], r.json()["diagnostics"]["plan"]
    return {x["title"]: x["legs"]["graph"]["score"] for x in r.json()["results"] if "graph" in x.get("legs", {})}


def test_attack_no_edge_of_another_tenant_or_of_a_draft_steers_the_graph_leg(server: Server) -> None:
    b_editor, b_viewer = _plant(server)
    for client in (b_viewer, b_editor):
        reached = _graph_titles(client, "Who signed a pact with Zorblax?")
        assert "Yearbook notes" in reached, reached  # the control: B's own published edge is walked
        assert "Picnic notes" not in reached, reached  # tenant A's zorblax–secretpartner edge
        assert "Festival notes" not in reached, reached  # B's draft zorblax–draftonly edge
    # the draft's edge is walked only by an editor who asks for drafts
    assert "Festival notes" in _graph_titles(b_editor, "Who signed a pact with Zorblax?", include_drafts=True)


def test_attack_the_chat_dossier_carries_no_other_tenants_or_draft_text(server: Server) -> None:
    b_viewer = server.client(server.key("viewer", "graph-b"))
    turn = chat(b_viewer, "Who signed a pact with Zorblax?")
    held = str(b_viewer.get(f"/api/chat/{turn['conversation_id']}").json())
    assert "Visiblepal" in held  # the control: B's own published pact is in the dossier
    assert "merger" not in held and "Pact draft" not in held and "Draftonly signed" not in held
