-- A contribution that said nothing of its own (only the prompt's placeholders), even
-- when asked again: kept, marked, and named in the record.
ALTER TABLE contributions ADD COLUMN failed INTEGER NOT NULL DEFAULT 0;
