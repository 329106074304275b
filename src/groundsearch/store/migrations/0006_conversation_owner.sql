-- groundsearch schema v6: a conversation belongs to the key that started it, not to its whole tenant
-- (store/chat_base.py). Keyed (tenant, owner, id): another key's conversation id is an unknown id, and a turn
-- sent with it starts the caller's own conversation. Callers without a key of their own (operators, local mode,
-- the CLI) use owner ''.
--
-- Rows from before have no known author: they get owner '', which no tenant key is. A row under the default
-- tenant '' may be a local-mode conversation from before the reserved scope '*' existed, holding every tenant's
-- text: it moves to '*' (unless '*' already has that id; it then stays under '' where no caller uses owner '').

ALTER TABLE conversation_turns DROP CONSTRAINT conversation_turns_tenant_conversation_id_fkey;
ALTER TABLE conversation_turns DROP CONSTRAINT conversation_turns_pkey;
ALTER TABLE conversations DROP CONSTRAINT conversations_pkey;

ALTER TABLE conversations ADD COLUMN owner text NOT NULL DEFAULT '';
ALTER TABLE conversation_turns ADD COLUMN owner text NOT NULL DEFAULT '';

UPDATE conversation_turns t SET tenant = '*'
 WHERE t.tenant = '' AND NOT EXISTS (SELECT 1 FROM conversations c WHERE c.tenant = '*' AND c.id = t.conversation_id);
-- The subquery reads the table as it was when the statement began, so the rows it moves do not count.
UPDATE conversations c SET tenant = '*'
 WHERE c.tenant = '' AND NOT EXISTS (SELECT 1 FROM conversations d WHERE d.tenant = '*' AND d.id = c.id);

ALTER TABLE conversations ADD PRIMARY KEY (tenant, owner, id);
ALTER TABLE conversation_turns ADD PRIMARY KEY (tenant, owner, conversation_id, seq);
ALTER TABLE conversation_turns ADD FOREIGN KEY (tenant, owner, conversation_id)
    REFERENCES conversations (tenant, owner, id) ON DELETE CASCADE;
