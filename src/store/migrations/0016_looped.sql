-- A debater's answer that began to repeat itself and was stopped there (what came
-- before the loop is its text).
ALTER TABLE contributions ADD COLUMN looped INTEGER NOT NULL DEFAULT 0;
