"""How retrieval values are shown to clients: snippets, the evidence rows of a response, the plan as JSON.

Shared by the orchestrator and the interfaces; it depends on ``types`` alone, so anything may import it
without an import cycle.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .types import EvidenceHit, EvidenceOut, RetrievalPlan

__all__ = ["SNIPPET_CHARS", "evidence_out", "plan_dict", "snippet"]

SNIPPET_CHARS = 320


def snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > limit // 2 else limit] + "…"


def evidence_out(hit: EvidenceHit) -> EvidenceOut:
    from .answer.safety import hit_flags, result_link

    flags = hit_flags(hit)  # a passage that prompts for credentials does not get its address offered as the link
    fields = {k: (list(v) if isinstance(v, tuple) else v.isoformat() if hasattr(v, "isoformat") else v)
              for k, v in hit.item.fields.items()}
    return EvidenceOut(
        id=hit.chunk.id,
        item_id=hit.item.id,
        collection=hit.item.collection,
        title=hit.item.title,
        url=result_link(hit, flags),
        date=hit.item.date,
        snippet=snippet(hit.chunk.text),
        heading_path=hit.chunk.heading_path,
        fields=fields,
        score=hit.score,
        legs={ls.leg: {"rank": ls.rank, "score": ls.score} for ls in hit.legs},
        safety=flags,
    )


def plan_dict(plan: RetrievalPlan) -> dict[str, Any]:
    out = dataclasses.asdict(plan)
    f = out["filter"]
    for key in ("date_from", "date_to"):
        if f[key] is not None:
            f[key] = f[key].isoformat()
    return out
