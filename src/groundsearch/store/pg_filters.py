"""Compile a :class:`SearchFilter` into a SQL ``WHERE`` fragment over the ``items`` table.

Pure: returns constant SQL text with named placeholders plus the values to bind. No value from the
filter is ever formatted into the SQL string, so filter text can never become syntax (quotes, ``%``,
``_`` and backslashes are compared literally because they are bound, and equality is not LIKE).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from ..types import REVIEW_STATUSES, SearchFilter
from .keyword_scope import wanted_classes
from .pg_codec import encode_text, normalize_field_value

__all__ = ["Compiled", "compile_filter"]


@dataclass(frozen=True)
class Compiled:
    sql: str  # a boolean SQL expression; "TRUE" when nothing restricts
    params: dict[str, Any] = field(default_factory=dict)


def compile_filter(f: SearchFilter | None, alias: str = "i", prefix: str = "f") -> Compiled:
    """``alias`` names the items relation in the surrounding query; ``prefix`` keeps placeholder names unique."""
    if f is None:
        return Compiled("TRUE")
    parts: list[str] = []
    params: dict[str, Any] = {}

    def bind(name: str, value: Any) -> str:
        key = f"{prefix}_{name}"
        params[key] = value
        return f"%({key})s"

    if f.collections:
        parts.append(f"{alias}.collection = ANY({bind('collections', [encode_text(c) for c in f.collections])})")
    if f.date_from is not None:
        parts.append(f"{alias}.item_date >= {bind('date_from', f.date_from)}")
    if f.date_to is not None:
        parts.append(f"{alias}.item_date <= {bind('date_to', f.date_to)}")
    parts.append(f"{alias}.status = ANY({bind('statuses', list(f.statuses))})")
    if not f.include_superseded:
        parts.append(f"{alias}.superseded_by IS NULL")
    if f.tenant is not None:
        parts.append(f"{alias}.tenant = {bind('tenant', encode_text(f.tenant))}")
    if f.item_ids:
        parts.append(f"{alias}.id = ANY({bind('item_ids', [encode_text(i) for i in f.item_ids])})")
    if f.exclude_item_ids:
        parts.append(f"NOT ({alias}.id = ANY({bind('exclude_ids', [encode_text(i) for i in f.exclude_item_ids])}))")
    for n, ff in enumerate(f.fields):
        name = bind(f"field{n}_name", encode_text(ff.name))
        normalized = sorted({normalize_field_value(v) for v in ff.values})
        values = bind(f"field{n}_values", normalized)
        hashes = bind(f"field{n}_md5", [hashlib.md5(v.encode("utf-8")).hexdigest() for v in normalized])
        parts.append(
            f"EXISTS (SELECT 1 FROM item_fields fv WHERE fv.item_id = {alias}.id"
            f" AND fv.name = {name} AND md5(fv.value) = ANY({hashes}) AND fv.value = ANY({values}))"
        )
    if f.review_statuses:
        # "unverified" is also the state of an item nobody reviewed, so it is "none of the other statuses"
        wanted = [s for s in REVIEW_STATUSES if s in f.review_statuses]
        others = [s for s in REVIEW_STATUSES if s not in wanted]
        negate = "unverified" in wanted
        values = bind("review_statuses", others if negate else wanted)
        parts.append(f"{'NOT ' if negate else ''}EXISTS (SELECT 1 FROM item_fields rv WHERE rv.item_id = {alias}.id"
                     f" AND rv.name = 'review_status' AND rv.value = ANY({values}))")
    if f.review_due_before is not None:
        # ISO days compare as text under the C collation; the pattern keeps a stray non-date value from matching
        due = bind("review_due_before", f.review_due_before.isoformat())
        parts.append(f"EXISTS (SELECT 1 FROM item_fields rd WHERE rd.item_id = {alias}.id"
                     f" AND rd.name = 'next_review_date' AND rd.value ~ '^[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}$'"
                     f" AND rd.value COLLATE \"C\" <= {due})")
    # The BM25 statistics scope (keyword_scope.py) the keyword leg scores with; not part of the WHERE.
    params["scope_tenant"] = None if f.tenant is None else encode_text(f.tenant)
    params["scope_classes"] = wanted_classes(f)
    return Compiled(" AND ".join(parts) if parts else "TRUE", params)
