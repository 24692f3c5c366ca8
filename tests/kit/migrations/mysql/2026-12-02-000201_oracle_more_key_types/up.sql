-- More key types in the oracle's random pool (tests/src/property.rs): a float, a decimal, and
-- the `time` crate's timestamp (DATETIME(6): DATETIME drops fractions) and nullable date.
ALTER TABLE keyset_rows ADD COLUMN fr FLOAT NOT NULL DEFAULT 0;
ALTER TABLE keyset_rows ADD COLUMN n DECIMAL(12, 4) NOT NULL DEFAULT 0;
ALTER TABLE keyset_rows ADD COLUMN tt DATETIME(6) NOT NULL DEFAULT '2026-10-10 12:00:00';
ALTER TABLE keyset_rows ADD COLUMN ntd DATE NULL;
