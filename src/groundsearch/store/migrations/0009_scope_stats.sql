-- groundsearch schema v9: BM25 statistics per tenant and visibility class, so a search is scored with the
-- statistics of what its caller may see (store/keyword_scope.py). corpus_stats and term_stats counted every
-- tenant's chunks and drafts: tenant B's score for a word moved when tenant A uploaded drafts holding it.
--
-- A scope is (tenant, visibility), visibility 'draft' for draft items and 'public' for the rest (published and
-- archived, superseded or not), the partitions of the embedded keyword index. Writers change these rows in the
-- transaction that writes the chunks and postings, so the statistics always equal a recount. corpus_stats and
-- term_stats stay: the keyword leg still reads their list lengths (which lists to read whole) and the
-- impact reference; they no longer feed any score. Built from the existing tables: no data is lost.

-- Each chunk carries the scope it counts under, so the write that removes it (an upsert that moves its item to
-- another tenant or status, a delete) takes it out of that scope without reading the item's old row.
ALTER TABLE chunks ADD COLUMN scope_tenant text, ADD COLUMN scope_visibility text;
UPDATE chunks c SET scope_tenant = i.tenant,
                    scope_visibility = CASE WHEN i.status = 'draft' THEN 'draft' ELSE 'public' END
FROM items i WHERE i.id = c.item_id;
ALTER TABLE chunks ALTER COLUMN scope_tenant SET NOT NULL, ALTER COLUMN scope_visibility SET NOT NULL;

CREATE TABLE scope_stats (
    tenant     text NOT NULL,
    visibility text NOT NULL,
    n_chunks   bigint NOT NULL,
    n_terms    bigint NOT NULL,
    PRIMARY KEY (tenant, visibility)
);
INSERT INTO scope_stats (tenant, visibility, n_chunks, n_terms)
SELECT scope_tenant, scope_visibility, count(*), sum(n_terms) FROM chunks GROUP BY 1, 2;

CREATE TABLE scope_term_stats (
    tenant     text NOT NULL,
    visibility text NOT NULL,
    term       text NOT NULL,
    df         bigint NOT NULL,  -- no CHECK (df >= 0): see term_stats (0002) — a negative delta is proposed
    PRIMARY KEY (tenant, visibility, term)
);
-- every-tenant searches (the operator, local mode) sum a term's rows over all scopes
CREATE INDEX scope_term_stats_term ON scope_term_stats (term);
INSERT INTO scope_term_stats (tenant, visibility, term, df)
SELECT c.scope_tenant, c.scope_visibility, p.term, count(*)
FROM postings p JOIN chunks c ON c.pk = p.chunk_pk GROUP BY 1, 2, 3;
