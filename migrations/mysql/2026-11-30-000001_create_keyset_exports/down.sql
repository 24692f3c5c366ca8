DROP TABLE keyset_export_rows;
DROP TABLE keyset_exports;
