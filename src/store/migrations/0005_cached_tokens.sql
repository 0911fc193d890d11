-- Prompt tokens a provider served from its prefix cache, per call; and every call in
-- one view, for a debate's totals.
ALTER TABLE contributions ADD COLUMN cached_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE moderator_calls ADD COLUMN cached_tokens INTEGER NOT NULL DEFAULT 0;
CREATE VIEW calls AS
    SELECT debate_id, prompt_tokens, cached_tokens, completion_tokens, latency_ms FROM contributions
    UNION ALL
    SELECT debate_id, prompt_tokens, cached_tokens, completion_tokens, latency_ms FROM moderator_calls;
