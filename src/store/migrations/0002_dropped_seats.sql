-- A debater whose provider kept failing leaves the panel; why is kept here.
ALTER TABLE panel ADD COLUMN dropped TEXT;
