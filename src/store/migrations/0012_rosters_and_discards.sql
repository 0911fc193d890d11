-- The seats that speak in a round (JSON), fixed when it opens; NULL for a round opened
-- before rosters were stored (derived again from the evaluations before it).
ALTER TABLE rounds ADD COLUMN seats TEXT;
-- Arguments written for a round that the previous round's evaluation then ended the
-- debate before: kept and counted (they were paid for), never part of the debate.
CREATE TABLE discarded (
    debate_id         TEXT NOT NULL REFERENCES debates (id) ON DELETE CASCADE,
    round             INTEGER NOT NULL,
    seat              INTEGER NOT NULL,
    kind              TEXT NOT NULL,
    perspective       TEXT NOT NULL,
    text              TEXT NOT NULL,
    model             TEXT NOT NULL,
    prompt_tokens     INTEGER NOT NULL,
    cached_tokens     INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    latency_ms        INTEGER NOT NULL,
    created_at        TEXT NOT NULL
);
CREATE INDEX discarded_by_debate ON discarded (debate_id);
DROP VIEW calls;
CREATE VIEW calls AS
    SELECT debate_id, prompt_tokens, cached_tokens, completion_tokens, latency_ms FROM contributions
    UNION ALL
    SELECT debate_id, prompt_tokens, cached_tokens, completion_tokens, latency_ms FROM moderator_calls
    UNION ALL
    SELECT debate_id, prompt_tokens, cached_tokens, completion_tokens, latency_ms FROM discarded;
