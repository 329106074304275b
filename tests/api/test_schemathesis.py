"""Property-based API testing against the published OpenAPI document: no 5xx, every response matches its schema.

Bounded in time: a fixed number of examples per operation (``EXAMPLES``), derandomized so CI runs are repeatable.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.checks import not_a_server_error

from groundsearch.interfaces.api import create_app

from .conftest import fresh
from .live import serve

EXAMPLES = 30  # per operation; 15 operations → about 80 s on this machine


@pytest.fixture(scope="module")
def api_schema(tmp_path_factory: pytest.TempPathFactory) -> Iterator[schemathesis.BaseSchema]:
    engine = fresh(tmp_path_factory.mktemp("st"), search_per_minute=100_000, preview_per_minute=100_000)
    with engine, serve(create_app(engine)) as url:
        yield schemathesis.openapi.from_url(f"{url}/openapi.json")


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.function_scoped_fixture])
def test_api_conforms_to_its_openapi(case: schemathesis.Case) -> None:
    case.call_and_validate(checks=[not_a_server_error, status_code_conformance, content_type_conformance,
                                   response_schema_conformance, response_headers_conformance],
                           timeout=30)
