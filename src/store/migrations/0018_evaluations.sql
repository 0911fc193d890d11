-- A finished debate's record scored (`debate eval`): each evaluation, its evaluators and
-- their marks on every criterion of the rubric, and the checks that need no model.
CREATE TABLE evaluations (
    debate_id  TEXT NOT NULL REFERENCES debates (id) ON DELETE CASCADE,
    number     INTEGER NOT NULL,  -- 1 for the debate's first evaluation
    revision   INTEGER NOT NULL,  -- the record's revision it scored (reviews before it)
    checks     TEXT NOT NULL,     -- JSON: each check and what it found
    written    INTEGER NOT NULL DEFAULT 0,  -- added to the record's provenance
    created_at TEXT NOT NULL,
    PRIMARY KEY (debate_id, number)
);

CREATE TABLE evaluators (
    debate_id         TEXT NOT NULL,
    number            INTEGER NOT NULL,
    position          INTEGER NOT NULL,  -- in the order the evaluators were named
    provider          TEXT NOT NULL,
    model             TEXT NOT NULL,
    reasoned          INTEGER NOT NULL,  -- 0: marks composed from the checks, no model's judgement
    prompt_tokens     INTEGER NOT NULL,
    cached_tokens     INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    latency_ms        INTEGER NOT NULL,
    PRIMARY KEY (debate_id, number, position),
    FOREIGN KEY (debate_id, number) REFERENCES evaluations (debate_id, number) ON DELETE CASCADE
);

CREATE TABLE scores (
    debate_id TEXT NOT NULL,
    number    INTEGER NOT NULL,
    position  INTEGER NOT NULL,
    criterion TEXT NOT NULL,
    score     INTEGER NOT NULL CHECK (score BETWEEN 1 AND 10),
    reason    TEXT NOT NULL,
    PRIMARY KEY (debate_id, number, position, criterion),
    FOREIGN KEY (debate_id, number, position) REFERENCES evaluators (debate_id, number, position) ON DELETE CASCADE
);
