DROP TABLE keyset_groups;
ALTER TABLE keyset_rows DROP COLUMN k;
ALTER TABLE keyset_rows DROP COLUMN nh;
ALTER TABLE keyset_rows DROP COLUMN g;
ALTER TABLE keyset_rows DROP COLUMN f;
