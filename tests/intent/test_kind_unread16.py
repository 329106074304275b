"""The format step reads a kind's name in a language tier 1 cannot read through the kind step's fold
(``kinds.unread_candidates``): Indic names across the nine scripts, Cyrillic ones only where tier 1 read no format
word of its own. The requests are new phrasings, not learning rows."""

from __future__ import annotations

import numpy as np
import pytest

from groundsearch.query.intent import kinds
from groundsearch.query.intent.directives import fold, read_directive
from groundsearch.query.intent.format_model import FORMATS, restrict
from groundsearch.query.intent.format_step import FormatStep

ASSAMESE_PIE = "বিভিন্ন ভাষাৰ অংশ এখন পাই চাৰ্টত দেখুৱাওক।"  # ৰ: Assamese r, the Bengali block's
ODIA_PIE = "ଭାଷା ଅନୁସାରେ ଏକ ପାଇ ଚାର୍ଟ ଦେଖାନ୍ତୁ।"
BELARUSIAN_BAR = "Зрабіце слупкавую, калі ласка: колькі артыкулаў выйшла ў кожным годзе."  # no chart word


class TableLeaning:
    """A format classifier that reads a table first and a chart second, and records what it was offered."""

    def __init__(self) -> None:
        self.p = np.array([{"table": 0.6, "chart": 0.3, "default": 0.1}.get(f, 0.0) for f in FORMATS]) + 1e-6
        self.offered: list[tuple[str, ...]] = []

    def predict(self, query, candidates=()):
        self.offered.append(tuple(candidates))
        return restrict(self.p / self.p.sum(), candidates)


@pytest.mark.parametrize("query,kind", [(ASSAMESE_PIE, "pie"), (ODIA_PIE, "pie"), (BELARUSIAN_BAR, "bar")])
def test_a_kind_named_where_tier_1_found_no_format_word_makes_the_choice_a_chart(query, kind):
    directive = read_directive(query)
    assert (directive.evidence, directive.candidates) == ("unread", ())  # tier 1 found nothing to read
    assert kinds.unread_named(fold(query), fold) == kind
    assert kinds.unread_candidates(directive.candidates, directive.evidence, query, fold) == ("chart",)
    clf = TableLeaning()
    decision, _ = FormatStep(lambda: clf).decide(query, directive)
    assert decision.format == "chart"  # among all formats this classifier answers a table
    assert "table" not in clf.offered[0] and "chart" in clf.offered[0]


def test_nothing_named_or_two_kinds_named_leave_every_format_open():
    for query in ("সকলো সংস্কৰণ এখন সাৰণীত দেখুৱাওক।",  # a table, in words tier 1 does not know
                  "পাই চাৰ্ট নহয়, বাৰ চাৰ্টত দেখুৱাওক।"):  # not a pie, a bar: which is refused is not read
        directive = read_directive(query)
        assert directive.evidence == "unread"
        assert kinds.unread_candidates(directive.candidates, directive.evidence, query, fold) == ()
        clf = TableLeaning()
        assert FormatStep(lambda: clf).decide(query, directive)[0].format == "table"
        assert clf.offered == [()]


def test_a_cyrillic_name_beside_a_chart_word_tier_1_reads_keeps_tier_1s_sure_wish():
    query = "Покажи кръгова диаграма на версиите"  # Bulgarian: "диаграма" is read with Russian's grammar
    directive = read_directive(query)
    assert directive.sure and directive.format == "chart" and directive.evidence == "used"
    assert kinds.unread_candidates(directive.candidates, directive.evidence, query, fold) == directive.candidates


def test_a_candidate_tier_1_read_is_left_as_it_is():
    query = "ਹਰ ਮਹੀਨੇ ਦੇ ਰਿਲੀਜ਼ ਇੱਕ ਲਾਈਨ ਚਾਰਟ ਵਿੱਚ ਦਿਖਾਓ"  # Punjabi line chart: a bare candidate already
    directive = read_directive(query)
    assert directive.evidence == "bare"
    assert kinds.unread_candidates(directive.candidates, directive.evidence, query, fold) == directive.candidates
