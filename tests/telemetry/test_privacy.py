"""The query's privacy forms: keyed hashes, redaction of raw text, reasons stripped of quoted text."""

from __future__ import annotations

from groundsearch.telemetry import privacy

KEY = b"k" * 32


def test_hash_is_keyed_and_whitespace_insensitive() -> None:
    a = privacy.hash_query(KEY, "hybrid  search ")
    assert a == privacy.hash_query(KEY, "hybrid search")
    assert a != privacy.hash_query(b"other-key", "hybrid search")  # a guessed query needs the key too
    assert "hybrid" not in a and len(a) == 64


def test_term_hashes_are_named_only_from_the_vocabulary() -> None:
    counts = [(h, 3) for h in privacy.hash_terms(KEY, "Searching jane.doe@example.com LangChain releases")]
    named = dict(privacy.label_terms(KEY, counts, ["LangChain", "release notes", "search"]))
    assert named == {"langchain": 3, "releases": 3, "search": 3} or named == {"langchain": 3, "release": 3,
                                                                               "search": 3}
    assert not any("jane" in n or "example" in n for n in named)  # not in the corpus: stays a hash


def test_redaction_of_emails_phones_and_keys() -> None:
    text = "mail jane.doe@example.com or +44 20 7946 0958, key sk-abcdefghijklmnop1234 about billing"
    out = privacy.redact(text, ("email", "phone", "key"))
    assert out == "mail [email] or [phone], key [key] about billing"
    assert privacy.redact(text, ()) == text
    for kept in ("release 2024.10.01 and v3.2", "since 2024-10-01", "top 100 papers"):
        assert privacy.redact(kept, ("phone",)) == kept


def test_reasons_drop_quoted_text_and_the_query() -> None:
    note = "gate: reformulated the query as 'secret plan zeta' (the original found nothing relevant)"
    assert privacy.reason(note, "secret plan zeta?") == \
        "gate: reformulated the query as '…' (the original found nothing relevant)"
    assert privacy.reason("classify: failed on secret plan zeta", "secret plan zeta") == "classify: failed on …"


def test_uvicorn_access_log_keeps_the_path_not_the_query() -> None:
    import logging

    from groundsearch.interfaces.api.app import uvicorn_config
    from groundsearch.settings import Settings

    async def app(scope, receive, send):  # noqa: ANN001, ANN202  (never called: only the config is built)
        return None

    uvicorn_config(app, Settings())
    access = logging.getLogger("uvicorn.access")  # uvicorn sets propagate=False on it: listen on it directly
    seen: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: seen.append(record.getMessage())  # type: ignore[method-assign]
    access.addHandler(handler)
    level = access.level
    access.setLevel(logging.INFO)
    try:
        # the argument shape uvicorn's protocols log each request with
        access.info('%s - "%s %s HTTP/%s" %d', "127.0.0.1:5000", "GET", "/api/search?q=jane+secret+plan", "1.1", 200)
    finally:
        access.removeHandler(handler)
        access.setLevel(level)
    assert seen == ['127.0.0.1:5000 - "GET /api/search?… HTTP/1.1" 200']
