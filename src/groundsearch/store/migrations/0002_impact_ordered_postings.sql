-- groundsearch schema v2: impact-ordered BM25 postings and per-term document frequencies, so the keyword
-- leg reads the best postings of each query term first and stops once nothing unread can enter the page
-- (store/pg_keyword.py). Scores are unchanged: the stored impact orders postings, it is never the score.
--
-- impact = tf / (tf + k1 * (1 - b + b * norm_terms / ref)), with k1 = 1.2, b = 0.75 (store/text.py) and
-- ref the corpus's mean length when the posting was written (corpus_stats.impact_avglen). impact_ref_min is
-- the smallest ref any live posting was written with; the early-termination bound scales by
-- max(1, avglen / impact_ref_min), which keeps it exact however far the corpus drifts from ref
-- (a refresh, `groundsearch migrate --refresh-keyword-impacts`, only makes the bound tight again).

ALTER TABLE corpus_stats ADD COLUMN impact_avglen float8, ADD COLUMN impact_ref_min float8;
UPDATE corpus_stats SET impact_avglen = n_terms::float8 / n_chunks, impact_ref_min = n_terms::float8 / n_chunks
WHERE n_chunks > 0;

ALTER TABLE postings ADD COLUMN impact float8;
UPDATE postings SET impact = tf / (tf + 1.2 * (1 - 0.75 + 0.75 * norm_terms / (SELECT impact_avglen FROM corpus_stats)));
ALTER TABLE postings ALTER COLUMN impact SET NOT NULL;
CREATE INDEX postings_impact ON postings (term, impact DESC) INCLUDE (chunk_pk);

CREATE TABLE term_stats (
    term text PRIMARY KEY,
    -- chunks (any status) holding the term: BM25's df, changed by each write in one sorted upsert. No CHECK
    -- (df >= 0): Postgres checks the proposed row of INSERT … ON CONFLICT, i.e. a negative delta, and fails
    df   bigint NOT NULL
);
INSERT INTO term_stats (term, df) SELECT term, count(*) FROM postings GROUP BY term;
