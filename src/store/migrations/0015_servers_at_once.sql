-- How many requests each model server serves at once, as it said of itself or as it
-- showed when two were sent together, so the next debate on it starts there.
CREATE TABLE servers_at_once (
    base_url TEXT PRIMARY KEY,
    requests INTEGER NOT NULL,
    learned_from TEXT NOT NULL,
    learned_at TEXT NOT NULL
);
