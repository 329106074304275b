-- groundsearch schema v3: conversations of the grounded assistant (store/pg_chat.py). Keyed by tenant first,
-- so every read is scoped by the caller's tenant in the index itself; turns go with their conversation.

CREATE TABLE conversations (
    tenant     text NOT NULL,
    id         text NOT NULL,
    assistant  text NOT NULL,
    state      jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant, id)
);

CREATE TABLE conversation_turns (
    tenant          text NOT NULL,
    conversation_id text NOT NULL,
    seq             integer NOT NULL,
    user_text       text NOT NULL,
    reply           text NOT NULL,
    assistant       text NOT NULL,
    dossier         jsonb NOT NULL DEFAULT '{}'::jsonb,
    audit           jsonb NOT NULL DEFAULT '{}'::jsonb,
    tools           jsonb NOT NULL DEFAULT '[]'::jsonb,
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant, conversation_id, seq),
    FOREIGN KEY (tenant, conversation_id) REFERENCES conversations (tenant, id) ON DELETE CASCADE
);
