ALTER TABLE typed_rows DROP COLUMN k_user;
ALTER TABLE typed_rows DROP COLUMN k_time;
ALTER TABLE typed_rows DROP COLUMN k_bytes;
ALTER TABLE typed_rows DROP COLUMN k_f32;
ALTER TABLE typed_rows DROP COLUMN k_f64;
