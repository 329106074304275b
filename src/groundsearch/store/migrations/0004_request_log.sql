-- groundsearch schema v4: request telemetry, intent shadow comparisons and feedback marks
-- (store/pg_telemetry.py). The query is stored as a keyed HMAC; query_text only when an operator opted in.

CREATE TABLE telemetry_meta (key text PRIMARY KEY, value text NOT NULL);

CREATE TABLE request_log (
    id                text PRIMARY KEY,
    tenant            text NOT NULL,
    created_at        timestamptz NOT NULL,
    surface           text NOT NULL,
    status            text NOT NULL,
    query_hash        text NOT NULL,
    query_terms       jsonb NOT NULL,
    query_text        text,
    query_chars       integer NOT NULL,
    tier              text,
    confidence        float8,
    format            text,
    domains           jsonb NOT NULL,
    complexity        text,
    cache_hit         boolean NOT NULL,
    model             text,
    prompt_version    text,
    latency_ms        jsonb NOT NULL,
    total_ms          float8,
    degraded          jsonb NOT NULL,
    prompt_tokens     integer NOT NULL,
    completion_tokens integer NOT NULL,
    cost_usd          float8 NOT NULL,
    usage             jsonb NOT NULL,
    result_ids        jsonb NOT NULL
);
CREATE INDEX request_log_created ON request_log (created_at);
CREATE INDEX request_log_tenant ON request_log (tenant, created_at);

CREATE TABLE request_shadow (
    created_at  timestamptz NOT NULL,
    query_hash  text NOT NULL,
    winner_tier text NOT NULL,
    agreed      boolean,
    fields      jsonb NOT NULL
);
CREATE INDEX request_shadow_created ON request_shadow (created_at);

CREATE TABLE feedback (
    id         text PRIMARY KEY,
    tenant     text NOT NULL,
    request_id text NOT NULL,
    item_id    text NOT NULL,
    useful     boolean NOT NULL,
    created_at timestamptz NOT NULL,
    UNIQUE (tenant, request_id, item_id)
);
CREATE INDEX feedback_item ON feedback (tenant, item_id);
