-- Every request sent to a model server, from this machine: each attempt of a call (a
-- retried one too), each probe of what a server serves, each answer cut short. A row is
-- written before its request is sent, holding the request's worst case ('held'), and
-- settled with what it took once it is answered or has failed; a row still held (its
-- process died) counts at its worst case. `debate usage`, a debate's spending cap and
-- budget.per_month_usd add these up. The calls stored before this ledger was kept are
-- carried over as 'before' rows, priced by their debate as they were.
CREATE TABLE requests (
    id INTEGER PRIMARY KEY,
    debate_id TEXT,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    purpose TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL DEFAULT 0,
    cached_tokens INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    usd REAL,
    counted TEXT NOT NULL
        CHECK (counted IN ('held', 'server', 'estimated', 'bounded', 'limit', 'failed', 'before')),
    created_at TEXT NOT NULL
);
CREATE INDEX requests_by_time ON requests (created_at);
CREATE INDEX requests_by_debate ON requests (debate_id);
INSERT INTO requests (debate_id, provider, model, purpose, prompt_tokens, cached_tokens, completion_tokens,
                      usd, counted, created_at)
    SELECT debate_id, '', model, 'call', prompt_tokens, cached_tokens, completion_tokens, NULL, 'before', created_at
    FROM ledger
    -- A call that failed before any model answered took nothing.
    WHERE NOT (model = '' AND prompt_tokens = 0 AND completion_tokens = 0);
DROP VIEW ledger;
