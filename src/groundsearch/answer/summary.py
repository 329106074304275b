"""The one short paragraph beside a table, chart or timeline: what is true of the rows, computed and cited.

When structured results carry the content, prose should not repeat rows, and it should not fill the
space with boilerplate either ("Recurring themes across these results include AI"). What a reader can
use is what the rows say together: how many there are, the range of their dates, and the value that
recurs most in a declared field (the most frequent product, venue or author). Each figure is computed
from the stored fields of the rows shown and each sentence cites the rows that bear it out: the newest
and oldest for a date range, the rows holding the recurring value for that value.

Counts are written in words up to twenty: a count is a fact about the rows, not a string in any one of
them, so the audit (which looks for digits in the cited text) has nothing to match it against. Pure.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

from ..query.gate import grounded_field_aggregate
from ..types import CollectionSpec, EvidenceHit, Prose, Sentence
from .charts import headline
from .facts import groups, unique_items

__all__ = ["SHORT_WORDS", "count_words", "counted_answer", "short_paragraph"]

SHORT_WORDS = 80
_WORDS = ("no one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
          "seventeen eighteen nineteen twenty").split()
_RECURRING_FIELDS = ("product", "venue", "authors", "registry", "author", "source")
COUNTED_VALUES = 5  # values named in a counted answer, largest first; the results list holds every row


def count_words(n: int) -> str:
    return _WORDS[n] if 0 <= n < len(_WORDS) else f"{n:,}"


def _when(d: dt.date) -> str:
    """Month-precision dates (stored as the 1st) are written as the month, as the records give them."""
    return f"{d:%Y-%m}" if d.day == 1 else d.isoformat()


def _plural(n: int, word: str) -> str:
    return f"{count_words(n)} {word if n == 1 else word + 's'}"


def _noun(collection: str) -> str:
    return collection[:-1] if collection.endswith("s") else collection


def _recurring(rows: Sequence[EvidenceHit], spec: CollectionSpec | None) -> tuple[str, str, list[str]] | None:
    """(field, value, ids) of the value that recurs most in a declared keyword/list field, if any recurs.

    Ranked by ``facts.groups``, as the counted answers and charts rank the same field, so a tie names the
    same value in the summary as at the top of the chart: the first by value."""
    if spec is None:
        return None
    declared = {f.name for f in spec.fields if f.type in ("keyword", "list")} - {spec.id_field}
    for name in (f for f in _RECURRING_FIELDS if f in declared):
        ranked = groups(rows, lambda h: _field_values(h, name))
        if ranked and len(ranked[0][1]) >= 2:
            return name, ranked[0][0], ranked[0][1]
    return None


def rows_sentence(collection: str, rows: Sequence[EvidenceHit], spec: CollectionSpec | None, shown: str) -> Sentence:
    """"The releases table shows twelve releases from 2025-11 to 2026-10, most often of langchain (three)."""
    dated = sorted((h for h in rows if h.item.date), key=lambda h: h.item.date)  # type: ignore[arg-type,return-value]
    text = f"The {collection} {shown} shows {_plural(len(rows), _noun(collection))}"
    cites: list[str] = []
    if dated:
        lo, hi = dated[0].item.date, dated[-1].item.date
        assert lo is not None and hi is not None
        text += f" dated {_when(lo)}" if _when(lo) == _when(hi) else f" dated {_when(lo)} to {_when(hi)}"
        cites += [dated[-1].id, dated[0].id]
    recurring = _recurring(rows, spec)
    if recurring is not None:
        name, value, ids = recurring
        text += f"; the most frequent {name.rstrip('s')} is {value} ({count_words(len(ids))} of them)"
        cites += ids[:2]
    return Sentence(text=text + ".", citations=tuple(dict.fromkeys(cites or [h.id for h in rows[:1]])))


def short_paragraph(results: Sequence[Any], hits: Sequence[EvidenceHit],
                    specs: Mapping[str, CollectionSpec]) -> Prose:
    """At most ``SHORT_WORDS`` words about the structured results, one sentence per result."""
    by_id = {h.id: h for h in hits}
    sentences: list[Sentence] = []
    for r in results:
        if r.kind == "table" and r.row_ids:
            rows = [by_id[i] for i in r.row_ids if i in by_id]
            if rows:
                sentences.append(rows_sentence(r.collection, rows, specs.get(r.collection), "table"))
        elif r.kind == "chart" and r.points:
            said = headline(r)  # per chart kind: a stacked bar's largest bar is a sum, a scatter's points are results
            ids = tuple(dict.fromkeys(said[1]))[:3] if said else ()
            if said and ids:
                sentences.append(Sentence(text=said[0], citations=ids))
        elif r.kind == "timeline" and r.events:
            events = sorted(r.events, key=lambda e: e.date)
            span = (f"on {_when(events[0].date)}" if events[0].date == events[-1].date
                    else f"from {_when(events[0].date)} to {_when(events[-1].date)}")
            sentences.append(Sentence(text=f"The timeline places {_plural(len(events), 'event')} {span}.",
                                      citations=tuple(dict.fromkeys((events[0].source_id, events[-1].source_id)))))
        elif r.kind == "unsupported-format":
            named = any(w in r.requested.lower() for w in ("diagram", "chart", "plot", "map", "graph", "timeline"))
            asked = r.requested if named else f"{r.requested} diagram"
            # a chart kind stands in as "a bar chart"; a timeline or graph the results can't fill, as "a table"
            shown = (f"{r.substitute.split(':')[-1]} chart" if r.substitute.startswith("chart:")
                     else r.substitute.split(":")[-1])
            sentences.append(Sentence(text=f"A {asked} cannot be drawn from the stored data, so a "
                                           f"{shown} is shown instead.",
                                      citations=(hits[0].id,) if hits else ()))
    kept: list[Sentence] = []
    for s in sentences:
        if sum(len(k.text.split()) for k in kept) + len(s.text.split()) > SHORT_WORDS:
            break
        kept.append(s)
    return Prose(sentences=tuple(kept), mode="extractive")


def _field_values(hit: EvidenceHit, field: str) -> list[str]:
    """The non-blank values of a stored field as text: a list field's each, a scalar's one."""
    raw = hit.item.fields.get(field)
    values = raw if isinstance(raw, tuple) else (raw,) if raw is not None else ()
    return [str(v) for v in values if str(v).strip()]


def counted_answer(query: str, hits: Sequence[EvidenceHit], specs: Mapping[str, CollectionSpec]) -> Prose | None:
    """The answer to a question that counts a collection by a field it names ("which venue has the most papers?"):
    the field's values over the results of that collection, largest first, each citing rows that hold it; else None.

    Quoting sentences cannot answer it (no paper says which venue has the most papers), and a model narrating
    five passages would count five passages; the stored fields of every result can. Counted over the results
    found, and said so: the page is what the reader can check, not the whole collection.
    """
    present = [specs[c] for c in dict.fromkeys(h.item.collection for h in hits) if c in specs]
    grounded = grounded_field_aggregate(query, present)
    if grounded is None:
        return None
    collection, field = grounded
    rows = [h for h in unique_items(hits) if h.item.collection == collection]
    # every value is named or counted in the sentence, so none is merged into an "other" group
    tally = groups(rows, lambda h: _field_values(h, field), limit=10**6)
    if not tally:
        return None
    name = field.replace("_", " ")
    name = name[:-1] if field.endswith("s") and field != "status" else name
    top_n = len(tally[0][1])
    tied = [v for v, ids in tally if len(ids) == top_n]
    without = sum(1 for h in rows if not h.item.fields.get(field))
    text = (f"Counting the stored {name} of the {_plural(len(rows), _noun(collection))} found"
            f"{f' ({count_words(without)} store none)' if without else ''}, ")
    if top_n == 1 and len(tied) > 1:  # every value once ("how many versions per product" of one product): no ranking
        shown = tied[:COUNTED_VALUES]
        text += (f"each of the {count_words(len(tied))} values occurs once: {', '.join(shown)}"
                 + (f"; {count_words(len(tied) - len(shown))} more values" if len(tied) > len(shown) else ""))
        return Prose(sentences=(Sentence(text=text + ".", citations=tuple(
            dict.fromkeys(ids[0] for _, ids in tally[: len(shown)]))),), mode="extractive")
    if len(tied) == 1:
        text += f"the most frequent is {tied[0]} ({count_words(top_n)})"
    else:
        text += f"{', '.join(tied[:-1])} and {tied[-1]} share the most ({count_words(top_n)} each)"
    rest = [(v, ids) for v, ids in tally if len(ids) < top_n][: max(0, COUNTED_VALUES - len(tied))]
    if rest:
        text += "; then " + ", ".join(f"{v} ({count_words(len(ids))})" for v, ids in rest)
    if len(tally) > len(tied) + len(rest):
        text += f"; {count_words(len(tally) - len(tied) - len(rest))} more values"
    cites = [i for v, ids in tally[: len(tied) + len(rest)] for i in ids[:1]]
    return Prose(sentences=(Sentence(text=text + ".", citations=tuple(dict.fromkeys(cites))),), mode="extractive")
