-- When the lease's owner started (clock ticks since boot, from /proc), so a reused pid
-- is not taken for the owner.
ALTER TABLE leases ADD COLUMN started INTEGER;
