-- groundsearch schema v10: a per-turn index of the items a conversation turn cites (store/chat_citations.py), so
-- deleting an item finds the turns quoting it and erases what they quoted in the delete's own transaction, instead
-- of leaving the passage in the rows for the read path to redact. A turn's rows go with it.

CREATE TABLE conversation_citations (
    item_id         text NOT NULL,
    tenant          text NOT NULL,
    owner           text NOT NULL,
    conversation_id text NOT NULL,
    seq             integer NOT NULL,
    PRIMARY KEY (item_id, tenant, owner, conversation_id, seq),
    FOREIGN KEY (tenant, owner, conversation_id, seq)
        REFERENCES conversation_turns (tenant, owner, conversation_id, seq) ON DELETE CASCADE
);
CREATE INDEX conversation_citations_turn ON conversation_citations (tenant, owner, conversation_id, seq);

-- The turns stored before: a source's item is its item_id, else its chunk id up to the last '#'
-- (chat_citations.source_item_id); a source naming no item is not indexed.
INSERT INTO conversation_citations (item_id, tenant, owner, conversation_id, seq)
SELECT DISTINCT c.cited, t.tenant, t.owner, t.conversation_id, t.seq
  FROM conversation_turns t
 CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(t.dossier -> 'sources') = 'array'
                                              THEN t.dossier -> 'sources' ELSE '[]'::jsonb END) AS s(source)
 CROSS JOIN LATERAL (SELECT COALESCE(NULLIF(CASE WHEN jsonb_typeof(s.source) = 'object' THEN s.source ->> 'item_id' END, ''),
                                     CASE WHEN jsonb_typeof(s.source) = 'object' AND strpos(s.source ->> 'id', '#') > 0
                                          THEN regexp_replace(s.source ->> 'id', '#[^#]*$', '') ELSE '' END) AS cited) AS c
 WHERE c.cited <> '';
