-- The per-institution request counts of RATE_LIMIT_PER_MINUTE, shared by every server process on
-- this database (src/storage/rate-limiters.ts). The columns, in this order, are those that
-- rate-limiter-flexible's PostgreSQL store reads and writes: the key, the requests counted in its
-- window, and when the window ends (epoch milliseconds).
--
-- UNLOGGED: a count lives a minute and need not survive a crash of PostgreSQL (the table is then
-- emptied, and every window starts again) nor reach a standby. In exchange its upserts write no
-- WAL, so the commit of each one does not wait for a flush of the log to disk: on a durable
-- PostgreSQL, counting a request costs no fsync.
CREATE UNLOGGED TABLE rate_limits (
  key text PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  expire bigint
);
