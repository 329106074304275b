"""Where a caller's own records are kept: its conversations, telemetry, feedback marks and link-check cache.

A caller scoped to one tenant keeps them under that tenant. A caller that reads every tenant — the operator
key, local mode, the CLI, an all-tenants MCP tool — keeps them under ``ALL_TENANTS_SCOPE``, not under the
default tenant ``''`` where its item *writes* go: those records hold (or reveal) every tenant's data, and the
default tenant's viewers must not read them, count them as their own searches or mark their results.
No key may be minted for ``ALL_TENANTS_SCOPE`` (``KeyStore.create``), no item ingested into it (``Engine.ingest``)
and no MCP tool scoped to it (``mcp_server.tenant_scope``).
"""

from __future__ import annotations

__all__ = ["ALL_TENANTS_SCOPE", "MCP_OWNER", "caller_scope"]

ALL_TENANTS_SCOPE = "*"
# The owner of a one-tenant MCP tool's conversations: it carries no key, and key ids are hex, so never this.
MCP_OWNER = "mcp"


def caller_scope(tenant: str | None) -> str:
    """The scope of a caller whose reads are limited to ``tenant`` (``None``: every tenant)."""
    return ALL_TENANTS_SCOPE if tenant is None else tenant
