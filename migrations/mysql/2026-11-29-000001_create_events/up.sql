-- A workspace activity feed: events ordered per workspace by (occurred_at, event_id).
-- Identifiers get a binary collation (`utf8mb4_bin`): under the server's default collation
-- (case- and accent-insensitive) `workspace_id = 'w9'` also matches workspace `W9`'s rows, so
-- a filter would reach another tenant whose id differs only in case or accents. `utf8mb4_bin`
-- is PAD SPACE all the same (trailing spaces do not count: `'W9 ' = 'W9'`), not byte for
-- byte: `*_identifiers_no_pad` moves these columns to `utf8mb4_nopad_bin`.
CREATE TABLE events (
    event_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,
    workspace_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    -- DATETIME(6): microseconds. Plain DATETIME rounds fractional seconds away on insert,
    -- which moves rows across page boundaries.
    occurred_at DATETIME(6) NOT NULL,
    message TEXT NOT NULL
);
-- Filter column first, then the keyset columns in keyset order.
CREATE INDEX events_workspace_time ON events (workspace_id, occurred_at, event_id);
