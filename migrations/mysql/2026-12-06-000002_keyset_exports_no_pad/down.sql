-- Back to PAD SPACE `ascii_bin` (fails with a duplicate key if two ids differ only in
-- trailing spaces; the store never makes such ids).
ALTER TABLE keyset_export_rows
    MODIFY export_id VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL;
ALTER TABLE keyset_exports
    MODIFY export_id VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    MODIFY scope VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL;
