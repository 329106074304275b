-- groundsearch schema v8: a feedback mark belongs to the key that made it, not to its whole tenant
-- (store/telemetry_base.py). Keyed (tenant, owner, request, item): another key of the tenant that holds a mark's
-- id or its request id can neither replace nor delete it; its own mark on that request is a separate row.
-- Callers without a key of their own (operators, local mode, the CLI) use owner ''; the MCP server 'mcp'.
--
-- Rows from before have no known author: they get owner '', which no tenant key is. They still count in the
-- tenant's ranking signal (feedback_stats reads every mark of the tenant), but no tenant key can change them.

ALTER TABLE feedback ADD COLUMN owner text NOT NULL DEFAULT '';
ALTER TABLE feedback DROP CONSTRAINT feedback_tenant_request_id_item_id_key;
ALTER TABLE feedback ADD UNIQUE (tenant, owner, request_id, item_id);
