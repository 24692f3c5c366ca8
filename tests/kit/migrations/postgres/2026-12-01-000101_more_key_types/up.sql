-- Key types beyond the first migration's: floating point, bytes, times of day, a newtype.
ALTER TABLE typed_rows ADD COLUMN k_f64 DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE typed_rows ADD COLUMN k_f32 REAL NOT NULL DEFAULT 0;
ALTER TABLE typed_rows ADD COLUMN k_bytes BYTEA NOT NULL DEFAULT '';
ALTER TABLE typed_rows ADD COLUMN k_time TIME NOT NULL DEFAULT '00:00';
-- A user newtype key (UserId(i64)).
ALTER TABLE typed_rows ADD COLUMN k_user BIGINT NOT NULL DEFAULT 0;
