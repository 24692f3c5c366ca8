-- The oracle's wider keys (tests/src/property.rs): a double, bytes, a nullable time of day
-- (TIME(6): TIME drops fractions), a newtype's BIGINT and an unsigned BIGINT on keyset_rows,
-- and a lookup table joined to it on `a`.
ALTER TABLE keyset_rows ADD COLUMN f DOUBLE NOT NULL DEFAULT 0;
ALTER TABLE keyset_rows ADD COLUMN g VARBINARY(64) NOT NULL DEFAULT '';
ALTER TABLE keyset_rows ADD COLUMN nh TIME(6) NULL;
ALTER TABLE keyset_rows ADD COLUMN k BIGINT NOT NULL DEFAULT 0;
ALTER TABLE keyset_rows ADD COLUMN u BIGINT UNSIGNED NOT NULL DEFAULT 0;
CREATE TABLE keyset_groups (
    group_id INTEGER NOT NULL PRIMARY KEY,
    group_name VARCHAR(16) NOT NULL,
    group_rank INTEGER NULL
);
