ALTER TABLE keyset_rows DROP COLUMN ntd;
ALTER TABLE keyset_rows DROP COLUMN tt;
ALTER TABLE keyset_rows DROP COLUMN n;
ALTER TABLE keyset_rows DROP COLUMN fr;
