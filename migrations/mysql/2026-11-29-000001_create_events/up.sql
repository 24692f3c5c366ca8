-- A workspace activity feed: events ordered per workspace by (occurred_at, event_id).
CREATE TABLE events (
    event_id VARCHAR(64) NOT NULL PRIMARY KEY,
    workspace_id VARCHAR(64) NOT NULL,
    -- DATETIME(6): microseconds. Plain DATETIME rounds fractional seconds away on insert,
    -- which moves rows across page boundaries.
    occurred_at DATETIME(6) NOT NULL,
    message TEXT NOT NULL
);
-- Filter column first, then the keyset columns in keyset order.
CREATE INDEX events_workspace_time ON events (workspace_id, occurred_at, event_id);
