DROP TABLE typed_rows;
DROP TABLE plan_rows;
DROP TABLE keyset_rows;
