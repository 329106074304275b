"""What tier 1's directive reading claims of a request, shared by the format- and kind-class tests.

``reads_as`` and ``reads_each`` build the commonest of those tests, a list of requests each of which must be read
one way, so that a session's class is its requests and their expected readings instead of another copy of the same
parametrised function. ``by`` says which part of the reading a class claims (the whole of it by default); a class
that claims less than the whole reading keeps claiming exactly that. pytest names the test after the module
attribute it is bound to, and the cases' ids are those a hand-written ``parametrize`` over the same values gives.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from groundsearch.query.intent.directives import read_directive

Reading = tuple[str, str | None, bool]


def reading(q: str) -> Reading:
    """(format, chart kind, sure): what tier 1 claims of ``q``."""
    d = read_directive(q)
    return d.format, d.chart_subtype, d.sure


def format_read(q: str) -> str:
    """The format tier 1 reads in ``q``, sure or not."""
    return read_directive(q).format


def reads_as(expected: Any, *queries: str, by: Callable[[str], Any] = reading,
             doc: str | None = None) -> Callable[[str], None]:
    """A test that ``by`` of every one of ``queries`` is ``expected``, one case a request (its id is the request)."""

    @pytest.mark.parametrize("q", queries)
    def test(q: str) -> None:
        got = by(q)
        assert got == expected, f"{q!r} read as {got}, not {expected}"  # a helper module: no assert rewriting

    test.__doc__ = doc
    return test


def _parts_id(value: object) -> str | None:
    """An expected tuple's id as pytest would give its parts listed one by one (None: pytest's own id)."""
    return "-".join(map(str, value)) if isinstance(value, tuple) else None


def reads_each(cases: list[tuple[Any, ...]], by: Callable[[str], Any] = reading,
               doc: str | None = None) -> Callable[[str, Any], None]:
    """A test that ``by`` of each case's request is its expected value: cases are ``(request, expected)``, or
    ``(request, part, part, …)`` where ``by`` gives a tuple of those parts."""

    pairs = [(q, rest[0] if len(rest) == 1 else tuple(rest)) for q, *rest in cases]

    @pytest.mark.parametrize(("q", "expected"), pairs, ids=_parts_id)
    def test(q: str, expected: Any) -> None:
        got = by(q)
        assert got == expected, f"{q!r} read as {got}, not {expected}"

    test.__doc__ = doc
    return test
