"""Collections used by the ingest tests, declared in TOML and parsed the way users' config is."""

from __future__ import annotations

import tomllib
from pathlib import Path

# Imported before anything can import usearch (via the SQLite store): in this environment (onnxruntime
# 1.31.1, usearch 2.26.6) importing onnxruntime *after* usearch.index segfaults the interpreter.
import onnxruntime  # noqa: F401
import pytest

from groundsearch.settings import parse_collections
from groundsearch.types import CollectionSpec

FIXTURES = Path(__file__).parent / "fixtures"

CONFIG = """
[collections.docs]
kind = "documents"

[collections.releases]
kind = "records"
title = "{product} {version}"
text_fields = ["summary"]
id_field = "id"
date_field = "date"
url_field = "url"
fields = { id = "keyword", product = "keyword", version = "keyword", date = "date", summary = "text", url = "url", tags = "list", downloads = "int" }

[collections.papers]
kind = "records"
text_fields = ["abstract"]
fields = { title = "text", authors = "list", year = "int", venue = "keyword", citations = "float", abstract = "text" }
"""


def _specs() -> dict[str, CollectionSpec]:
    return {spec.name: spec for spec in parse_collections(tomllib.loads(CONFIG)["collections"])}


@pytest.fixture(scope="session")
def specs() -> dict[str, CollectionSpec]:
    return _specs()


@pytest.fixture(scope="session")
def fixtures() -> Path:
    return FIXTURES
