-- groundsearch schema v7: a change log of chunk keys, so each API worker can keep its own derived keyword
-- index (store/pg_local_keyword.py) and catch it up before a search, as the embedded store's tantivy index
-- follows SQLite's `changes` table.
--
-- corpus_stats.log_seq numbers write transactions. A writer bumps it in the same UPDATE that already keeps
-- the BM25 statistics, so it holds that row's lock until it commits: seqs are handed out in commit order,
-- and a snapshot that sees seq s sees every transaction numbered below s (a plain sequence would not: a
-- transaction holding a lower number could still be in flight). log_floor: entries at or below it were
-- trimmed; a worker whose index is older than that rebuilds it from the tables.

-- IF NOT EXISTS: development databases that ran this file under its first number (0006) apply it again.
ALTER TABLE corpus_stats ADD COLUMN IF NOT EXISTS log_seq bigint NOT NULL DEFAULT 0,
                         ADD COLUMN IF NOT EXISTS log_floor bigint NOT NULL DEFAULT 0;

-- One row per chunk added or removed by write transaction `seq` (a replaced item: its old and new chunks).
CREATE TABLE IF NOT EXISTS keyword_log (
    seq      bigint NOT NULL,
    chunk_pk bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS keyword_log_seq ON keyword_log (seq);
