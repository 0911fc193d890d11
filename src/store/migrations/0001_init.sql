-- The first schema. Every LLM result has its own row, written in its own transaction.
CREATE TABLE debates (
    id          TEXT PRIMARY KEY,
    question    TEXT NOT NULL,
    title       TEXT NOT NULL,
    repo_root   TEXT NOT NULL,
    status      TEXT NOT NULL,
    snapshot    TEXT NOT NULL,   -- JSON: the debate's rules and role choices (never a key)
    analysis    TEXT NOT NULL,   -- JSON: domains, options, constraints, vagueness
    end_reason  TEXT,
    outcome     TEXT,            -- JSON: synthesis, its source, final confidence, degradations
    confidence  TEXT,
    record_path TEXT,
    commit_id   TEXT,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE INDEX debates_by_repo ON debates (repo_root, created_at DESC);
CREATE INDEX debates_by_time ON debates (created_at DESC);

CREATE TABLE panel (
    debate_id   TEXT NOT NULL REFERENCES debates (id) ON DELETE CASCADE,
    seat        INTEGER NOT NULL,
    name        TEXT NOT NULL,
    perspective TEXT NOT NULL,   -- JSON: the catalog entry as used
    reason      TEXT NOT NULL,
    PRIMARY KEY (debate_id, seat)
);

CREATE TABLE rounds (
    debate_id  TEXT NOT NULL REFERENCES debates (id) ON DELETE CASCADE,
    number     INTEGER NOT NULL,
    framing    TEXT NOT NULL,
    guidance   TEXT,
    repetition TEXT,             -- JSON: per seat, share repeated from its previous argument
    novelty    REAL,
    evaluation TEXT,             -- JSON: the moderator's assessment and summary
    PRIMARY KEY (debate_id, number)
);

CREATE TABLE contributions (
    debate_id         TEXT NOT NULL,
    round             INTEGER NOT NULL,
    seat              INTEGER NOT NULL,
    kind              TEXT NOT NULL CHECK (kind IN ('argument', 'rebuttal')),
    perspective       TEXT NOT NULL,
    text              TEXT NOT NULL,
    model             TEXT NOT NULL,
    prompt_tokens     INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    latency_ms        INTEGER NOT NULL,
    created_at        TEXT NOT NULL,
    PRIMARY KEY (debate_id, round, seat, kind),
    FOREIGN KEY (debate_id, round) REFERENCES rounds (debate_id, number) ON DELETE CASCADE
);

CREATE TABLE moderator_calls (
    debate_id         TEXT NOT NULL REFERENCES debates (id) ON DELETE CASCADE,
    purpose           TEXT NOT NULL CHECK (purpose IN ('analysis', 'evaluation', 'synthesis')),
    round             INTEGER NOT NULL,  -- 0 for analysis and synthesis
    text              TEXT NOT NULL,
    model             TEXT NOT NULL,
    prompt_tokens     INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    latency_ms        INTEGER NOT NULL,
    created_at        TEXT NOT NULL,
    PRIMARY KEY (debate_id, purpose, round)
);

CREATE TABLE clarifications (
    debate_id  TEXT NOT NULL REFERENCES debates (id) ON DELETE CASCADE,
    question   TEXT NOT NULL,
    answer     TEXT,
    created_at TEXT NOT NULL
);
