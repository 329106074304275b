"""Caches shared by every tenant of one server, attacked by a key of tenant B over the real app.

The intent cache is keyed by the normalised request text. Its entries are built from the text alone (no tenant's
data), but a hit is reported (``diagnostics.cache_hit``) and is faster, so with one cache for every tenant B
learned that *someone* — another tenant — asked exactly this within the TTL: "zorblax acquisition of
quimbly, q3" coming back as a hit tells B what A is working on (the per-tenant link-check cache closed the same
channel for ``cached: true``). Each caller scope now has its own entries, in process and in Redis.
The same on two workers sharing one Redis: ``test_two_workers.py``.
"""

from __future__ import annotations

from .conftest import Server, upload


def hit(client, query: str) -> bool:  # type: ignore[no-untyped-def]
    r = client.post("/api/search", json={"query": query, "limit": 5})
    assert r.status_code == 200, r.text
    return bool(r.json()["diagnostics"]["cache_hit"])


def test_attack_another_tenants_search_is_not_an_intent_cache_hit(server: Server) -> None:
    a = server.client(server.key("viewer", "cache-a"))
    b = server.client(server.key("viewer", "cache-b"))
    secret = "zorblax acquisition of quimbly, q3 board pack"
    assert hit(a, secret) is False
    assert hit(a, secret) is True  # the control: the cache works within a tenant
    assert hit(b, secret) is False  # before: True — B saw that another tenant had asked exactly this
    assert hit(b, secret) is True
    operator = server.client(server.key("admin", "", all_tenants=True))
    assert hit(operator, secret) is False  # the operator's scope is its own too
    default = server.client(server.key("viewer", ""))
    assert hit(operator, "an operator's own question on tenants") is False
    assert hit(default, "an operator's own question on tenants") is False


class _Counting:
    """Records every text the server's embedder is asked to embed as a query (the network edge of the memo)."""

    def __init__(self, server: Server) -> None:
        self.embedder, self.seen = server.engine.retriever.embedder, []
        self._real = self.embedder.embed_queries

    def __enter__(self) -> _Counting:
        def counting(texts):  # type: ignore[no-untyped-def]
            self.seen.extend(texts)
            return self._real(texts)

        self.embedder.embed_queries = counting
        return self

    def __exit__(self, *exc: object) -> None:
        del self.embedder.embed_queries


def test_attack_another_tenants_query_vector_is_not_served_from_the_memo(server: Server) -> None:
    """The retriever memoises query vectors, and ``diagnostics.latency_ms`` reports the embedding time
    (``retrieve.embed``: ~10-20 ms for a real model, ~0 from the memo): one memo for every tenant told B that
    another tenant had searched the exact text. B's request must embed its text itself; B's repeat need not."""
    a = server.client(server.key("viewer", "memo-a"))
    b = server.client(server.key("viewer", "memo-b"))
    secret = "quimbly layoffs in the vienna office next spring"
    with _Counting(server) as cold:  # the intent cascade embeds the text too, once per scope (cached per scope)
        hit(a, secret)
    with _Counting(server) as warm:
        hit(a, secret)
    assert secret not in warm.seen  # the control: both memos serve the same tenant
    with _Counting(server) as counted:
        hit(b, secret)
    assert counted.seen.count(secret) == cold.seen.count(secret) >= 1, (cold.seen, counted.seen)  # before: one less


def test_attack_another_tenants_entity_name_vectors_are_not_served_from_the_memo(server: Server) -> None:
    """The graph leg memoises entity-name vectors for its synonym edges (names of the walked subgraph, and the
    question's). Tenant A's walk memoised ``Secretpartner``; B asking about that name must embed it itself, or
    the graph leg's time (``retrieve.graph``) tells B the name is in someone's graph."""
    a_editor = server.client(server.key("editor", "names-a"))
    for n in range(2):
        assert upload(a_editor, f"m{n}.md", f"# M{n}\n\nLast spring Zorblax and Secretpartner signed deal {n}.\n"
                      ).status_code == 200
    b_editor = server.client(server.key("editor", "names-b"))
    assert upload(b_editor, "b.md", "# B\n\nLast spring Quimbly and Osmium signed a pact.\n").status_code == 200
    question = "Who signed a deal with Secretpartner?"
    hit(server.client(server.key("viewer", "names-a")), question)
    with _Counting(server) as counted:
        hit(server.client(server.key("viewer", "names-b")), question)
    assert "secretpartner" in counted.seen, counted.seen


def test_attack_another_tenants_words_are_not_served_from_tier_ones_typo_memo(server: Server,
                                                                             monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Tier 1 memoises its typo reading of every word (and word pair) a request holds that the lexicon lacks —
    words of the request, not of the lexicon. ``diagnostics.latency_ms["classify.rules"]`` reports tier 1's time
    to the microsecond: a 10-word request took ~0.27 ms with its words new to the memo and ~0.14 ms with them
    memoised (read_directive, this machine), so with one memo for every tenant B learnt which words another
    tenant had typed — probing with a request of its own (its intent-cache entry is its own) and once more to
    see the memoised time. B's request must read its words itself; A's second request need not."""
    from groundsearch.query.intent import directives

    index = directives._index()
    read = index._fuzzy
    seen: list[str] = []

    def counting(word: str) -> str | None:
        seen.append(word)
        return read(word)

    monkeypatch.setattr(index, "_fuzzy", counting)
    a = server.client(server.key("viewer", "typo-a"))
    b = server.client(server.key("viewer", "typo-b"))
    hit(a, "zorblaxian quimblyware diligence for the vienna merger")
    assert "zorblaxian" in seen  # the probe sees tier 1 reading the word
    seen.clear()
    r = a.post("/api/search", json={"query": "merger diligence: zorblaxian and quimblyware", "limit": 5})
    assert "classify.rules" in r.json()["diagnostics"]["latency_ms"]  # the timing B would read
    assert "zorblaxian" not in seen and "quimblyware" not in seen  # the control: the memo serves its own scope
    seen.clear()
    hit(b, "quimblyware and zorblaxian")
    assert "zorblaxian" in seen and "quimblyware" in seen, seen  # before: [] — read from A's memo


def test_attack_the_last_request_is_not_served_from_the_classifiers_vector_memo(server: Server) -> None:
    """The format and kind classifiers share one e5 pass per request through a memo of the *last* query vector,
    one for the whole process. ``latency_ms["classify.format"]`` reports that pass (~10-20 ms, ~0 from the memo),
    so B, sending the text it guessed, learnt whether it was exactly the request classified just before its own
    — another tenant's. B's request must embed its text itself."""
    from groundsearch.query.intent.cascade import _own_e5

    memo = _own_e5()
    real, seen = memo.inner.embed_queries, []

    def counting(texts):  # type: ignore[no-untyped-def]
        seen.extend(texts)
        return real(texts)

    memo.inner.embed_queries = counting
    try:
        secret = "quimbly severance figures chart"  # a bare chart word: tier 1 is unsure, the classifiers read it
        hit(server.client(server.key("viewer", "vec-a")), secret)
        assert seen.count(secret) == 1  # the control: A's two classifiers shared one pass
        seen.clear()
        hit(server.client(server.key("viewer", "vec-b")), secret)
        assert secret in seen, seen  # before: [] — A's vector served B
    finally:
        del memo.inner.embed_queries
