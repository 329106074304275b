"""Attacks on what a stored conversation still quotes once its source is withdrawn, over the real app (HTTP, real
keys), on SQLite and on the real Postgres the suite starts.

A turn stores its dossier (each source's passage) and its reply. A draft is a trust boundary: once an editor
deletes an item, or turns it back into a draft, a viewer must not read it — not through search, not by id, and not
through the conversation that quoted it while it was published: neither in ``GET /api/chat/{id}`` nor in the
prompt of the model continuing that conversation. Before the fix both returned the passage word for word.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pytest

from groundsearch.models.base import ChatMessage
from groundsearch.models.fake import ScriptedLLM

from .conftest import Server, backend_server, chat, upload

SECRET = "zephyrine coolant valve leaks at 41 bar"
KEPT = "The borealis pump runs at 12 bar."


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with backend_server(request, tmp_path_factory.mktemp(f"withdrawn-{request.param}")) as server:
        yield server


def _setup(server: Server, tenant: str) -> tuple[str, str, str, str]:
    """An editor publishes X (the secret) and Y (kept); a viewer's conversation quotes both. Returns the editor's
    and viewer's keys, the conversation id and X's item id."""
    editor, viewer = server.key("editor", tenant), server.key("viewer", tenant)
    ed = server.client(editor)
    assert upload(ed, "valve.md", f"# Zephyrine valve\n\nThe {SECRET} in the test rig.\n").status_code == 200
    assert upload(ed, "pump.md", f"# Borealis pump\n\n{KEPT} The zephyrine rig uses it.\n").status_code == 200
    made = chat(server.client(viewer), "what leaks in the zephyrine coolant valve rig?")
    sources = made["dossier"]["sources"]
    x = next(s["item_id"] for s in sources if SECRET in s["text"])
    assert SECRET in made["reply"], made["reply"]  # the reply quoted X while it was published
    return editor, viewer, made["conversation_id"], x


def _withdraw(server: Server, editor: str, x: str, how: str) -> None:
    ed = server.client(editor)
    if how == "deleted":
        assert ed.delete(f"/api/items/{x}").status_code == 204
    else:
        text = f"---\nstatus: draft\n---\n# Zephyrine valve\n\nThe {SECRET} in the test rig.\n"
        assert upload(ed, "valve.md", text).status_code == 200
        assert server.client(editor).get(f"/api/items/{x}", params={"include_drafts": "true"}).status_code == 200
    assert server.client(editor).get(f"/api/items/{x}").status_code == 404


@pytest.mark.parametrize("how", ["deleted", "redrafted"])
def test_attack_a_viewers_conversation_no_longer_returns_a_withdrawn_items_passage(server: Server, how: str) -> None:
    editor, viewer, cid, x = _setup(server, f"wd-{how}")
    _withdraw(server, editor, x, how)

    got = server.client(viewer).get(f"/api/chat/{cid}")
    assert got.status_code == 200
    body = got.text.lower()
    assert SECRET not in body, f"GET /api/chat/{cid} still returns the {how} item's passage"
    assert "zephyrine valve" not in body  # X's title
    turn = got.json()["turns"][0]
    gone = [s for s in turn["dossier"]["sources"] if s["item_id"] == x]
    assert gone and all(s["withdrawn"] and s["text"] == s["title"] == "source withdrawn" for s in gone)
    kept = [s for s in turn["dossier"]["sources"] if s["item_id"] != x]
    assert kept and not any(s.get("withdrawn") for s in kept)
    assert KEPT in got.text  # what Y grounds is still there
    assert "[a sentence quoting a withdrawn source was removed.]" in turn["reply"].lower()  # never a silent gap


def test_an_editor_still_reads_a_redrafted_item_in_its_own_conversation(server: Server) -> None:
    """Editors may see drafts: a re-drafted item stays in their conversation; a deleted one is gone for them too."""
    tenant = "wd-editor"
    editor = server.key("editor", tenant)
    ed = server.client(editor)
    assert upload(ed, "valve.md", f"# Zephyrine valve\n\nThe {SECRET} in the test rig.\n").status_code == 200
    made = chat(ed, "what leaks in the zephyrine coolant valve rig?")
    x = next(s["item_id"] for s in made["dossier"]["sources"] if SECRET in s["text"])
    _withdraw(server, editor, x, "redrafted")
    assert SECRET in ed.get(f"/api/chat/{made['conversation_id']}").text
    assert ed.delete(f"/api/items/{x}").status_code == 204
    assert SECRET not in ed.get(f"/api/chat/{made['conversation_id']}").text


@pytest.mark.parametrize("how", ["deleted", "redrafted"])
def test_attack_the_next_turns_prompt_does_not_carry_a_withdrawn_items_sentences(server: Server, how: str) -> None:
    """The model continuing the conversation is shown the earlier replies: they must not bring X back."""
    editor, viewer, cid, x = _setup(server, f"wd-next-{how}")
    _withdraw(server, editor, x, how)
    shown: list[Sequence[ChatMessage]] = []

    def record(messages: Sequence[ChatMessage]) -> str:
        shown.append(messages)
        return "The borealis pump runs at 12 bar [1]."

    server.engine.llm = ScriptedLLM(record, name="recorder")
    try:
        nxt = chat(server.client(viewer), "and what about the borealis pump?", conversation_id=cid)
    finally:
        server.engine.llm = None
    assert shown, "the model was never asked"
    prompt = "\n".join(m.content for m in shown[0]).lower()
    assert SECRET not in prompt, f"the next turn's prompt still quotes the {how} item"
    assert SECRET not in str(nxt).lower()
