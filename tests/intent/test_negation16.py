"""Session 16's negation classes (issue 10): refusals tier 1 read as wishes.

Requests written for the classes, never a split's row; each class was seen in three or more learning splits."""

from __future__ import annotations

from groundsearch.query.intent.directives import read_directive
from groundsearch.query.intent.format_step import contrasted

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
