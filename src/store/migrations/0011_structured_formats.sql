-- How each server took structured answers (json_schema, json_object or instructions),
-- so that the next debate on it starts there; and the way each moderator call used.
CREATE TABLE structured_formats (
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    base_url TEXT NOT NULL,
    format TEXT NOT NULL,
    PRIMARY KEY (provider, model, base_url)
);
ALTER TABLE moderator_calls ADD COLUMN format TEXT;
