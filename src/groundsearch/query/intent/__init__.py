"""Intent understanding: the three-tier cascade (rules, prototypes, LLM) and the Intent JSON Schema."""

from .cascade import Classification, IntentCascade
from .schema import DEFAULT_DOMAINS, domain_names, intent_json_schema, parse_intent_output

__all__ = [
    "DEFAULT_DOMAINS",
    "Classification",
    "IntentCascade",
    "domain_names",
    "intent_json_schema",
    "parse_intent_output",
]
