-- The oracle's wider keys (tests/src/property.rs): a double, bytes, a nullable time of day and
-- a newtype's BIGINT on keyset_rows, and a lookup table joined to it on `a`.
ALTER TABLE keyset_rows ADD COLUMN f DOUBLE NOT NULL DEFAULT 0;
ALTER TABLE keyset_rows ADD COLUMN g BLOB NOT NULL DEFAULT x'';
ALTER TABLE keyset_rows ADD COLUMN nh TIME NULL;
ALTER TABLE keyset_rows ADD COLUMN k BIGINT NOT NULL DEFAULT 0;
CREATE TABLE keyset_groups (
    group_id INTEGER NOT NULL PRIMARY KEY,
    group_name VARCHAR(16) NOT NULL,
    group_rank INTEGER NULL
);
