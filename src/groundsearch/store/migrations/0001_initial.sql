-- groundsearch schema v1: items, chunks, BM25 postings, vectors, normalised fields, entity mentions.
-- Forward-only: never edit a released migration; add 0002_*.sql instead.

CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE store_meta (
    key   text PRIMARY KEY,
    value text NOT NULL
);

CREATE TABLE items (
    id            text PRIMARY KEY,
    collection    text NOT NULL,
    title         text NOT NULL,
    body          text NOT NULL,
    url           text,
    item_date     date,
    fields        text NOT NULL,          -- JSON (pg_codec.encode_fields); dates and tuples survive the trip
    tenant        text NOT NULL,
    status        text NOT NULL,
    superseded_by text,
    content_hash  text NOT NULL,
    source        text,
    created_at    timestamptz,
    updated_at    timestamptz
);
CREATE INDEX items_collection ON items (collection);
CREATE INDEX items_content_hash ON items (content_hash);
CREATE INDEX items_source ON items (source);
CREATE INDEX items_date ON items (item_date);

-- Case-folded field values, one row per scalar or list element, so field filters are index look-ups.
-- Indexed by md5(value): a text field's value can exceed a btree entry's size limit (~2.7 kB).
CREATE TABLE item_fields (
    item_id text NOT NULL REFERENCES items (id) ON DELETE CASCADE,
    name    text NOT NULL,
    value   text NOT NULL
);
CREATE INDEX item_fields_lookup ON item_fields (name, md5(value));
CREATE INDEX item_fields_item ON item_fields (item_id);

CREATE TABLE chunks (
    pk           bigint PRIMARY KEY,
    id           text NOT NULL UNIQUE,
    item_id      text NOT NULL REFERENCES items (id) ON DELETE CASCADE,
    position     integer NOT NULL,
    body         text NOT NULL,
    heading_path text[] NOT NULL,
    entities     text[] NOT NULL,
    n_terms      integer NOT NULL,        -- BM25 length: number of indexed terms
    norm_terms   integer NOT NULL         -- the same length as tantivy quantises it (pg_bm25.quantize_length)
);
CREATE SEQUENCE chunks_pk_seq OWNED BY chunks.pk;
CREATE INDEX chunks_item ON chunks (item_id, position);

-- BM25 postings: one row per (term, chunk) with the term frequency and the chunk's quantised length, so
-- scoring reads postings alone and joins chunks/items only for the top candidates. No foreign key on
-- purpose: a per-row FK check on every posting dominated ingest time; the store deletes postings
-- explicitly in the same transaction as their chunk.
CREATE TABLE postings (
    term       text NOT NULL,
    chunk_pk   bigint NOT NULL,
    tf         integer NOT NULL,
    norm_terms integer NOT NULL,
    PRIMARY KEY (term, chunk_pk) INCLUDE (tf, norm_terms)  -- scoring is an index-only scan
);
CREATE INDEX postings_chunk ON postings (chunk_pk);

-- Collection statistics for BM25 (N and total length over every indexed chunk, any status).
CREATE TABLE corpus_stats (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    n_chunks  bigint NOT NULL,
    n_terms   bigint NOT NULL
);
INSERT INTO corpus_stats VALUES (true, 0, 0);

-- Untyped vector column: the dimension is fixed per store (store_meta 'dim') and the HNSW index is an
-- expression index on embedding::vector(dim), created at open once the dimension is known.
CREATE TABLE chunk_vectors (
    chunk_pk  bigint PRIMARY KEY REFERENCES chunks (pk) ON DELETE CASCADE,
    embedding vector NOT NULL
);

CREATE TABLE mentions (
    entity   text NOT NULL,
    chunk_pk bigint NOT NULL,             -- deleted explicitly with its chunk, like postings
    PRIMARY KEY (entity, chunk_pk)
);
CREATE INDEX mentions_chunk ON mentions (chunk_pk);
