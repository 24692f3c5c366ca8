-- The `time` crate's key types (tests/src/typed.rs, `time_rows`). MySQL has no timestamptz:
-- `OffsetDateTime` is bound to a DATETIME(6) as UTC.
CREATE TABLE time_rows (
    id BIGINT NOT NULL PRIMARY KEY,
    tenant INTEGER NOT NULL,
    t_ts DATETIME(6) NOT NULL,
    t_tstz DATETIME(6) NOT NULL,
    t_date DATE NOT NULL,
    t_time TIME(6) NOT NULL
);
