-- The decision search (`debate search`, `search_decisions`): every decision record of
-- every repository searched, its parts in the columns FTS5 ranks with BM25. Each row's
-- source says which record it was read from and the digest of the text it was read as,
-- so a record whose text changed is indexed again and one that is gone is dropped.
CREATE VIRTUAL TABLE IF NOT EXISTS decision_search USING fts5(
    title, question, options, rationale, consequences, dissent, rest,
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TABLE IF NOT EXISTS search_sources (
    search_rowid INTEGER PRIMARY KEY,
    repository TEXT NOT NULL,
    path TEXT NOT NULL,
    digest TEXT NOT NULL,
    UNIQUE (repository, path)
);
