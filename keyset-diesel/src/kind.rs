//! [`BackendKind`]: which backend a value is bound on, below every other module (key values
//! ask it in `check_bind`; the backends name themselves with it in `KeysetBackend::KIND`).

/// Which backend a key value is bound on ([`KeyValue::check_bind`](crate::query::KeyValue::check_bind)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BackendKind {
    /// PostgreSQL (`diesel::pg::Pg`).
    Postgres,
    /// SQLite (`diesel::sqlite::Sqlite`).
    Sqlite,
    /// MySQL / MariaDB (`diesel::mysql::Mysql`).
    Mysql,
}
