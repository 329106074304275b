"""Attack on the conversation store (session 12): how much may one key make the server keep?

A conversation keeps at most ``chat.keep_turns`` turns, each with its dossier (up to six sources of 1,200
characters) and audit trace, but nothing bounded how many conversations a key started: every turn sent without a
``conversation_id`` (or with a fresh one of the caller's choosing) is a new one, so a viewer key looping at its
search budget grew the database without end, and only ``DELETE /api/chat/{id}`` (one id at a time) shrank it.
Now each owner keeps its newest ``chat.keep_conversations``: starting one more drops that owner's least recently
continued conversation, never another key's. Over the real app with real keys, on SQLite and the real Postgres.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .conftest import Server, backend_server, chat

KEEP = 3
TENANT = "flood-r12"


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with backend_server(request, tmp_path_factory.mktemp(f"chat-flood-{request.param}"),
                        keep_conversations=KEEP) as served:
        yield served


def _held(server: Server, key: str) -> int:
    """How many conversations the store holds for the key ``key`` (the purge's owner counts)."""
    key_id = server.keys.authenticate(key).key_id
    return sum(n for tenant, owner, n in server.engine.conversations.owners() if (tenant, owner) == (TENANT, key_id))


def test_attack_a_key_starting_conversations_in_a_loop_keeps_only_its_newest(server: Server) -> None:
    colleague_key, flooder_key = server.key("viewer", TENANT), server.key("viewer", TENANT)
    colleague, flooder = server.client(colleague_key), server.client(flooder_key)
    kept = chat(colleague, "What did we decide about the rollout?")["conversation_id"]

    started = [chat(flooder, f"question number {i}?")["conversation_id"] for i in range(KEEP + 4)]
    started.append(chat(flooder, "my own id", conversation_id="chosen-by-client")["conversation_id"])

    assert _held(server, flooder_key) == KEEP, "every conversation a key starts is kept"  # main: 8 == 3
    newest = started[-KEEP:]
    assert [flooder.get(f"/api/chat/{cid}").status_code for cid in started] == (
        [404] * (len(started) - KEEP) + [200] * KEEP)
    # the colleague's conversation is its own: no key's flood drops another key's conversations
    assert colleague.get(f"/api/chat/{kept}").status_code == 200
    assert _held(server, colleague_key) == 1
    assert newest[-1] == "chosen-by-client"


def test_continuing_a_conversation_keeps_it_among_the_newest(server: Server) -> None:
    """The bound drops the least recently *continued* conversation: one the user keeps coming back to stays."""
    key = server.key("viewer", TENANT)
    c = server.client(key)
    first = chat(c, "the long-running thread?")["conversation_id"]
    for i in range(KEEP + 2):
        chat(c, f"a passing question {i}?")
        chat(c, "and back to the thread?", conversation_id=first)
    assert c.get(f"/api/chat/{first}").status_code == 200
    assert len(c.get(f"/api/chat/{first}").json()["turns"]) == KEEP + 3
    assert _held(server, key) == KEEP
