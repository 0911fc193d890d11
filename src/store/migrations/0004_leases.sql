-- One process drives a debate at a time. Its lease says which process, on which host,
-- and when it was last seen alive; a lease whose owner died or fell silent is taken over.
CREATE TABLE leases (
    debate_id TEXT PRIMARY KEY REFERENCES debates (id) ON DELETE CASCADE,
    pid       INTEGER NOT NULL,
    host      TEXT NOT NULL,
    heartbeat INTEGER NOT NULL   -- unix seconds
);
