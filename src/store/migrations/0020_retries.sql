-- How many tries of each call failed and were made again (a dropped stream, an
-- overloaded server, an empty answer), so a record can count the retries per model.
ALTER TABLE contributions ADD COLUMN retries INTEGER NOT NULL DEFAULT 0;
ALTER TABLE moderator_calls ADD COLUMN retries INTEGER NOT NULL DEFAULT 0;
ALTER TABLE discarded ADD COLUMN retries INTEGER NOT NULL DEFAULT 0;
ALTER TABLE carried_usage ADD COLUMN retries INTEGER NOT NULL DEFAULT 0;
DROP VIEW calls;
CREATE VIEW calls AS
    SELECT debate_id, model, prompt_tokens, cached_tokens, completion_tokens, latency_ms, retries FROM contributions
    UNION ALL
    SELECT debate_id, model, prompt_tokens, cached_tokens, completion_tokens, latency_ms, retries FROM moderator_calls
    UNION ALL
    SELECT debate_id, model, prompt_tokens, cached_tokens, completion_tokens, latency_ms, retries FROM discarded
    UNION ALL
    SELECT debate_id, model, prompt_tokens, cached_tokens, completion_tokens, latency_ms, retries FROM carried_usage;
