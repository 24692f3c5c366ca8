//! [`with_read_snapshot`]: run reads (a [`Walk`](crate::Walk), say) inside one read-only
//! transaction with a consistent snapshot, on one connection.

use diesel::connection::{AnsiTransactionManager, Connection, TransactionManager};

use crate::backend::KeysetBackend;

/// Runs `f` inside one read-only transaction on a consistent snapshot, then commits (or rolls
/// back when `f` fails). Every read `f` makes on `conn`, every page of a
/// [`Walk`](crate::Walk) included, sees the database as it was when the snapshot was taken,
/// whatever other connections insert, delete or update meanwhile: the export is exactly the
/// rows of that moment, each once. Pages stay keyset pages (memory bounded by one page).
///
/// * PostgreSQL: `REPEATABLE READ, READ ONLY`; the snapshot is taken by the first statement.
/// * MySQL/MariaDB (InnoDB): `START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY`; the
///   snapshot is taken at once.
/// * SQLite: a read transaction (`BEGIN DEFERRED`); the snapshot is taken by the first read.
///   In WAL mode (`PRAGMA journal_mode = WAL`) writers on other connections go on committing
///   while the export reads its snapshot (the WAL cannot be checkpointed past it meanwhile, so
///   it grows during a long export). Without WAL (the rollback journal, SQLite's default) the
///   reader holds a shared lock until it commits: the export is just as consistent, but no
///   other connection can commit a write until it ends (writers wait for their busy timeout,
///   then fail with `database is locked`).
///
/// Writes inside `f` fail (PostgreSQL, MySQL: read-only transaction). The cost: the database
/// keeps the old row versions the snapshot may need for as long as it is open (PostgreSQL:
/// vacuum cannot remove them; InnoDB: the undo log grows), so keep exports of very large
/// tables off the busiest hours, or use a stored export.
///
/// ```
/// # include!("doctest_setup.rs");
/// use keyset_diesel::{with_read_snapshot, Walk};
/// # fn main() -> QueryResult<()> {
/// # let conn = &mut setup();
/// let exported: Vec<String> = with_read_snapshot(conn, |conn| {
///     let mut ids = Vec::new();
///     for page in Walk::<Event, _, _>::new(conn, || events::table.select(Event::as_select()))
///         .page_size(2)
///     {
///         ids.extend(page?.items.into_iter().map(|e| e.event_id));
///     }
///     Ok::<_, diesel::result::Error>(ids)
/// })?;
/// assert_eq!(exported.len(), 7); // both workspaces
/// # Ok(())
/// # }
/// ```
///
/// # Errors
/// What `f` returns; beginning or committing the transaction fails with
/// [`diesel::result::Error::AlreadyInTransaction`] when `conn` is already in a transaction (a
/// snapshot cannot be nested), or with the database's error.
pub fn with_read_snapshot<Conn, R, E, F>(conn: &mut Conn, f: F) -> Result<R, E>
where
    Conn: Connection<TransactionManager = AnsiTransactionManager>,
    Conn::Backend: KeysetBackend,
    E: From<diesel::result::Error>,
    F: FnOnce(&mut Conn) -> Result<R, E>,
{
    in_transaction(
        conn,
        <Conn::Backend as KeysetBackend>::BEGIN_READ_SNAPSHOT,
        f,
    )
}

/// Runs `f` in a transaction begun by `begin`: commit on `Ok`, roll back on `Err`.
pub(crate) fn in_transaction<Conn, R, E, F>(conn: &mut Conn, begin: &str, f: F) -> Result<R, E>
where
    Conn: Connection<TransactionManager = AnsiTransactionManager>,
    E: From<diesel::result::Error>,
    F: FnOnce(&mut Conn) -> Result<R, E>,
{
    AnsiTransactionManager::begin_transaction_sql(conn, begin)?;
    match f(conn) {
        Ok(value) => {
            AnsiTransactionManager::commit_transaction(conn)?;
            Ok(value)
        }
        Err(error) => {
            // The error of `f` is the one to report; a failed rollback leaves the connection
            // marked broken by Diesel's transaction manager.
            let _ = AnsiTransactionManager::rollback_transaction(conn);
            Err(error)
        }
    }
}
