-- Every call's model beside its tokens, so a debate's cost can be estimated per model.
DROP VIEW calls;
CREATE VIEW calls AS
    SELECT debate_id, model, prompt_tokens, cached_tokens, completion_tokens, latency_ms FROM contributions
    UNION ALL
    SELECT debate_id, model, prompt_tokens, cached_tokens, completion_tokens, latency_ms FROM moderator_calls
    UNION ALL
    SELECT debate_id, model, prompt_tokens, cached_tokens, completion_tokens, latency_ms FROM discarded;
