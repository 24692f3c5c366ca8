ALTER TABLE keyset_rows DROP COLUMN st;
ALTER TABLE keyset_rows DROP COLUMN uu;
ALTER TABLE keyset_rows DROP COLUMN ntd;
ALTER TABLE keyset_rows DROP COLUMN tt;
ALTER TABLE keyset_rows DROP COLUMN n;
ALTER TABLE keyset_rows DROP COLUMN fr;
