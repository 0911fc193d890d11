-- Debates read back from a committed record, in a clone that never ran them: the record
-- they came from, and the tokens of the calls this database never saw, by model.
ALTER TABLE debates ADD COLUMN imported_from TEXT;
CREATE TABLE carried_usage (
    debate_id         TEXT NOT NULL REFERENCES debates (id) ON DELETE CASCADE,
    model             TEXT NOT NULL,
    prompt_tokens     INTEGER NOT NULL,
    cached_tokens     INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    latency_ms        INTEGER NOT NULL
);
DROP VIEW calls;
CREATE VIEW calls AS
    SELECT debate_id, model, prompt_tokens, cached_tokens, completion_tokens, latency_ms FROM contributions
    UNION ALL
    SELECT debate_id, model, prompt_tokens, cached_tokens, completion_tokens, latency_ms FROM moderator_calls
    UNION ALL
    SELECT debate_id, model, prompt_tokens, cached_tokens, completion_tokens, latency_ms FROM discarded
    UNION ALL
    SELECT debate_id, model, prompt_tokens, cached_tokens, completion_tokens, latency_ms FROM carried_usage;
