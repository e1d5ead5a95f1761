-- Rate-limit counts kept over a restart. The limiter counts in memory
-- (src/rate-limit/memory-store.ts); a graceful stop writes here the counts
-- of windows that end a minute or more later (an hourly or daily limit's),
-- and the next start reads back those whose window has not ended, so an
-- upgrade or a `systemctl restart` does not hand every key a fresh hour or
-- day, as API Umbrella keeps such counts in its database. One row per
-- counter and window end (epoch ms); replaced as a whole at each stop.
CREATE TABLE rate_limit_counts (
  counter TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (counter, expires_at)
) WITHOUT ROWID;
