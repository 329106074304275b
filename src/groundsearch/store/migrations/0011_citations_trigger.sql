-- groundsearch schema v11: the database indexes every stored turn's cited items itself (a trigger on
-- conversation_turns), whoever writes the turn. Migration 0010 built the index once, and append_turn kept it
-- since; but a worker of a version before 0010, still serving during a rolling upgrade, inserts turns without
-- index rows, so a later delete found nothing to erase in them and their quotes stayed in the rows for ever.
-- The trigger derives the ids exactly as 0010 did (chat_citations.cited_item_ids: a source's item_id, else its
-- chunk id up to the last '#'; a source already marked withdrawn cites nothing; ids as pg_codec.encode_text stores
-- them — jsonb holds no NUL, so only the escape is doubled), so append_turn writes none itself.

CREATE OR REPLACE FUNCTION conversation_turn_cite() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO conversation_citations (item_id, tenant, owner, conversation_id, seq)
    SELECT DISTINCT replace(c.cited, U&'\E000', U&'\E000e'), NEW.tenant, NEW.owner, NEW.conversation_id, NEW.seq
      FROM jsonb_array_elements(CASE WHEN jsonb_typeof(NEW.dossier -> 'sources') = 'array'
                                     THEN NEW.dossier -> 'sources' ELSE '[]'::jsonb END) AS s(source)
     CROSS JOIN LATERAL (SELECT CASE WHEN jsonb_typeof(s.source) <> 'object'
                                       OR s.source -> 'withdrawn' = 'true'::jsonb THEN ''
                                     ELSE COALESCE(NULLIF(s.source ->> 'item_id', ''),
                                                   CASE WHEN strpos(s.source ->> 'id', '#') > 0
                                                        THEN regexp_replace(s.source ->> 'id', '#[^#]*$', '')
                                                        ELSE '' END) END AS cited) AS c
     WHERE c.cited <> ''
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER conversation_turns_cite AFTER INSERT ON conversation_turns
    FOR EACH ROW EXECUTE FUNCTION conversation_turn_cite();

-- The turns such a worker stored since 0010: every turn with no index row, indexed now (ids as above).
INSERT INTO conversation_citations (item_id, tenant, owner, conversation_id, seq)
SELECT DISTINCT replace(c.cited, U&'\E000', U&'\E000e'), t.tenant, t.owner, t.conversation_id, t.seq
  FROM conversation_turns t
 CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(t.dossier -> 'sources') = 'array'
                                              THEN t.dossier -> 'sources' ELSE '[]'::jsonb END) AS s(source)
 CROSS JOIN LATERAL (SELECT CASE WHEN jsonb_typeof(s.source) <> 'object'
                                   OR s.source -> 'withdrawn' = 'true'::jsonb THEN ''
                                 ELSE COALESCE(NULLIF(s.source ->> 'item_id', ''),
                                               CASE WHEN strpos(s.source ->> 'id', '#') > 0
                                                    THEN regexp_replace(s.source ->> 'id', '#[^#]*$', '')
                                                    ELSE '' END) END AS cited) AS c
 WHERE c.cited <> ''
   AND NOT EXISTS (SELECT 1 FROM conversation_citations x WHERE x.tenant = t.tenant AND x.owner = t.owner
                   AND x.conversation_id = t.conversation_id AND x.seq = t.seq)
ON CONFLICT DO NOTHING;
