"""The exported Intent schema is strict-mode ready, committed, closed over domains; output validation is strict."""

from __future__ import annotations

import json
from importlib import resources

import jsonschema
import pytest

from groundsearch.errors import LLMError
from groundsearch.query.intent.schema import (
    DEFAULT_DOMAINS,
    InvalidIntentOutput,
    domain_names,
    intent_json_schema,
    parse_intent_output,
)
from groundsearch.settings import Settings
from groundsearch.types import CollectionSpec

VALID = {
    "domains": ["papers", "releases"],
    "retrieval_pattern": "agentic",
    "format": "table",
    "chart_subtype": None,
    "horizon_days": 90,
    "comparison_targets": [],
    "topic_keywords": ["ai", "trends"],
    "complexity": "complex",
    "confidence": 0.9,
}


def _walk(node):
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


def test_committed_schema_equals_generated():
    committed = json.loads((resources.files("groundsearch.query.intent") / "intent.schema.json").read_text())
    assert committed == intent_json_schema(DEFAULT_DOMAINS), (
        "intent.schema.json is stale: regenerate it from intent_json_schema()"
    )


def test_schema_is_strict_mode_ready():
    schema = intent_json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) == set(schema["properties"])
    assert "tier" not in schema["properties"]  # the cascade, not the model, names the tier
    for node in _walk(schema):
        if node.get("type") == "array":
            assert "maxItems" in node, node
        if node.get("type") in ("number", "integer"):
            assert "minimum" in node and "maximum" in node, node
        if node.get("type") == "object":
            assert node.get("additionalProperties") is False
        assert "uniqueItems" not in node  # rejected by OpenAI strict mode; checked after generation


def test_schema_is_closed_over_configured_domains():
    settings = Settings(
        collections=(CollectionSpec("articles"), CollectionSpec("research")),
        domains={"articles": ("articles",), "research": ("research",)},
    )
    names = domain_names(settings)
    schema = intent_json_schema(names)
    assert schema["properties"]["domains"]["items"]["enum"] == ["articles", "research"]
    assert domain_names(Settings()) == DEFAULT_DOMAINS
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**VALID, "domains": ["papers"]}, schema)


def test_valid_output_is_accepted_and_validates_against_schema():
    jsonschema.validate(VALID, intent_json_schema())
    intent = parse_intent_output(json.dumps(VALID), domains=DEFAULT_DOMAINS, finish_reason="stop")
    assert intent.format == "table" and intent.domains == ("papers", "releases") and intent.tier == "llm"


@pytest.mark.parametrize(
    ("text", "finish", "reason"),
    [
        ("not json at all", "stop", "not JSON"),
        ('{"domains": [', "stop", "not JSON"),
        (json.dumps(VALID), "length", "finish_reason 'length'"),
        (json.dumps([VALID]), "stop", "not a JSON object"),
        (json.dumps({**VALID, "confidence": 95}), "stop", "confidence"),
        (json.dumps({**VALID, "confidence": -0.1}), "stop", "confidence"),
        (json.dumps({**VALID, "horizon_days": 0}), "stop", "horizon_days"),
        (json.dumps({**VALID, "horizon_days": 12.5}), "stop", "horizon_days"),
        (json.dumps({**VALID, "domains": ["papers", "papers"]}), "stop", "duplicate"),
        (json.dumps({**VALID, "topic_keywords": ["AI", "ai "]}), "stop", "duplicate"),
        (json.dumps({**VALID, "domains": ["kg"]}), "stop", "unknown domains"),
        (json.dumps({**VALID, "format": "pie"}), "stop", "format"),
        (json.dumps({**VALID, "extra": 1}), "stop", "unexpected ['extra']"),
        (json.dumps({k: v for k, v in VALID.items() if k != "complexity"}), "stop", "missing ['complexity']"),
        (json.dumps({**VALID, "topic_keywords": ["x" * 65]}), "stop", "at most 64"),
        (json.dumps({**VALID, "confidence": True}), "stop", "numbers"),
    ],
)
def test_invalid_output_is_rejected_with_reason(text, finish, reason):
    with pytest.raises(InvalidIntentOutput) as info:
        parse_intent_output(text, domains=DEFAULT_DOMAINS, finish_reason=finish, model="m1")
    assert reason in info.value.message
    assert isinstance(info.value, LLMError)
