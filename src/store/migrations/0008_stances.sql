-- Where a debater stands after each contribution (JSON), NULL until it is read.
-- Contributions made before stances were asked for are unknown, not to be asked again.
ALTER TABLE contributions ADD COLUMN stance TEXT;
UPDATE contributions SET stance = '{"option":null,"confidence":null}';
