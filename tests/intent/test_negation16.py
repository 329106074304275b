"""Session 16's negation classes (issue 10): refusals tier 1 read as wishes, and wishes a refusal sets up that it
read as unsure, so the classifier, which reads the refusal's words as asking for nothing, dropped the shape.

Requests written for the classes, never a split's row; each class was seen in three or more learning splits."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from groundsearch.query.intent.directives import read_directive
from groundsearch.query.intent.format_model import FORMATS, load_calibration, restrict
from groundsearch.query.intent.format_step import FormatStep, contrasted

from .readings import reads_as

# the negative determiners of Spanish, Portuguese and French ("ningún", "nenhuma", "aucun"), as Italian "nessun" and
# German "kein", and "another" between a negation and its word ("I don't want another table", "not another chart")
test_a_negative_determiner_refuses = reads_as(
    ("default", None, True),
    "no necesito ningún gráfico, solo dime quién escribió DPR",
    "no quiero ninguna tabla; ¿cuál es la última versión de Qdrant?",
    "não preciso de nenhuma tabela, só o nome do autor",
    "je ne veux aucun tableau, dis-moi juste la date de sortie",
    "please, not another chart. which venue published ColBERT?",
    "I don't want another table — which paper introduced RAG?",
)

# the shape judged unfit for the ask, after its word: "… are not helpful", "… is the wrong tool", "… doesn't work"
test_a_shape_judged_unfit_is_refused = reads_as(
    ("default", None, True),
    "tables are honestly not helpful here; what does ColBERT do?",
    "a chart is the wrong tool for this; which venue has the most papers?",
    "the pie chart doesn't work for me, what's the share in words?",
)


def test_a_shape_judged_unfit_sets_up_the_other_shape_as_the_wish():
    for q in ("The bar chart doesn't work for me. Show the same counts as a line over time instead.",
              "a table is the wrong tool here — I'd like the co-authors as a network"):
        d = read_directive(q)
        assert d.sure and d.format != "default" and contrasted(d), q


# a format word of a later clause than a refused one of another format, with no verb putting it to use: the
# replacement the refusal sets up, as sure as "not a table but a chart" (the classifier may say which format, never
# none)
test_the_shape_after_a_refused_one_is_the_wish = reads_as(
    ("table", None, True),
    "I don't need a chart, a short table of the ACL papers will do",
    "a timeline would be overkill — a plain table of versions and dates is enough",
    "skip the network; a two-column table of author and paper count",
)


def test_the_shape_after_a_refusal_is_contrasted():
    d = read_directive("no chart please, a plain table of Haystack releases")
    assert d.sure and d.format == "table" and contrasted(d)


# the same format named again after its refusal stays unsure: "pas de graphique, une réponse courte"
def test_a_later_word_of_the_refused_format_is_not_a_wish():
    d = read_directive("no chart — maybe a short answer about line charts in the docs?")
    assert d.format == "default" or not d.sure


class _SaysNone:
    """A classifier sure the request asks for nothing."""

    def predict(self, query, candidates=()):
        p = np.array([0.99 if f == "default" else 0.0025 for f in FORMATS])
        return restrict(p, candidates)


def test_a_format_word_heading_what_it_shows_is_not_overruled_to_no_structure():
    """The classifier reads "Venn of which vector DBs …" as a question about the databases; the shape named with its
    content is the wish (format_step.holds_a_shape)."""
    step = FormatStep(lambda: _SaysNone(), replace(load_calibration(), overrides={"used": 0.5}))
    for query, fmt in (("Venn of which agent frameworks ship on PyPI and npm.", "chart"),
                       ("quick donut of the registry split among last month's releases?", "chart"),
                       ("table of every docs page that mentions Redis", "table"),
                       ("org chart showing which packages hang off langchain-core", "graph")):
        decision, _ = step.decide(query, read_directive(query))
        assert (decision.format, decision.tier) == (fmt, "rules"), query
    # a format word that heads nothing is still the classifier's to overrule (tier 1 reads this one as a used chart)
    query = "the chart in the README looked odd to me, what does it measure?"
    d = read_directive(query)
    assert (d.format, d.sure) == ("chart", True)
    assert step.decide(query, d)[0].format == "default"
