//! The stored export on diesel-async connections: [`ExportStore`], the blocking store's
//! twin, with the same checks, statements and errors (`super`'s shared steps, the store's
//! statements written once for both in `store.rs`); only the connection differs.

use diesel_async::AsyncConnection;
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::store::AsyncStoreBackend;
use super::{as_i64, expired, going_away, payloads, Export, ExportError, ExportPage, Purged};
use crate::backend::KeysetBackend;
use crate::keyset::Keyset;
use crate::load::async_::LoadPage;
use crate::snapshot::async_::{in_transaction, TransactionConnection};
use crate::walk::async_::Walk;

/// [`export::ExportStore`](super::ExportStore) on diesel-async connections
/// (`AsyncPgConnection`, `AsyncMysqlConnection`, `SyncConnectionWrapper<SqliteConnection>`;
/// a pooled connection as `&mut *object`): the same stored exports, read and written by the
/// same statements, with the same errors, `.await`ed. Configure it as the blocking store and
/// convert it (`From`); the two share the tables, so an export created by one is read by the
/// other.
///
/// ```
/// # include!("../doctest_setup.rs");
/// use std::time::Duration;
/// use diesel_async::sync_connection_wrapper::SyncConnectionWrapper;
/// use keyset_diesel::token::SecretKey;
/// use keyset_diesel::{async_, export, CursorCodec};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let mut blocking = setup();
/// # diesel::sql_query("CREATE TABLE keyset_exports (export_id TEXT PRIMARY KEY NOT NULL, scope TEXT NOT NULL, row_count BIGINT NOT NULL, created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL)").execute(&mut blocking)?;
/// # diesel::sql_query("CREATE TABLE keyset_export_rows (export_id TEXT NOT NULL, seq BIGINT NOT NULL, payload TEXT NOT NULL, PRIMARY KEY (export_id, seq))").execute(&mut blocking)?;
/// // A stored row is serialized with serde.
/// #[derive(Queryable, Selectable, Keyset, serde::Serialize, serde::Deserialize)]
/// #[diesel(table_name = events)]
/// struct Row {
///     #[keyset(asc, unique)]
///     event_id: String,
///     message: String,
/// }
///
/// let mut conn = SyncConnectionWrapper::<SqliteConnection>::new(blocking);
/// let codec = CursorCodec::builder().signing_key(SecretKey::new(1, &[7; 32])?).build()?;
/// let store = async_::ExportStore::from(
///     export::ExportStore::new(codec, Duration::from_secs(3600)).create_page_size(2),
/// );
///
/// let export = store
///     .create::<Row, _, _, _, _>(&mut conn, &("W9",), || {
///         events::table.filter(events::workspace_id.eq("W9")).select(Row::as_select())
///     })
///     .await?;
/// assert_eq!(export.rows, 6);
///
/// let first = store.page::<Row, _, _>(&mut conn, &export.id, &("W9",), None, 4).await?;
/// assert_eq!(first.items.len(), 4);
/// let rest = store
///     .page::<Row, _, _>(&mut conn, &export.id, &("W9",), first.next_token.as_deref(), 4)
///     .await?;
/// assert_eq!((rest.first_position, rest.items.len(), rest.next_token), (5, 2, None));
///
/// store.expire(&mut conn, &export.id, &("W9",)).await?;
/// assert_eq!(store.purge_expired(&mut conn).await?.exports, 1);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct ExportStore {
    store: super::ExportStore,
}

impl From<super::ExportStore> for ExportStore {
    fn from(store: super::ExportStore) -> Self {
        ExportStore { store }
    }
}

impl ExportStore {
    /// The blocking store's configuration, as [`export::ExportStore::new`](super::ExportStore::new)
    /// makes it; for the other options, configure a blocking store and convert it.
    pub fn new(codec: crate::token::CursorCodec, ttl: std::time::Duration) -> Self {
        super::ExportStore::new(codec, ttl).into()
    }

    /// The blocking form of the same store (the same configuration and tables).
    pub fn blocking(&self) -> &super::ExportStore {
        &self.store
    }

    /// [`export::ExportStore::create`](super::ExportStore::create), on a diesel-async
    /// connection: one transaction on a consistent snapshot (the same `BEGIN` as the blocking
    /// form) walks the query with an [`async_::Walk`](crate::async_::Walk) and stores every
    /// page. Drive it to the end (see [`async_::with_read_snapshot`](crate::async_::with_read_snapshot)):
    /// a future dropped half-way leaves its transaction open on the connection.
    ///
    /// # Errors
    /// As the blocking `create`.
    pub async fn create<'q, K, Q, F, Conn, S>(
        &self,
        conn: &mut Conn,
        scope: &S,
        mut make_query: F,
    ) -> Result<Export, ExportError>
    where
        K: Keyset + Serialize + Send,
        F: FnMut() -> Q + Send,
        Q: LoadPage<'q, Conn, K>,
        Conn: TransactionConnection,
        Conn::Backend: AsyncStoreBackend,
        S: Serialize + ?Sized,
    {
        let new = self.store.new_export(scope)?;
        let page_size = self.store.walk_page_size();
        let max_rows = self.store.max_rows;
        let begin = <Conn::Backend as KeysetBackend>::BEGIN_WRITE_SNAPSHOT;
        in_transaction(conn, begin, async |conn: &mut Conn| {
            <Conn::Backend as AsyncStoreBackend>::insert_export(
                conn,
                &new.id,
                &new.scope,
                as_i64(new.created_at),
                as_i64(new.expires_at),
            )
            .await?;
            let mut stored: i64 = 0;
            let mut walk = Walk::<K, _, _>::new(conn, &mut make_query).page_size(page_size);
            while let Some(page) = walk.next_page().await {
                let (first, payloads) = payloads(&mut stored, &page?, max_rows)?;
                <Conn::Backend as AsyncStoreBackend>::insert_rows(
                    walk.connection(),
                    &new.id,
                    first,
                    payloads,
                )
                .await?;
            }
            <Conn::Backend as AsyncStoreBackend>::set_row_count(conn, &new.id, stored).await?;
            Ok::<_, ExportError>(stored)
        })
        .await
        .map(|stored| new.created(stored))
    }

    /// [`export::ExportStore::page`](super::ExportStore::page), on a diesel-async connection.
    ///
    /// # Errors
    /// As the blocking `page`.
    pub async fn page<T, Conn, S>(
        &self,
        conn: &mut Conn,
        id: &str,
        scope: &S,
        token: Option<&str>,
        page_size: u32,
    ) -> Result<ExportPage<T>, ExportError>
    where
        T: DeserializeOwned,
        Conn: AsyncConnection + Send,
        Conn::Backend: AsyncStoreBackend,
        S: Serialize + ?Sized,
    {
        let (page_size, after) = self.store.page_request(id, token, page_size)?;
        let header = <Conn::Backend as AsyncStoreBackend>::find_export(conn, id).await?;
        let (total, expires_at) = self.store.check_header(header, scope)?;
        let rows = self.store.page_rows(id, after, page_size);
        let rows = <Conn::Backend as AsyncStoreBackend>::load_rows(conn, rows).await?;
        match self
            .store
            .page_of(id, rows, after, total, expires_at, page_size)?
        {
            Some(page) => Ok(page),
            None => Err(going_away(
                <Conn::Backend as AsyncStoreBackend>::find_export(conn, id).await?,
            )),
        }
    }

    /// [`export::ExportStore::expire`](super::ExportStore::expire), on a diesel-async
    /// connection.
    ///
    /// # Errors
    /// As the blocking `expire`.
    pub async fn expire<Conn, S>(
        &self,
        conn: &mut Conn,
        id: &str,
        scope: &S,
    ) -> Result<(), ExportError>
    where
        Conn: AsyncConnection + Send,
        Conn::Backend: AsyncStoreBackend,
        S: Serialize + ?Sized,
    {
        if !super::is_export_id(id) {
            return Err(ExportError::Unknown);
        }
        let header = <Conn::Backend as AsyncStoreBackend>::find_export(conn, id).await?;
        self.store.check_scope(header, scope)?;
        let now = as_i64(self.store.now());
        expired(<Conn::Backend as AsyncStoreBackend>::expire_by(conn, id, now).await?)
    }

    /// [`export::ExportStore::expire_unscoped`](super::ExportStore::expire_unscoped), on a
    /// diesel-async connection: for an operator's job, never for a request.
    ///
    /// # Errors
    /// [`ExportError::Database`].
    pub async fn expire_unscoped<Conn>(
        &self,
        conn: &mut Conn,
        id: &str,
    ) -> Result<bool, ExportError>
    where
        Conn: AsyncConnection + Send,
        Conn::Backend: AsyncStoreBackend,
    {
        if !super::is_export_id(id) {
            return Ok(false);
        }
        let now = as_i64(self.store.now());
        Ok(<Conn::Backend as AsyncStoreBackend>::expire_by(conn, id, now).await? > 0)
    }

    /// [`export::ExportStore::purge_expired`](super::ExportStore::purge_expired), on a
    /// diesel-async connection.
    ///
    /// # Errors
    /// [`ExportError::Database`].
    pub async fn purge_expired<Conn>(&self, conn: &mut Conn) -> Result<Purged, ExportError>
    where
        Conn: AsyncConnection + Send,
        Conn::Backend: AsyncStoreBackend,
    {
        let now = as_i64(self.store.now());
        let ids = <Conn::Backend as AsyncStoreBackend>::expired_ids(conn, now).await?;
        let (exports, rows) =
            <Conn::Backend as AsyncStoreBackend>::delete_exports(conn, &ids).await?;
        Ok(Purged { exports, rows })
    }
}
