-- Every call this machine paid for, and when: what `debate usage` and
-- budget.per_month_usd add up. A debate read back from its record was paid for where it
-- ran: its calls count only from its import on (a review made here).
ALTER TABLE debates ADD COLUMN imported_at TEXT;
UPDATE debates SET imported_at = updated_at WHERE imported_from IS NOT NULL;
CREATE VIEW ledger AS
    SELECT c.debate_id, c.model, c.prompt_tokens, c.cached_tokens, c.completion_tokens, c.retries, c.created_at
    FROM (
        SELECT debate_id, model, prompt_tokens, cached_tokens, completion_tokens, retries, created_at FROM contributions
        UNION ALL
        SELECT debate_id, model, prompt_tokens, cached_tokens, completion_tokens, retries, created_at FROM moderator_calls
        UNION ALL
        SELECT debate_id, model, prompt_tokens, cached_tokens, completion_tokens, retries, created_at FROM discarded
        UNION ALL
        SELECT v.debate_id, v.model, v.prompt_tokens, v.cached_tokens, v.completion_tokens, 0, e.created_at
        FROM evaluators v JOIN evaluations e ON e.debate_id = v.debate_id AND e.number = v.number
    ) c
    JOIN debates d ON d.id = c.debate_id
    WHERE d.imported_at IS NULL OR c.created_at > d.imported_at;
