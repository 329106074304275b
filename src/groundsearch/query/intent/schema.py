"""The Intent as an LLM must produce it: a closed JSON Schema, and the validation run after generation.

Why both: grammar-constrained decoding (llama.cpp) enforces enums, required keys, ``additionalProperties``
and ``maxItems`` but *not* numeric bounds or uniqueness (``../shared/MODELS.md``), and a truncated reply
(``finish_reason == "length"``) can be syntactically cut. So the schema narrows what can be generated, and
:func:`parse_intent_output` decides what is accepted.

The schema is closed over the configured domain names at run time, so a model cannot invent a domain.
``tier`` is not part of it: the cascade, not the model, says which tier answered.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, get_args

from pydantic import ValidationError

from ...errors import LLMError
from ...settings import Settings
from ...types import INTENT_SCHEMA_VERSION, ChartSubtype, Complexity, Format, Intent, RetrievalPattern

__all__ = [
    "DEFAULT_DOMAINS",
    "InvalidIntentOutput",
    "MAX_KEYWORD_CHARS",
    "domain_names",
    "intent_json_schema",
    "parse_intent_output",
    "schema_name",
]

# Used when ``settings.domains`` is empty: the demo corpus has collections of these names, and the planner
# maps a domain named like a collection to it. Synonyms (articles, research, launches…) are rule cues,
# not separate domains, so the LLM's choice stays small.
DEFAULT_DOMAINS: tuple[str, ...] = ("docs", "releases", "papers")

MAX_DOMAINS = 8  # Intent.domains max_length
MAX_TARGETS = 8  # Intent.comparison_targets max_length
MAX_KEYWORDS = 16  # Intent.topic_keywords max_length
# Long free text in a "keyword" is how a model (or an injected instruction) smuggles prose into the plan.
MAX_KEYWORD_CHARS = 64


class InvalidIntentOutput(LLMError):
    """The model answered, but not with an acceptable Intent (the reason says which rule it broke)."""

    code = "LLM_INVALID_OUTPUT"


def domain_names(settings: Settings) -> tuple[str, ...]:
    """Configured domain names (``settings.domains`` keys), or :data:`DEFAULT_DOMAINS` when none are set."""
    return tuple(settings.domains) or DEFAULT_DOMAINS


def schema_name() -> str:
    return f"intent_v{INTENT_SCHEMA_VERSION}"


def intent_json_schema(domains: Sequence[str] = DEFAULT_DOMAINS) -> dict[str, Any]:
    """A strict-mode JSON Schema for the model-produced part of :class:`~groundsearch.types.Intent`.

    Every property is required and nullable ones say so with ``anyOf`` (OpenAI strict mode has no optional
    keys); every array has ``maxItems`` (an unbounded array is how a small model loops until ``max_tokens``).
    Keywords OpenAI strict mode rejects (``uniqueItems``, string lengths) are left out and checked after.
    """
    if not domains:
        raise ValueError("intent_json_schema needs at least one domain name")
    domain_enum = list(dict.fromkeys(domains))
    props: dict[str, Any] = {
        "domains": {
            "type": "array",
            "items": {"type": "string", "enum": domain_enum},
            "maxItems": min(len(domain_enum), MAX_DOMAINS),
        },
        "retrieval_pattern": {"type": "string", "enum": list(get_args(RetrievalPattern))},
        "format": {"type": "string", "enum": list(get_args(Format))},
        "chart_subtype": {
            "anyOf": [{"type": "string", "enum": list(get_args(ChartSubtype))}, {"type": "null"}],
        },
        "horizon_days": {"anyOf": [{"type": "integer", "minimum": 1, "maximum": 3650}, {"type": "null"}]},
        "comparison_targets": {"type": "array", "items": {"type": "string"}, "maxItems": MAX_TARGETS},
        "topic_keywords": {"type": "array", "items": {"type": "string"}, "maxItems": MAX_KEYWORDS},
        "complexity": {"type": "string", "enum": list(get_args(Complexity))},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
    }
    return {
        "title": "Intent",
        "description": f"What a search request asks for (intent schema version {INTENT_SCHEMA_VERSION}).",
        "type": "object",
        "properties": props,
        "required": list(props),
        "additionalProperties": False,
    }


def parse_intent_output(
    text: str, *, domains: Sequence[str], finish_reason: str | None = None, model: str = "llm"
) -> Intent:
    """Accept a model's reply only if it is a complete, in-bounds Intent over ``domains``.

    Raises :class:`InvalidIntentOutput` naming the first broken rule: truncated reply, not JSON, missing
    or extra keys, unknown enum values or domains, out-of-bounds numbers, duplicate or over-long items.
    """

    def bad(reason: str) -> InvalidIntentOutput:
        return InvalidIntentOutput(f"{model} returned an invalid intent: {reason}", details={"model": model})

    if finish_reason == "length":
        raise bad("reply was cut at max_tokens (finish_reason 'length')")
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, TypeError, RecursionError) as exc:  # RecursionError: nested past the depth
        raise bad(f"not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise bad("not a JSON object")
    expected = set(intent_json_schema(domains)["required"])
    if set(data) != expected:
        missing, extra = sorted(expected - set(data)), sorted(set(data) - expected)
        raise bad(f"keys differ from the schema (missing {missing}, unexpected {extra})")
    for key in ("domains", "comparison_targets", "topic_keywords"):
        values = data[key]
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise bad(f"{key} must be a list of strings")
        folded = [v.strip().casefold() for v in values]
        if len(set(folded)) != len(folded):
            raise bad(f"{key} has duplicate items {values}")
        if any(not v.strip() or len(v) > MAX_KEYWORD_CHARS for v in values):
            raise bad(f"{key} items must be non-empty and at most {MAX_KEYWORD_CHARS} characters")
    unknown = [d for d in data["domains"] if d not in domains]
    if unknown:
        raise bad(f"unknown domains {unknown}; allowed {list(domains)}")
    if isinstance(data["confidence"], bool) or isinstance(data["horizon_days"], bool):
        raise bad("confidence and horizon_days must be numbers")
    if isinstance(data["horizon_days"], float):
        raise bad("horizon_days must be an integer")
    try:
        return Intent.model_validate({**data, "tier": "llm"})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise bad(f"{where}: {first['msg']}") from None
