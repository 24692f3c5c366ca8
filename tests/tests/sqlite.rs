//! The SQLite suite (embedded, bundled SQLite; no server).

keyset_tests::backend_suite!(diesel::SqliteConnection);
