-- groundsearch schema v5: sentence vectors of extractive answers (store/sentence_rows.py), one row per
-- chunk and embedding model, embedded after the chunk's own vector and dropped with the chunk.

CREATE TABLE chunk_sentences (
    chunk_pk bigint NOT NULL REFERENCES chunks (pk) ON DELETE CASCADE,
    model    text NOT NULL,
    digests  text[] NOT NULL,
    vectors  bytea NOT NULL,
    PRIMARY KEY (chunk_pk, model)
);
