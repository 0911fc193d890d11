-- Earlier conclusions of a debate that a review reopened (JSON list, oldest first).
ALTER TABLE debates ADD COLUMN revisions TEXT NOT NULL DEFAULT '[]';
