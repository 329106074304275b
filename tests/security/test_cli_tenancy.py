"""The same attacks through the CLI's real entry point (issue 9, items 1–3)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from groundsearch.interfaces.api.auth import KeyStore
from tests.cli.test_cli import CONFIG, gs


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    (tmp_path / "groundsearch.toml").write_text(CONFIG + "\n[collections.other]\nkind = \"documents\"\n")
    (tmp_path / "handbook.md").write_text("# Handbook\n\nHow we work.\n")
    return tmp_path


def _count(kb: Path, tenant: str, collection: str = "docs") -> int:
    db = kb / "data" / "store" / "store.sqlite3"
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return int(conn.execute("SELECT count(*) FROM items WHERE tenant = ? AND collection = ?",
                                (tenant, collection)).fetchone()[0])


def test_ingest_into_another_tenant_or_collection_deletes_nothing(kb: Path) -> None:
    assert gs(kb, "ingest", "handbook.md", "--tenant", "A").returncode == 0
    second = gs(kb, "ingest", "handbook.md", "--tenant", "B", "--json")
    assert second.returncode == 0 and json.loads(second.stdout)["deleted"] == 0
    third = gs(kb, "ingest", "handbook.md", "--tenant", "A", "--collection", "other", "--json")
    assert third.returncode == 0 and json.loads(third.stdout)["deleted"] == 0
    assert (_count(kb, "A"), _count(kb, "B"), _count(kb, "A", "other")) == (1, 1, 1)


def test_front_matter_cannot_choose_the_tenant(kb: Path) -> None:
    (kb / "owned.md").write_text("---\ntenant: B\n---\n# Owned\n\ntext\n")
    result = gs(kb, "ingest", "owned.md")
    assert result.returncode == 1 and "tenant" in result.stderr
    assert _count(kb, "B") == 0


def test_keys_create_needs_an_explicit_scope(kb: Path) -> None:
    bare = gs(kb, "keys", "create", "--role", "viewer")
    assert bare.returncode == 2 and "--tenant" in bare.stderr
    assert gs(kb, "keys", "create", "--role", "viewer", "--all-tenants").returncode == 2
    default = gs(kb, "keys", "create", "--role", "viewer", "--tenant", "")
    assert default.returncode == 0
    operator = gs(kb, "keys", "create", "--role", "admin", "--all-tenants")
    assert operator.returncode == 0
    records = {r.id: r for r in KeyStore(kb / "data" / "api-keys.json").records()}
    scopes = sorted((r.role, r.tenant, r.all_tenants) for r in records.values())
    assert scopes == [("admin", "", True), ("viewer", "", False)]
    listed = gs(kb, "keys", "list")
    assert "all tenants" in listed.stdout


def test_the_reserved_scope_is_no_tenant_for_ingest_or_the_mcp_tool(kb: Path) -> None:
    """Round 11: ``*`` keeps the records of callers that read every tenant (operators, local mode, the CLI). Only
    ``keys create`` refused it: ``ingest --tenant '*'`` stored items no key could ever be scoped to, and an MCP
    tool set to ``--tenant '*'`` (read as "every tenant") saw none of them, but counted its searches in the
    operators' popular topics and its feedback in their ranking. Both now exit 2 naming the right option."""
    ingest = gs(kb, "ingest", "handbook.md", "--tenant", "*")
    assert ingest.returncode == 2, (ingest.returncode, ingest.stdout, ingest.stderr)  # exit 0 before
    assert "reserved" in ingest.stderr
    assert not (kb / "data" / "store").exists() or _count(kb, "*") == 0
    mcp = gs(kb, "mcp", "--tenant", "*")
    assert mcp.returncode == 2, (mcp.returncode, mcp.stderr)  # served the reserved scope before
    assert "--all-tenants" in mcp.stderr
