"""``facts.groups`` ranks the charts' groups, the counted answer's values and the summary's most frequent value,
so a list field has one rule.

A key may give a hit several values (a paper's authors): the hit is in the group of each, once, even when a
value is written twice in the one field.
"""

from __future__ import annotations

from groundsearch.answer.facts import groups
from groundsearch.answer.summary import rows_sentence

from .helpers import RELEASES, paper, release

PAPERS = [paper(1, "Dense retrieval at scale", ("Ada Lovelace", "Alan Turing"), "SIGIR", 1),
          paper(2, "Sparse retrieval revisited", ("Ada Lovelace", "Ada Lovelace"), "arXiv", 2),
          paper(3, "Agents that plan", ("Grace Hopper",), "arXiv", 3),
          paper(4, "Reranking with LLMs", ("Alan Turing", "Ada Lovelace"), "arXiv", 4)]


def test_a_multi_valued_key_puts_a_hit_in_each_of_its_groups_once():
    ranked = groups(PAPERS, lambda h: h.item.fields["authors"])
    assert ranked == [("Ada Lovelace", ["papers:p1#0", "papers:p2#0", "papers:p4#0"]),
                      ("Alan Turing", ["papers:p1#0", "papers:p4#0"]),
                      ("Grace Hopper", ["papers:p3#0"])]


def test_a_single_valued_key_ranks_as_before_and_none_is_no_group():
    ranked = groups(PAPERS, lambda h: None if h.item.fields["venue"] == "SIGIR" else h.item.fields["venue"])
    assert ranked == [("arXiv", ["papers:p2#0", "papers:p3#0", "papers:p4#0"])]
    assert groups(PAPERS, lambda h: ()) == []  # a hit with no values is in no group, as with None


def test_past_the_limit_the_smallest_groups_of_a_multi_valued_key_merge_into_other():
    ranked = groups(PAPERS, lambda h: h.item.fields["authors"], limit=2)
    assert ranked == [("Ada Lovelace", ["papers:p1#0", "papers:p2#0", "papers:p4#0"]),
                      ("other (2 values)", ["papers:p1#0", "papers:p4#0", "papers:p3#0"])]


def test_the_summary_names_the_value_the_chart_puts_first_also_on_a_tie():
    rows = [release(1, "zeta", "1.0", "s", 1), release(2, "alpha", "1.0", "s", 2),
            release(3, "zeta", "1.1", "s", 3), release(4, "alpha", "1.1", "s", 4)]
    top, ids = groups(rows, lambda h: h.item.fields["product"])[0]
    said = rows_sentence("releases", rows, RELEASES, "table")
    assert top == "alpha" and "the most frequent product is alpha (two of them)" in said.text, said.text
    assert set(ids) <= set(said.citations)
