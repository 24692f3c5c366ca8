-- More key types in the oracle's random pool (tests/src/property.rs): a float, a decimal, the
-- `time` crate's timestamp and nullable date, and on PostgreSQL only a UUID and the native
-- enum `stage` (declared by an earlier migration).
ALTER TABLE keyset_rows ADD COLUMN fr REAL NOT NULL DEFAULT 0;
ALTER TABLE keyset_rows ADD COLUMN n NUMERIC(12, 4) NOT NULL DEFAULT 0;
ALTER TABLE keyset_rows ADD COLUMN tt TIMESTAMP NOT NULL DEFAULT '2026-10-10 12:00:00';
ALTER TABLE keyset_rows ADD COLUMN ntd DATE NULL;
ALTER TABLE keyset_rows ADD COLUMN uu UUID NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000';
ALTER TABLE keyset_rows ADD COLUMN st stage NOT NULL DEFAULT 'todo';
