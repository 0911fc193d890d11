-- The moderator's clarifying questions are stored before anyone is asked; `settled`
-- says they were answered or left open (rows from before were always answered).
ALTER TABLE clarifications ADD COLUMN settled INTEGER NOT NULL DEFAULT 1;

-- The call that wrote them is a moderator call: the purpose's check admits it.
DROP VIEW calls;
CREATE TABLE moderator_calls_new (
    debate_id         TEXT NOT NULL REFERENCES debates (id) ON DELETE CASCADE,
    purpose           TEXT NOT NULL CHECK (purpose IN ('clarification', 'analysis', 'evaluation', 'synthesis')),
    round             INTEGER NOT NULL,  -- 0 for clarification, analysis and synthesis
    text              TEXT NOT NULL,
    model             TEXT NOT NULL,
    prompt_tokens     INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    latency_ms        INTEGER NOT NULL,
    created_at        TEXT NOT NULL,
    cached_tokens     INTEGER NOT NULL DEFAULT 0,
    truncated         INTEGER NOT NULL DEFAULT 0,
    format            TEXT,
    PRIMARY KEY (debate_id, purpose, round)
);
INSERT INTO moderator_calls_new
    (debate_id, purpose, round, text, model, prompt_tokens, completion_tokens, latency_ms, created_at, cached_tokens,
     truncated, format)
    SELECT debate_id, purpose, round, text, model, prompt_tokens, completion_tokens, latency_ms, created_at,
           cached_tokens, truncated, format
    FROM moderator_calls;
DROP TABLE moderator_calls;
ALTER TABLE moderator_calls_new RENAME TO moderator_calls;
CREATE VIEW calls AS
    SELECT debate_id, model, prompt_tokens, cached_tokens, completion_tokens, latency_ms FROM contributions
    UNION ALL
    SELECT debate_id, model, prompt_tokens, cached_tokens, completion_tokens, latency_ms FROM moderator_calls
    UNION ALL
    SELECT debate_id, model, prompt_tokens, cached_tokens, completion_tokens, latency_ms FROM discarded
    UNION ALL
    SELECT debate_id, model, prompt_tokens, cached_tokens, completion_tokens, latency_ms FROM carried_usage;
