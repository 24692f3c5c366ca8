-- The `time` crate's key types (tests/src/typed.rs, `time_rows`): rows written by the time
-- crate's own Diesel encoding, so the text SQLite compares is the text a time key binds.
CREATE TABLE time_rows (
    id BIGINT NOT NULL PRIMARY KEY,
    tenant INTEGER NOT NULL,
    t_ts TIMESTAMP NOT NULL,
    t_tstz TIMESTAMPTZ NOT NULL,
    t_date DATE NOT NULL,
    t_time TIME NOT NULL
);
