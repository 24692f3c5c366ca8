-- Stored exports of keyset-diesel's ExportStore (keyset_diesel::guide::read_contracts): one row per export,
-- and the export's rows by position. Times are Unix seconds.
-- Ids and scope digests are hex and compare as binary (`ascii_bin`), never under a
-- case-insensitive collation. `ascii_bin` is PAD SPACE (trailing spaces do not count), not
-- byte for byte: `*_keyset_exports_no_pad` moves these columns to `ascii_nopad_bin`.
CREATE TABLE keyset_exports (
    export_id VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
    -- the creator's scope as a keyed digest naming its key id, k<id>:<hex> (the codec's)
    scope VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    row_count BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX keyset_exports_expires_at ON keyset_exports (expires_at);
CREATE TABLE keyset_export_rows (
    export_id VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    seq BIGINT NOT NULL, -- 1, 2, ... in the export's order
    payload LONGTEXT NOT NULL, -- the row, as JSON (serde_json)
    PRIMARY KEY (export_id, seq)
);
