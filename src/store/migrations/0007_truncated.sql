-- An answer that stopped at the completion limit even when asked again for less.
ALTER TABLE contributions ADD COLUMN truncated INTEGER NOT NULL DEFAULT 0;
ALTER TABLE moderator_calls ADD COLUMN truncated INTEGER NOT NULL DEFAULT 0;
