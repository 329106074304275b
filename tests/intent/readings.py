"""What tier 1's directive reading claims of a request, shared by the format-class tests.

``reads_as`` builds the commonest of those tests, a list of requests that must all be read one way, so that a
session's class is its requests and its expected reading instead of another copy of the same parametrised
function. pytest names the test after the module attribute it is bound to.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from groundsearch.query.intent.directives import read_directive

Reading = tuple[str, str | None, bool]


def reading(q: str) -> Reading:
    """(format, chart kind, sure): what tier 1 claims of ``q``."""
    d = read_directive(q)
    return d.format, d.chart_subtype, d.sure


def reads_as(expected: Reading, *queries: str, doc: str | None = None) -> Callable[[str], None]:
    """A test that every one of ``queries`` reads as ``expected``, one case a request (its id is the request)."""

    @pytest.mark.parametrize("q", queries)
    def test(q: str) -> None:
        got = reading(q)
        assert got == expected, f"{q!r} read as {got}, not {expected}"  # a helper module: no assert rewriting

    test.__doc__ = doc
    return test
