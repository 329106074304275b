from __future__ import annotations

from pathlib import Path

import pytest

from groundsearch.errors import ConfigError
from groundsearch.settings import GROQ_BASE_URL, load_settings

TOML = """
data_dir = "data"
embedder = "hash"
default_collection = "releases"

[retrieval]
rrf_k = 30

[domains]
releases = ["releases"]

[collections.docs]
kind = "documents"

[collections.releases]
kind = "records"
id_field = "id"
title = "{product} {version}"
text_fields = ["summary"]
date_field = "date"
table_columns = ["date", "product", "version", "summary"]
labels = { date = "Date" }

[collections.releases.fields]
id = "keyword"
product = "keyword"
version = "keyword"
summary = "text"
date = "date"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "groundsearch.toml"
    path.write_text(text)
    return path


def test_toml_is_parsed_into_typed_settings(tmp_path: Path) -> None:
    s = load_settings(write(tmp_path, TOML), env={})
    assert s.data_dir == tmp_path / "data"  # relative to the config file
    assert s.embedder == "hash" and s.retrieval.rrf_k == 30 and s.default_collection == "releases"
    rel = s.collection("releases")
    assert rel is not None and rel.kind == "records" and rel.title_template == "{product} {version}"
    assert rel.field("date").type == "date" and rel.field("date").label == "Date"
    assert rel.filterable_fields == ("id", "product", "version")
    assert s.domains == {"releases": ("releases",)}


def test_precedence_overrides_env_file_defaults(tmp_path: Path) -> None:
    path = write(tmp_path, TOML)
    env = {"GROUNDSEARCH_RRF_K": "45", "GROUNDSEARCH_EMBEDDER": "minilm"}
    s = load_settings(path, env=env)
    assert (s.retrieval.rrf_k, s.embedder) == (45, "minilm")
    s = load_settings(path, env=env, embedder="e5")
    assert s.embedder == "e5"
    assert load_settings(env={}).retrieval.rrf_k == 60


def test_groq_key_switches_the_llm_on(tmp_path: Path) -> None:
    s = load_settings(env={"GROQ_API_KEY": "gsk_x"})
    assert s.llm.enabled and s.llm.base_url == GROQ_BASE_URL and s.llm.models
    assert s.llm.api_key is not None and s.llm.api_key.get_secret_value() == "gsk_x"
    assert "gsk_x" not in repr(s)  # secrets never print
    assert not load_settings(env={}).llm.enabled


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[collections.x]\nkind = 'blob'", "kind must be"),
        ("[collections.x]\nkind = 'records'\nid_field = 'nope'", "id_field names 'nope'"),
        ("[collections.x]\nkind = 'records'\n[collections.x.fields]\na = 'colour'", "type must be one of"),
        ("[collections.x]\nsurprise = 1", "unknown keys"),
        ("[domains]\nd = ['missing']\n[collections.x]\nkind='documents'", "unknown collections"),
        ("[retrieval]\nrrf_k = 0", "retrieval.rrf_k"),
        ("not toml = = =", "not valid TOML"),
    ],
)
def test_bad_config_names_the_problem(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_settings(write(tmp_path, text), env={})


def test_missing_config_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_settings(tmp_path / "nope.toml", env={})


def test_settings_are_frozen() -> None:
    s = load_settings(env={})
    with pytest.raises(Exception):
        s.embedder = "hash"  # type: ignore[misc]


def test_the_postgres_keyword_leg_is_chosen_by_environment() -> None:
    from groundsearch.errors import ConfigError

    assert load_settings(env={}).retrieval.pg_keyword_leg == "local"
    assert load_settings(env={"GROUNDSEARCH_PG_KEYWORD_LEG": "sql"}).retrieval.pg_keyword_leg == "sql"
    with pytest.raises(ConfigError):
        load_settings(env={"GROUNDSEARCH_PG_KEYWORD_LEG": "ts_rank"})
