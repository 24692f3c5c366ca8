//! [`with_read_snapshot`]: run reads (a [`Walk`](crate::Walk), say) inside one read-only
//! transaction with a consistent snapshot, on one connection; blocking here, on diesel-async
//! connections in [`async_::with_read_snapshot`](crate::async_::with_read_snapshot). Both run
//! the one transaction rule of [`transaction!`].

use diesel::connection::{AnsiTransactionManager, Connection, TransactionManager};

use crate::backend::KeysetBackend;

/// Runs `f` inside one read-only transaction on a consistent snapshot, then commits (or rolls
/// back when `f` fails). Every read `f` makes on `conn`, every page of a
/// [`Walk`](crate::Walk) included, sees the database as it was when the snapshot was taken,
/// whatever other connections insert, delete or update meanwhile: the export is exactly the
/// rows of that moment, each once. Pages stay keyset pages (memory bounded by one page).
///
/// * PostgreSQL: `REPEATABLE READ, READ ONLY`; the snapshot is taken by the first statement.
/// * MySQL/MariaDB (InnoDB): `SET TRANSACTION ISOLATION LEVEL REPEATABLE READ` (for this
///   transaction: a READ COMMITTED session would ignore the snapshot), then `START TRANSACTION
///   WITH CONSISTENT SNAPSHOT, READ ONLY`; the
///   snapshot is taken at once.
/// * SQLite: a read transaction (`BEGIN DEFERRED`); the snapshot is taken by the first read.
///   In WAL mode (`PRAGMA journal_mode = WAL`) writers on other connections go on committing
///   while the export reads its snapshot (the WAL cannot be checkpointed past it meanwhile, so
///   it grows during a long export). Without WAL (the rollback journal, SQLite's default) the
///   reader holds a shared lock until it commits: the export is just as consistent, but no
///   other connection can commit a write until it ends (writers wait for their busy timeout,
///   then fail with `database is locked`).
///
/// A panic in `f` rolls the transaction back, then goes on: a connection kept after the
/// panic is caught is out of the snapshot (for the async form, see its docs).
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

/// A transaction around `$body`: `$begin` (the backend's `BEGIN ..`), then `$body`; commit
/// on `Ok`, roll back on `Err` and return `$body`'s error (a failed rollback leaves the
/// connection marked broken by the transaction manager). `.await` is in the arguments of the
/// async form: the one rule of every transaction the crate begins, blocking and async.
macro_rules! transaction {
    (begin: $begin:expr, body: $body:expr, commit: $commit:expr, rollback: $rollback:expr $(,)?) => {{
        $begin?;
        match $body {
            Ok(value) => {
                $commit?;
                Ok(value)
            }
            Err(error) => {
                let _ = $rollback;
                Err(error)
            }
        }
    }};
}

/// Runs `f` in a transaction begun by `begin`: commit on `Ok`, roll back on `Err`, and roll
/// back on a panic in `f` before the panic goes on (a connection kept after a caught panic is
/// not left inside the transaction: its reads would be stale, its writes would never commit).
pub(crate) fn in_transaction<Conn, R, E, F>(conn: &mut Conn, begin: &str, f: F) -> Result<R, E>
where
    Conn: Connection<TransactionManager = AnsiTransactionManager>,
    E: From<diesel::result::Error>,
    F: FnOnce(&mut Conn) -> Result<R, E>,
{
    transaction! {
        begin: AnsiTransactionManager::begin_transaction_sql(conn, begin),
        // `f`'s state is dropped with the panic; only the connection is used again, after
        // its rollback.
        body: match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&mut *conn))) {
            Ok(result) => result,
            Err(panic) => {
                let _ = AnsiTransactionManager::rollback_transaction(conn);
                std::panic::resume_unwind(panic)
            }
        },
        commit: AnsiTransactionManager::commit_transaction(conn),
        rollback: AnsiTransactionManager::rollback_transaction(conn),
    }
}

#[cfg(feature = "diesel-async")]
pub(crate) mod async_ {
    use std::future::Future;
    use std::pin::Pin;

    use diesel::QueryResult;
    use diesel_async::{AsyncConnection, TransactionManager};

    use crate::backend::KeysetBackend;

    /// A diesel-async connection the crate can begin its own transactions on (a read snapshot,
    /// a stored export's creation): `AsyncPgConnection` and `AsyncMysqlConnection` (any
    /// connection whose transaction manager is diesel-async's `AnsiTransactionManager`) and
    /// `SyncConnectionWrapper<SqliteConnection>`. A pooled connection (a deadpool `Object`,
    /// a bb8 `PooledConnection`) is passed as the connection it wraps: `&mut *object`.
    #[diagnostic::on_unimplemented(
        message = "keyset-diesel cannot begin its snapshot transaction on `{Self}`",
        note = "pass an `AsyncPgConnection`, an `AsyncMysqlConnection` or a `SyncConnectionWrapper<SqliteConnection>`; for a pooled connection pass the connection it holds: `&mut *object`"
    )]
    pub trait TransactionConnection: AsyncConnection + Send
    where
        Self::Backend: KeysetBackend,
    {
        /// Begins a transaction with `sql` (one of [`KeysetBackend`]'s `BEGIN` statements).
        #[doc(hidden)]
        fn begin_with(&mut self, sql: &'static str)
            -> impl Future<Output = QueryResult<()>> + Send;
    }

    impl<C> TransactionConnection for C
    where
        C: AsyncConnection + Send,
        C::Backend: KeysetBackend,
        C::TransactionManager: BeginWith<C>,
    {
        fn begin_with(
            &mut self,
            sql: &'static str,
        ) -> impl Future<Output = QueryResult<()>> + Send {
            C::TransactionManager::begin_with(self, sql)
        }
    }

    #[doc(hidden)]
    /// How a transaction manager begins a transaction with given SQL: diesel-async's
    /// `AnsiTransactionManager` itself; `SyncConnectionWrapper`'s on its blocking connection.
    pub trait BeginWith<Conn> {
        /// Begins a transaction on `conn` with `sql`.
        fn begin_with(
            conn: &mut Conn,
            sql: &'static str,
        ) -> impl Future<Output = QueryResult<()>> + Send;
    }

    impl<C> BeginWith<C> for diesel_async::AnsiTransactionManager
    where
        C: AsyncConnection<TransactionManager = diesel_async::AnsiTransactionManager> + Send,
    {
        fn begin_with(
            conn: &mut C,
            sql: &'static str,
        ) -> impl Future<Output = QueryResult<()>> + Send {
            diesel_async::AnsiTransactionManager::begin_transaction_sql(conn, sql)
        }
    }

    #[cfg(feature = "sqlite")]
    impl
        BeginWith<
            diesel_async::sync_connection_wrapper::SyncConnectionWrapper<diesel::SqliteConnection>,
        >
        for diesel_async::sync_connection_wrapper::SyncTransactionManagerWrapper<
            diesel::connection::AnsiTransactionManager,
        >
    {
        fn begin_with(
            conn: &mut diesel_async::sync_connection_wrapper::SyncConnectionWrapper<
                diesel::SqliteConnection,
            >,
            sql: &'static str,
        ) -> impl Future<Output = QueryResult<()>> + Send {
            conn.spawn_blocking(move |conn| {
                diesel::connection::AnsiTransactionManager::begin_transaction_sql(conn, sql)
            })
        }
    }

    /// An async closure taking the connection whose future is `Send` (so the transaction's
    /// future is, for `tokio::spawn` and axum handlers): every `async |conn| { .. }` closure
    /// whose body is `Send`.
    pub trait SendAsyncFn<T, R>: AsyncFnOnce(T) -> R + FnOnce(T) -> Self::Future {
        /// The closure's future.
        type Future: Future<Output = R> + Send;
    }

    impl<F, T, Fut, R> SendAsyncFn<T, R> for F
    where
        F: AsyncFnOnce(T) -> R + FnOnce(T) -> Fut,
        Fut: Future<Output = R> + Send,
    {
        type Future = Fut;
    }

    /// [`crate::with_read_snapshot`] on a diesel-async connection: runs `f` (an async
    /// closure, `async |conn| { .. }`) inside one read-only transaction on a consistent
    /// snapshot, begun with the same statement as the blocking form on each backend
    /// (PostgreSQL `REPEATABLE READ, READ ONLY`; MySQL/MariaDB `WITH CONSISTENT SNAPSHOT,
    /// READ ONLY`; SQLite `BEGIN DEFERRED`, the same WAL advice), then commits, or rolls back
    /// when `f` fails. Every read `f` makes on the connection, every page of an
    /// [`async_::Walk`](crate::async_::Walk) included, sees the database as it was when the
    /// snapshot was taken. The future is boxed and `Send` (`f`'s future must be), so a task
    /// that awaits it (`tokio::spawn`) is `Send` whatever `f`'s error type holds.
    ///
    /// **Drive it to the end.** Dropping the future between its `BEGIN` and its commit (a
    /// client that went away, a timeout) leaves the transaction open on the connection, as
    /// for diesel-async's own `transaction`: a pool (deadpool, bb8) discards such a connection
    /// when it is returned, but a connection kept elsewhere (one SQLite connection behind a
    /// mutex) stays in it. Run it in a task of its own (`tokio::spawn`) where a request may be
    /// cancelled.
    ///
    /// ```
    /// # include!("doctest_setup.rs");
    /// use diesel_async::futures_util::TryStreamExt;
    /// use diesel_async::sync_connection_wrapper::SyncConnectionWrapper;
    /// use keyset_diesel::async_;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> QueryResult<()> {
    /// let mut conn = SyncConnectionWrapper::<SqliteConnection>::new(setup());
    /// let exported: Vec<Event> = async_::with_read_snapshot(&mut conn, async |conn| {
    ///     async_::Walk::<Event, _, _>::new(conn, || events::table.select(Event::as_select()))
    ///         .page_size(2)
    ///         .rows()
    ///         .try_collect()
    ///         .await
    /// })
    /// .await?;
    /// assert_eq!(exported.len(), 7); // both workspaces
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// Inside `tokio::spawn`, with an error type of your own (here a boxed error):
    ///
    /// ```
    /// # include!("doctest_setup.rs");
    /// use diesel_async::sync_connection_wrapper::SyncConnectionWrapper;
    /// use keyset_diesel::async_::{self, PaginateDsl};
    ///
    /// type BoxError = Box<dyn std::error::Error + Send + Sync>;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), BoxError> {
    /// let mut conn = SyncConnectionWrapper::<SqliteConnection>::new(setup());
    /// let task = tokio::spawn(async move {
    ///     async_::with_read_snapshot(&mut conn, async |conn| {
    ///         let page = events::table
    ///             .select(Event::as_select())
    ///             .paginate_after(None)
    ///             .page_size(2)
    ///             .load_page(conn)
    ///             .await?;
    ///         if page.items.is_empty() {
    ///             return Err(BoxError::from("no events"));
    ///         }
    ///         Ok(page.items.len())
    ///     })
    ///     .await
    /// });
    /// assert_eq!(task.await??, 2);
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// What `f` returns; beginning or committing fails with
    /// `diesel::result::Error::AlreadyInTransaction` when the connection is already in a
    /// transaction, or with the database's error.
    pub fn with_read_snapshot<'c, Conn, R, E, F>(
        conn: &'c mut Conn,
        f: F,
    ) -> Pin<Box<dyn Future<Output = Result<R, E>> + Send + 'c>>
    where
        Conn: TransactionConnection,
        Conn::Backend: KeysetBackend,
        E: From<diesel::result::Error> + Send + 'c,
        R: Send + 'c,
        F: for<'r> SendAsyncFn<&'r mut Conn, Result<R, E>> + Send + 'c,
    {
        // Boxed as a `Send` future: a task that awaits it (`tokio::spawn`) is `Send` without
        // the compiler proving `f`'s higher-ranked bound again for the task's erased types,
        // which it cannot do for an error type holding a trait object
        // (`Box<dyn Error + Send + Sync>`: "one type is more general than the other").
        Box::pin(in_transaction(
            conn,
            <Conn::Backend as KeysetBackend>::BEGIN_READ_SNAPSHOT,
            f,
        ))
    }

    /// Runs `f` in a transaction begun by `begin`: commit on `Ok`, roll back on `Err`.
    pub(crate) async fn in_transaction<Conn, R, E, F>(
        conn: &mut Conn,
        begin: &'static str,
        f: F,
    ) -> Result<R, E>
    where
        Conn: TransactionConnection,
        Conn::Backend: KeysetBackend,
        E: From<diesel::result::Error> + Send,
        R: Send,
        F: for<'r> SendAsyncFn<&'r mut Conn, Result<R, E>> + Send,
    {
        transaction! {
            begin: conn.begin_with(begin).await,
            body: f(&mut *conn).await,
            commit: Conn::TransactionManager::commit_transaction(conn).await,
            rollback: Conn::TransactionManager::rollback_transaction(conn).await,
        }
    }
}
