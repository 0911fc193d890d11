-- Round 1's arguments begun while the moderator reads the question (issue 55). Each one
-- waits here, `awaiting` the digest of the request it answered, until round 1 opens:
-- it then joins round 1 when the debate the moderator confirmed asks exactly that, and
-- stays here, discarded (`awaiting` cleared), when not. Counted as spent once, here or
-- in contributions. Its answer is kept whole (the stance line is read when it is kept),
-- with whether it was cut off or stopped looping.
ALTER TABLE discarded ADD COLUMN awaiting TEXT;
ALTER TABLE discarded ADD COLUMN truncated INTEGER NOT NULL DEFAULT 0;
ALTER TABLE discarded ADD COLUMN looped INTEGER NOT NULL DEFAULT 0;
