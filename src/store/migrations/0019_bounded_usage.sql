-- Every figure of a call at most a billion (model::Usage::LIMIT), as debate now stores
-- them: a server that reported an absurd count (i64::MAX) left sums over the calls that
-- overflowed, and with them list, show and delete. Such figures were never real.
UPDATE contributions SET
    prompt_tokens = MIN(MAX(prompt_tokens, 0), 1000000000),
    cached_tokens = MIN(MAX(cached_tokens, 0), 1000000000),
    completion_tokens = MIN(MAX(completion_tokens, 0), 1000000000),
    latency_ms = MIN(MAX(latency_ms, 0), 1000000000)
WHERE prompt_tokens NOT BETWEEN 0 AND 1000000000 OR cached_tokens NOT BETWEEN 0 AND 1000000000 OR completion_tokens NOT BETWEEN 0 AND 1000000000 OR latency_ms NOT BETWEEN 0 AND 1000000000;
UPDATE moderator_calls SET
    prompt_tokens = MIN(MAX(prompt_tokens, 0), 1000000000),
    cached_tokens = MIN(MAX(cached_tokens, 0), 1000000000),
    completion_tokens = MIN(MAX(completion_tokens, 0), 1000000000),
    latency_ms = MIN(MAX(latency_ms, 0), 1000000000)
WHERE prompt_tokens NOT BETWEEN 0 AND 1000000000 OR cached_tokens NOT BETWEEN 0 AND 1000000000 OR completion_tokens NOT BETWEEN 0 AND 1000000000 OR latency_ms NOT BETWEEN 0 AND 1000000000;
UPDATE discarded SET
    prompt_tokens = MIN(MAX(prompt_tokens, 0), 1000000000),
    cached_tokens = MIN(MAX(cached_tokens, 0), 1000000000),
    completion_tokens = MIN(MAX(completion_tokens, 0), 1000000000),
    latency_ms = MIN(MAX(latency_ms, 0), 1000000000)
WHERE prompt_tokens NOT BETWEEN 0 AND 1000000000 OR cached_tokens NOT BETWEEN 0 AND 1000000000 OR completion_tokens NOT BETWEEN 0 AND 1000000000 OR latency_ms NOT BETWEEN 0 AND 1000000000;
UPDATE carried_usage SET
    prompt_tokens = MIN(MAX(prompt_tokens, 0), 1000000000),
    cached_tokens = MIN(MAX(cached_tokens, 0), 1000000000),
    completion_tokens = MIN(MAX(completion_tokens, 0), 1000000000),
    latency_ms = MIN(MAX(latency_ms, 0), 1000000000)
WHERE prompt_tokens NOT BETWEEN 0 AND 1000000000 OR cached_tokens NOT BETWEEN 0 AND 1000000000 OR completion_tokens NOT BETWEEN 0 AND 1000000000 OR latency_ms NOT BETWEEN 0 AND 1000000000;
UPDATE evaluators SET
    prompt_tokens = MIN(MAX(prompt_tokens, 0), 1000000000),
    cached_tokens = MIN(MAX(cached_tokens, 0), 1000000000),
    completion_tokens = MIN(MAX(completion_tokens, 0), 1000000000),
    latency_ms = MIN(MAX(latency_ms, 0), 1000000000)
WHERE prompt_tokens NOT BETWEEN 0 AND 1000000000 OR cached_tokens NOT BETWEEN 0 AND 1000000000 OR completion_tokens NOT BETWEEN 0 AND 1000000000 OR latency_ms NOT BETWEEN 0 AND 1000000000;
