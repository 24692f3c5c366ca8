-- Stored exports of keyset-diesel's ExportStore (keyset_diesel::guide::read_contracts): one row per export,
-- and the export's rows by position. Times are Unix seconds.
CREATE TABLE keyset_exports (
    export_id VARCHAR(64) NOT NULL PRIMARY KEY,
    scope VARCHAR(64) NOT NULL, -- the creator's scope as a keyed digest naming its key id, k<id>:<hex> (the codec's)
    row_count BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX keyset_exports_expires_at ON keyset_exports (expires_at);
CREATE TABLE keyset_export_rows (
    export_id VARCHAR(64) NOT NULL,
    seq BIGINT NOT NULL, -- 1, 2, ... in the export's order
    payload TEXT NOT NULL, -- the row, as JSON (serde_json)
    PRIMARY KEY (export_id, seq)
);
