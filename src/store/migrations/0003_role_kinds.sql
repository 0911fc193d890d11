-- Each role's provider kind is stored with the debate, so what reads it never compares
-- provider names. Debates stored before this knew only the name: the built-in names
-- give their kind, any other name was an OpenAI-compatible endpoint unless it said
-- otherwise, which older versions did not record.
UPDATE debates SET snapshot = json_set(snapshot,
    '$.moderator.kind', CASE json_extract(snapshot, '$.moderator.provider')
        WHEN 'offline' THEN 'offline' WHEN 'anthropic' THEN 'anthropic' ELSE 'openai' END,
    '$.debater.kind', CASE json_extract(snapshot, '$.debater.provider')
        WHEN 'offline' THEN 'offline' WHEN 'anthropic' THEN 'anthropic' ELSE 'openai' END)
WHERE json_extract(snapshot, '$.moderator.kind') IS NULL;
