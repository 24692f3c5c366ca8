-- The stored exports' ids and scope digests compare exactly (`ascii_nopad_bin`): `ascii_bin`,
-- which `*_create_keyset_exports` gave them, is PAD SPACE (`'ab ' = 'ab'`), so a lookup of an
-- id with trailing spaces found the export without them. keyset-diesel refuses any export id
-- that is not 32 lowercase hex digits before a query and compares scopes in Rust, so the
-- store did not depend on it; the columns now compare as on PostgreSQL and SQLite all the
-- same. A separate migration from the example's tables: an application that copies the
-- store's migrations takes this one with `*_create_keyset_exports`.
--
-- MODIFY keeps the primary keys; no value changes. `ascii_nopad_bin` is MariaDB's (10.2 and
-- later); MySQL 8 has no NO PAD `ascii` collation (`utf8mb4_0900_bin` is NO PAD there).
ALTER TABLE keyset_exports
    MODIFY export_id VARCHAR(64) CHARACTER SET ascii COLLATE ascii_nopad_bin NOT NULL,
    MODIFY scope VARCHAR(64) CHARACTER SET ascii COLLATE ascii_nopad_bin NOT NULL;
ALTER TABLE keyset_export_rows
    MODIFY export_id VARCHAR(64) CHARACTER SET ascii COLLATE ascii_nopad_bin NOT NULL;
