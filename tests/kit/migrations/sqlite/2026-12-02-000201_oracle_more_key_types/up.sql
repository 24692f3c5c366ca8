-- More key types in the oracle's random pool (tests/src/property.rs): a float, a decimal, and
-- the `time` crate's timestamp and nullable date (written by the time crate's own encoding).
ALTER TABLE keyset_rows ADD COLUMN fr REAL NOT NULL DEFAULT 0;
ALTER TABLE keyset_rows ADD COLUMN n NUMERIC NOT NULL DEFAULT 0;
ALTER TABLE keyset_rows ADD COLUMN tt TIMESTAMP NOT NULL DEFAULT '2026-10-10 12:00:00';
ALTER TABLE keyset_rows ADD COLUMN ntd DATE NULL;
