"""Faithfulness judged by an LLM: is an answer supported by its document? The third opinion beside the audit.

The audit checks each sentence against the passage it cites; a judge reads the whole answer against its
evidence, the way ARES (Saad-Falcon et al., NAACL 2024) prompts its judges. The
judge prompt is versioned (``models/prompts/<version>/judge_faithfulness.txt``, named in every report as
:data:`JUDGE_VERSION`) and its one-word verdict is decoded under a JSON Schema, so a weak model still answers
in shape. Before its verdicts mean anything, :func:`agreement` measures it against ARES' hand-labelled
``judge_scoring`` rows (``answer_faithful``): accuracy and Cohen's kappa, on the held-out rows named in
``data/judge_heldout.json`` and on the rest.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import InvalidInput, LLMError
from ..models.base import LLM, ChatMessage

__all__ = ["JUDGE_VERSION", "agreement", "cohen_kappa", "judge_faithful", "load_judge_rows"]

JUDGE_VERSION = "judge_faithfulness/v1"
JUDGE_TOKENS = 16  # {"supported": "yes"} and nothing else
DOCUMENT_CHARS = 2400  # ARES' longest row is 2,375 characters; a search answer's cited passages are cut here
_SCHEMA = {"title": "verdict", "type": "object", "properties": {"supported": {"type": "string", "enum": ["yes", "no"]}},
           "required": ["supported"], "additionalProperties": False}


def _neutral(text: str) -> str:
    """Angle brackets out of data, so a document cannot close its tag and speak as the instructions."""
    return text.replace("<", "‹").replace(">", "›")


def judge_faithful(llm: LLM, system: str, question: str, document: str, answer: str) -> bool | None:
    """The judge's verdict on ``answer`` against ``document``; ``None`` when the model failed or answered
    out of shape (counted apart, never as either verdict)."""
    user = (f"<question>{_neutral(question)}</question>\n<document>{_neutral(document[:DOCUMENT_CHARS])}"
            f"</document>\n<answer>{_neutral(answer)}</answer>")
    try:
        completion = llm.complete([ChatMessage("system", system), ChatMessage("user", user)],
                                  max_tokens=JUDGE_TOKENS, json_schema=_SCHEMA)
        verdict = json.loads(completion.text).get("supported")
    except (LLMError, ValueError, AttributeError):
        return None
    return {"yes": True, "no": False}.get(verdict)


def cohen_kappa(pairs: Sequence[tuple[bool, bool]]) -> float | None:
    """Cohen's kappa of (label, verdict) pairs; ``None`` when chance agreement is total (one class only)."""
    n = len(pairs)
    if not n:
        return None
    observed = sum(a == b for a, b in pairs) / n
    p_label = sum(a for a, _ in pairs) / n
    p_judge = sum(b for _, b in pairs) / n
    chance = p_label * p_judge + (1 - p_label) * (1 - p_judge)
    return None if chance == 1 else (observed - chance) / (1 - chance)


def load_judge_rows(path: Path) -> list[dict[str, Any]]:
    """ARES ``judge_scoring.jsonl`` rows (``query``, ``document``, ``answer``, ``answer_faithful``)."""
    file = path / "judge_scoring.jsonl" if path.is_dir() else path
    if not file.is_file():
        raise InvalidInput(f"{file} does not exist: give the ares_judge_scoring folder", details={"path": str(file)})
    rows = [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines() if line.strip()]
    for n, row in enumerate(rows, start=1):
        if not isinstance(row.get("answer_faithful"), bool):
            raise InvalidInput(f"{file}, row {n}: 'answer_faithful' must be true or false", details={"row": n})
    return rows


def heldout_judge_ids() -> frozenset[str]:
    doc = json.loads(resources.files("groundsearch.evaluation.data").joinpath("judge_heldout.json").read_text("utf-8"))
    return frozenset(doc["heldout"])


@dataclass(frozen=True, slots=True)
class _Scored:
    id: str
    label: bool
    verdict: bool | None


def _summary(scored: Sequence[_Scored]) -> dict[str, Any]:
    judged = [(s.label, s.verdict) for s in scored if s.verdict is not None]
    kappa = cohen_kappa(judged)  # type: ignore[arg-type]
    return {
        "rows": len(scored), "judged": len(judged), "failed": len(scored) - len(judged),
        "accuracy": round(sum(a == b for a, b in judged) / len(judged), 4) if judged else None,
        "kappa": round(kappa, 4) if kappa is not None else None,
        "said_yes": sum(b for _, b in judged), "labelled_yes": sum(a for a, _ in judged),
        "confusion": {"yes_yes": sum(a and b for a, b in judged), "yes_no": sum(a and not b for a, b in judged),
                      "no_yes": sum(b and not a for a, b in judged), "no_no": sum(not a and not b for a, b in judged)},
    }


def agreement(llm: LLM, system: str, rows: Sequence[dict[str, Any]], *, split: str = "all",
              progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """The judge's verdicts against ``answer_faithful`` for the rows of ``split`` (all / heldout / tune)."""
    held = heldout_judge_ids()
    chosen = [r for r in rows if split == "all" or (r["_id"] in held) == (split == "heldout")]
    scored = []
    for i, row in enumerate(chosen, start=1):
        verdict = judge_faithful(llm, system, row["query"], row["document"], row["answer"])
        scored.append(_Scored(row["_id"], row["answer_faithful"], verdict))
        if progress is not None:
            progress(i, len(chosen))
    out: dict[str, Any] = {"judge": JUDGE_VERSION, "model": getattr(llm, "name", None), "split": split,
                           "all": _summary(scored),
                           "verdicts": {s.id: s.verdict for s in scored}}
    for name, keep in (("heldout", True), ("tune", False)):
        part = [s for s in scored if (s.id in held) == keep]
        if part:
            out[name] = _summary(part)
    return out


def configured_judge(llm_settings: Any) -> tuple[LLM, Callable[[str, str, str], bool | None]]:
    """The configured LLM as a judge: ``(model, judge(question, passages, answer))``; ``ConfigError`` when none is."""
    from ..models.llm import build_llm, load_prompt

    llm = build_llm(llm_settings)
    system = load_prompt("judge_faithfulness", llm_settings.prompts_version)
    return llm, lambda q, doc, ans: judge_faithful(llm, system, q, doc, ans)


def run_judge_agreement(llm_settings: Any, path: Path, split: str,
                        progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """``eval --judge-agreement``: the configured judge against ARES' labels (see :func:`agreement`)."""
    from ..models.llm import build_llm, load_prompt

    rows = load_judge_rows(path)
    return agreement(build_llm(llm_settings), load_prompt("judge_faithfulness", llm_settings.prompts_version), rows,
                     split=split, progress=progress)
