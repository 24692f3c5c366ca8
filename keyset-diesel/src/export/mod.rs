//! [`ExportStore`]: a stored export with a managed lifetime, read page by page across requests
//! (feature `export`).

#[cfg(feature = "diesel-async")]
pub(crate) mod async_;
mod store;
mod types;

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use diesel::connection::{AnsiTransactionManager, LoadConnection};
use serde::de::DeserializeOwned;
use serde::Serialize;

#[cfg(feature = "diesel-async")]
pub use self::store::AsyncStoreBackend;
pub use self::store::StoreBackend;
use self::store::{Header, PageRows};
pub use self::types::{Export, ExportError, ExportPage, Purged};

use crate::cursor::Cursor;
use crate::keyset::{KeyColumn, Keyset, SortDirection};
use crate::load::LoadPage;
use crate::page::Page;
use crate::page_size::PageSizePolicy;
use crate::snapshot::in_transaction;
use crate::token::{Clock, CursorCodec, SystemClock};
use crate::walk::Walk;

/// Rows read (and written to the store) per statement while an export is created, by default.
const CREATE_PAGE_SIZE: u32 = 1000;

/// The longest lifetime [`ExportStore::create`] gives an export unless
/// [`ExportStore::max_lifetime`] says otherwise: 30 days.
pub const MAX_EXPORT_LIFETIME: Duration = Duration::from_secs(30 * 24 * 3600);

/// The page sizes [`ExportStore::page`] accepts unless [`ExportStore::page_sizes`] says
/// otherwise: at most 1,000 rows (default 100, for callers that resolve a request's size with
/// it).
pub const EXPORT_PAGE_SIZES: PageSizePolicy = match PageSizePolicy::new(100, 1000) {
    Some(policy) => policy,
    None => unreachable!(),
};

/// The byte budget of a page of [`ExportStore::page`] unless [`ExportStore::max_page_bytes`]
/// says otherwise: 4 MiB of stored rows (their JSON), and at least one row.
pub const EXPORT_PAGE_BYTES: usize = 4 << 20;

/// The most rows [`ExportStore::create`] stores in one export unless
/// [`ExportStore::max_rows`] says otherwise: 1,000,000.
pub const MAX_EXPORT_ROWS: u64 = 1_000_000;

/// An export id as [`ExportStore::create`] makes them: 32 lowercase hex digits. Any other id
/// is [`ExportError::Unknown`] before a query.
fn is_export_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Stores exports and reads them back page by page: the read contract for an HTTP API whose
/// every page is a separate request on whatever pooled connection is free, and that must
/// still deliver one defined dataset ([read contracts](crate::guide::read_contracts#stored-export-across-requests)).
///
/// * [`ExportStore::create`] walks the query once, inside one transaction on a consistent
///   snapshot, and stores every row (serialized with serde, as JSON) with its position under
///   a new random export id, with an expiry. Membership, order and content are fixed at that
///   moment: later inserts, deletes and updates of the source table do not change the export.
/// * [`ExportStore::page`] reads a page of an export by position; its token is a
///   [`CursorCodec`] token bound to the export id (scope `("export", id)`), so a token of one
///   export is refused for another. The caller's scope (a workspace, a user) is checked on
///   every page: an export read under another scope is reported unknown.
/// * [`ExportStore::expire`] ends an export now; [`ExportStore::purge_expired`] deletes expired
///   exports (run it from a periodic job). Reading an expired export is
///   [`ExportError::Expired`] (HTTP 410) until it is purged, then [`ExportError::Unknown`] (404).
///
/// The tables come with the crate as Diesel migrations (`migrations/<backend>/*_create_keyset_exports`
/// in the repository); apply them with your own migrations (see [the store's tables](crate::guide::read_contracts#the-stores-tables)).
///
/// Creating holds a transaction for the whole walk; on SQLite it is `BEGIN IMMEDIATE`, so
/// other writers wait (their busy timeout) while an export is created. Bound what one
/// creation costs with [`ExportStore::max_rows`] (1,000,000 by default), and how many run at
/// once in your server (the feed server example allows two and answers 503 beyond); bound
/// what one page costs with [`ExportStore::page_sizes`] and [`ExportStore::max_page_bytes`].
#[derive(Clone)]
pub struct ExportStore {
    codec: CursorCodec,
    ttl: Duration,
    clock: Arc<dyn Clock>,
    create_page_size: u32,
    max_lifetime: Duration,
    page_sizes: PageSizePolicy,
    max_page_bytes: usize,
    max_rows: u64,
}

impl std::fmt::Debug for ExportStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExportStore")
            .field("ttl", &self.ttl)
            .field("create_page_size", &self.create_page_size)
            .field("max_lifetime", &self.max_lifetime)
            .field("page_sizes", &self.page_sizes)
            .field("max_page_bytes", &self.max_page_bytes)
            .field("max_rows", &self.max_rows)
            .finish_non_exhaustive()
    }
}

/// An export [`ExportStore::create`] is about to store: its id, the stored scope and the
/// times, in Unix seconds.
struct NewExport {
    id: String,
    scope: String,
    created_at: u64,
    expires_at: u64,
}

impl NewExport {
    fn insert_header<DB: StoreBackend, C: LoadConnection<Backend = DB>>(
        &self,
        conn: &mut C,
    ) -> diesel::QueryResult<()> {
        DB::insert_export(
            conn,
            &self.id,
            &self.scope,
            as_i64(self.created_at),
            as_i64(self.expires_at),
        )
    }

    fn created(self, rows: i64) -> Export {
        Export {
            id: self.id,
            rows: as_u64(rows),
            created_at: self.created_at,
            expires_at: self.expires_at,
        }
    }
}

/// The rows of a page of the creation's walk, serialized, and the position of the first;
/// `stored` counts the rows stored so far. [`ExportError::TooManyRows`] when they would take
/// the export past `max_rows`, before any of them is serialized.
fn payloads<K: Keyset + Serialize>(
    stored: &mut i64,
    page: &Page<K>,
    max_rows: u64,
) -> Result<(i64, Vec<String>), ExportError> {
    let after = as_u64(*stored).saturating_add(page.items.len() as u64);
    if after > max_rows {
        return Err(ExportError::TooManyRows { limit: max_rows });
    }
    let payloads = page
        .items
        .iter()
        .map(serde_json::to_string)
        .collect::<Result<Vec<_>, _>>()?;
    let first = *stored + 1;
    *stored += as_i64(payloads.len() as u64);
    Ok((first, payloads))
}

/// The error of a page whose rows disagree with its header ([`ExportStore::page`]), from the
/// header read again: expired while it is there, unknown once it is gone.
fn going_away(header: Option<Header>) -> ExportError {
    match header {
        Some((_, _, _, expires_at)) => ExportError::Expired {
            expired_at: as_u64(expires_at),
        },
        None => ExportError::Unknown,
    }
}

/// The outcome of [`ExportStore::expire`]'s update: no row updated means the export was
/// purged after its header was read.
fn expired(updated: usize) -> Result<(), ExportError> {
    if updated == 0 {
        return Err(ExportError::Unknown);
    }
    Ok(())
}

/// The key of a position in a stored export: what export page tokens carry.
struct ExportPosition;

impl Keyset for ExportPosition {
    type Table = store::keyset_export_rows::table;
    type Columns = (store::keyset_export_rows::seq,);
    type Key = (i64,);
    const COLUMNS: &'static [KeyColumn] = &[KeyColumn {
        name: "seq",
        field: "0",
        direction: SortDirection::Asc,
        nulls: None,
        expression: false,
        exact_text: false,
    }];
    const TABLE_NAME: &'static str = "keyset_export_rows";
    fn key(&self) -> (i64,) {
        (0,)
    }
}

fn unix_seconds(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

fn as_i64(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

fn as_u64(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

impl ExportStore {
    /// A store whose exports live for `ttl` after creation, with page tokens made and checked
    /// by `codec` (tokens also expire by the codec's own time to live).
    pub fn new(codec: CursorCodec, ttl: Duration) -> Self {
        ExportStore {
            codec,
            ttl,
            clock: Arc::new(SystemClock),
            create_page_size: CREATE_PAGE_SIZE,
            max_lifetime: MAX_EXPORT_LIFETIME,
            page_sizes: EXPORT_PAGE_SIZES,
            max_page_bytes: EXPORT_PAGE_BYTES,
            max_rows: MAX_EXPORT_ROWS,
        }
    }

    /// The longest lifetime [`ExportStore::create`] accepts for this store's `ttl` (default
    /// [`MAX_EXPORT_LIFETIME`], 30 days): a longer one is [`ExportError::InvalidLifetime`].
    pub fn max_lifetime(mut self, max: Duration) -> Self {
        self.max_lifetime = max;
        self
    }

    /// The page sizes [`ExportStore::page`] accepts (default [`EXPORT_PAGE_SIZES`]: at most
    /// 1,000): a larger one is [`ExportError::PageSize`] (`TooLarge`), or the maximum with a
    /// [clamping](PageSizePolicy::clamping) policy. A page is read into memory whole, so this
    /// and [`ExportStore::max_page_bytes`] bound what one request allocates.
    pub fn page_sizes(mut self, policy: PageSizePolicy) -> Self {
        self.page_sizes = policy;
        self
    }

    /// The byte budget of a page of [`ExportStore::page`] (default [`EXPORT_PAGE_BYTES`], 4
    /// MiB): a page stops before the row that would take its rows' stored JSON above
    /// `max_bytes`, but always holds at least one row (a row bigger than the budget comes
    /// alone), as a live page's [`max_bytes_in_sql`](crate::Paginated::max_bytes_in_sql)
    /// does. The database measures the rows (`octet_length` of the stored payload, summed over
    /// the page's positions in the page's own statement), so a row past the budget is never
    /// loaded: a page allocates about `max_bytes`, plus one row when the first row alone is
    /// larger. A page cut by the budget has a `next_token` that starts with the first row left
    /// out. Units: bytes of the stored JSON, which is what the page's items serialize back to.
    ///
    /// ```
    /// # include!("../doctest_setup.rs");
    /// # use std::time::Duration;
    /// # use keyset_diesel::{export::ExportStore, token::SecretKey, CursorCodec};
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let conn = &mut setup();
    /// # diesel::sql_query("CREATE TABLE keyset_exports (export_id TEXT PRIMARY KEY NOT NULL, scope TEXT NOT NULL, row_count BIGINT NOT NULL, created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL)").execute(conn)?;
    /// # diesel::sql_query("CREATE TABLE keyset_export_rows (export_id TEXT NOT NULL, seq BIGINT NOT NULL, payload TEXT NOT NULL, PRIMARY KEY (export_id, seq))").execute(conn)?;
    /// #[derive(Queryable, Selectable, Keyset, serde::Serialize, serde::Deserialize)]
    /// #[diesel(table_name = events)]
    /// struct Row {
    ///     #[keyset(asc, unique)]
    ///     event_id: String,
    /// }
    /// let codec = CursorCodec::builder().signing_key(SecretKey::new(1, &[7; 32])?).build()?;
    /// // `{"event_id":"e101"}` is 19 bytes: two rows fit in 40.
    /// let store = ExportStore::new(codec, Duration::from_secs(3600)).max_page_bytes(40);
    /// let export = store.create::<Row, _, _, _, _>(conn, &("W9",), || {
    ///     events::table.filter(events::workspace_id.eq("W9")).select(Row::as_select())
    /// })?;
    /// let first = store.page::<Row, _, _>(conn, &export.id, &("W9",), None, 5)?;
    /// assert_eq!((first.items.len(), export.rows), (2, 6));
    /// let next = first.next_token.as_deref(); // cut by bytes: more to read
    /// let second = store.page::<Row, _, _>(conn, &export.id, &("W9",), next, 5)?;
    /// assert_eq!((second.first_position, second.items.len()), (3, 2));
    /// # Ok(())
    /// # }
    /// ```
    pub fn max_page_bytes(mut self, max_bytes: usize) -> Self {
        self.max_page_bytes = max_bytes;
        self
    }

    /// The most rows one export may hold (default [`MAX_EXPORT_ROWS`]): a query that selects
    /// more is [`ExportError::TooManyRows`]. [`ExportStore::create`] checks each page of its
    /// walk before storing it, so it stores at most `max_rows` rows and reads at most one
    /// page (of [`ExportStore::create_page_size`], or `max_rows + 1` rows if fewer) past them
    /// before it refuses; the transaction then rolls back and nothing is kept. This bounds
    /// what one creation costs (its time, the write lock it holds on SQLite, the storage).
    pub fn max_rows(mut self, max_rows: u64) -> Self {
        self.max_rows = max_rows;
        self
    }

    /// Rows read per statement of [`ExportStore::create`]'s walk: its page size, at most
    /// `max_rows + 1` (enough to tell that an export is too large).
    fn walk_page_size(&self) -> u32 {
        let over = u32::try_from(self.max_rows.saturating_add(1)).unwrap_or(u32::MAX);
        self.create_page_size.min(over)
    }

    /// Rows per page while [`ExportStore::create`] walks the query (default 1,000): each page
    /// is one read and one multi-row insert, so this bounds memory and statement size (keep
    /// it under the backend's bind-parameter limit divided by 3). A page size of 0 makes
    /// `create` fail.
    pub fn create_page_size(mut self, rows: u32) -> Self {
        self.create_page_size = rows;
        self
    }

    /// Where "now" comes from (expiry of exports; tests replace it).
    pub fn with_clock(mut self, clock: impl Clock + 'static) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    fn now(&self) -> u64 {
        unix_seconds(self.clock.now())
    }

    /// Creates an export of every row `make_query` selects (called once per page, as for a
    /// [`Walk`]), under `scope` (what a reader must present: the workspace, the user, the
    /// filters), and returns it. One transaction on a consistent snapshot (PostgreSQL
    /// `REPEATABLE READ`, MySQL/MariaDB `WITH CONSISTENT SNAPSHOT`, SQLite `BEGIN IMMEDIATE`)
    /// reads the rows in keyset pages (of [`ExportStore::create_page_size`]) and writes each
    /// page to the store, so the
    /// export is one consistent set in the keyset's order and memory stays bounded by a page.
    ///
    /// # Errors
    /// [`ExportError::Database`] (nothing is stored: the transaction rolls back),
    /// [`ExportError::TooManyRows`] when the query selects more than
    /// [`ExportStore::max_rows`] (nothing is stored), [`ExportError::Serde`] when a row does
    /// not serialize, [`ExportError::Encode`] when the
    /// scope does not serialize, [`ExportError::Random`], [`ExportError::InvalidLifetime`] when
    /// the store's `ttl` is 0 or above [`ExportStore::max_lifetime`].
    pub fn create<'q, K, Q, F, Conn, S>(
        &self,
        conn: &mut Conn,
        scope: &S,
        mut make_query: F,
    ) -> Result<Export, ExportError>
    where
        K: Keyset + Serialize,
        F: FnMut() -> Q,
        Q: LoadPage<'q, Conn, K>,
        Conn: LoadConnection<TransactionManager = AnsiTransactionManager>,
        Conn::Backend: StoreBackend,
        S: Serialize + ?Sized,
    {
        let new = self.new_export(scope)?;
        in_transaction(
            conn,
            <Conn::Backend as crate::backend::KeysetBackend>::BEGIN_WRITE_SNAPSHOT,
            |conn| {
                new.insert_header::<Conn::Backend, _>(conn)?;
                let mut stored: i64 = 0;
                let mut walk =
                    Walk::<K, _, _>::new(conn, &mut make_query).page_size(self.walk_page_size());
                while let Some(page) = walk.next() {
                    let (first, payloads) = payloads(&mut stored, &page?, self.max_rows)?;
                    <Conn::Backend as StoreBackend>::insert_rows(
                        walk.connection(),
                        &new.id,
                        first,
                        payloads,
                    )?;
                }
                <Conn::Backend as StoreBackend>::set_row_count(conn, &new.id, stored)?;
                Ok::<_, ExportError>(new.created(stored))
            },
        )
    }

    /// What [`ExportStore::create`] checks and makes before any SQL: the lifetime, the
    /// stored scope, a new random id and the times.
    fn new_export<S: Serialize + ?Sized>(&self, scope: &S) -> Result<NewExport, ExportError> {
        if self.ttl.is_zero() || self.ttl > self.max_lifetime {
            return Err(ExportError::InvalidLifetime {
                requested_secs: self.ttl.as_secs(),
                max_secs: self.max_lifetime.as_secs(),
            });
        }
        let scope = self.codec.stored_scope(scope)?;
        let mut random = [0u8; 16];
        getrandom::getrandom(&mut random).map_err(ExportError::Random)?;
        let created_at = self.now();
        Ok(NewExport {
            id: hex(&random),
            scope,
            created_at,
            expires_at: created_at.saturating_add(self.ttl.as_secs()),
        })
    }

    /// The page of export `id` after `token` (`None`: the first page), at most `page_size`
    /// rows and at most [`ExportStore::max_page_bytes`] of them (at least one row), read
    /// under `scope` (the same value the export was created under).
    ///
    /// # Errors
    /// [`ExportError::Unknown`] for an id that does not exist, is not the store's format (32
    /// lowercase hex digits: refused before any query) or was created under another
    /// scope, [`ExportError::PageSize`] above the store's maximum page size
    /// ([`ExportStore::page_sizes`]), [`ExportError::Expired`] (also when a purge deleted the export's rows between
    /// this read's two statements: its header and its rows; `Unknown` if the header is gone
    /// too: a page whose rows disagree with the header's total is never returned),
    /// [`ExportError::Cursor`] for a refused token (one made
    /// for another export: `CursorError::ScopeMismatch`), [`ExportError::InvalidPageSize`],
    /// [`ExportError::Serde`] when a stored row does not deserialize into `T`,
    /// [`ExportError::Database`].
    pub fn page<T, Conn, S>(
        &self,
        conn: &mut Conn,
        id: &str,
        scope: &S,
        token: Option<&str>,
        page_size: u32,
    ) -> Result<ExportPage<T>, ExportError>
    where
        T: DeserializeOwned,
        Conn: LoadConnection,
        Conn::Backend: StoreBackend,
        S: Serialize + ?Sized,
    {
        let (page_size, after) = self.page_request(id, token, page_size)?;
        let header = <Conn::Backend as StoreBackend>::find_export(conn, id)?;
        let (total, expires_at) = self.check_header(header, scope)?;
        let rows =
            <Conn::Backend as StoreBackend>::load_rows(conn, self.page_rows(id, after, page_size))?;
        match self.page_of(id, rows, after, total, expires_at, page_size)? {
            Some(page) => Ok(page),
            None => Err(going_away(<Conn::Backend as StoreBackend>::find_export(
                conn, id,
            )?)),
        }
    }

    /// What [`ExportStore::page`] checks before any SQL: the page size (resolved by the
    /// store's policy), the id's format and the token; returns the page size and the position
    /// the page starts after.
    fn page_request(
        &self,
        id: &str,
        token: Option<&str>,
        page_size: u32,
    ) -> Result<(u32, i64), ExportError> {
        if page_size == 0 {
            return Err(ExportError::InvalidPageSize);
        }
        let page_size = self.page_sizes.resolve_number(Some(i64::from(page_size)))?;
        if !is_export_id(id) {
            return Err(ExportError::Unknown);
        }
        let after = match token {
            Some(token) => {
                self.codec
                    .decode::<ExportPosition>(token, &("export", id))?
                    .key
                    .0
            }
            None => 0,
        };
        Ok((page_size, after))
    }

    /// The statement of a page's rows: positions after `after`, `page_size + 1` of them (the
    /// one past the page tells whether there is more), with the payloads of those within the
    /// page and the byte budget.
    fn page_rows<'a>(&self, id: &'a str, after: i64, page_size: u32) -> PageRows<'a> {
        PageRows {
            id,
            after_seq: after,
            limit: i64::from(page_size) + 1,
            page_size: i64::from(page_size),
            max_bytes: as_i64(self.max_page_bytes as u64),
        }
    }

    /// The export's header checked for the caller's scope and expiry: `(total, expires_at)`.
    fn check_header<S: Serialize + ?Sized>(
        &self,
        header: Option<Header>,
        scope: &S,
    ) -> Result<(i64, i64), ExportError> {
        let (stored_scope, total, _created, expires_at) = header.ok_or(ExportError::Unknown)?;
        if !self.codec.stored_scope_is(&stored_scope, scope)? {
            return Err(ExportError::Unknown);
        }
        if self.now() >= as_u64(expires_at) {
            return Err(ExportError::Expired {
                expired_at: as_u64(expires_at),
            });
        }
        Ok((total, expires_at))
    }

    /// The page made of `rows` (positions after `after`, at most `page_size + 1`, each with
    /// its payload while within the page and its byte budget: [`PageRows`]), or `None` when
    /// they are not exactly the positions the header's `total` promises: the header and
    /// the rows are two statements, and a purge (or an operator's `expire` and a purge, or a
    /// purge job whose clock runs ahead) may delete the rows in between. The export is then
    /// going away ([`going_away`]): never serve a short "complete" page.
    fn page_of<T: DeserializeOwned>(
        &self,
        id: &str,
        rows: Vec<(i64, Option<String>)>,
        after: i64,
        total: i64,
        expires_at: i64,
        page_size: u32,
    ) -> Result<Option<ExportPage<T>>, ExportError> {
        let fetch = i64::from(page_size) + 1;
        let promised = (total - after).clamp(0, fetch);
        let whole = i64::try_from(rows.len()) == Ok(promised)
            && rows
                .iter()
                .zip(after + 1..)
                .all(|(&(seq, _), want)| seq == want);
        // The page: the rows with a payload (a prefix, the first row always among them).
        let kept = rows
            .iter()
            .take_while(|(_, payload)| payload.is_some())
            .count();
        if !whole || (kept == 0 && !rows.is_empty()) {
            return Ok(None);
        }
        let more = rows.len() > kept;
        let rows: Vec<(i64, String)> = rows
            .into_iter()
            .map_while(|(seq, payload)| Some((seq, payload?)))
            .collect();
        let next_token = match rows.last() {
            Some(&(seq, _)) if more => Some(self.codec.encode_with_page_size(
                &Cursor::<ExportPosition>::after((seq,)),
                page_size,
                &("export", id),
            )?),
            _ => None,
        };
        let first_position = rows.first().map_or(as_u64(after) + 1, |r| as_u64(r.0));
        let items = rows
            .into_iter()
            .map(|(_, payload)| serde_json::from_str(&payload))
            .collect::<Result<Vec<T>, _>>()?;
        Ok(Some(ExportPage {
            items,
            next_token,
            first_position,
            total: as_u64(total),
            expires_at: as_u64(expires_at),
        }))
    }

    /// Ends export `id` of `scope` now (the scope it was created under, checked as
    /// [`ExportStore::page`] checks it): reading it is [`ExportError::Expired`] from now on,
    /// and the next [`ExportStore::purge_expired`] deletes it. The end only ever moves
    /// earlier (`expires_at = MIN(expires_at, now)`, in SQL): ending an export that already
    /// expired keeps its end, even from a host whose clock runs ahead, so it never becomes
    /// readable again.
    ///
    /// # Errors
    /// [`ExportError::Unknown`] for an id that does not exist, is not the store's format, or
    /// was created under another scope (nothing changes, and the caller learns nothing of
    /// other scopes' ids), [`ExportError::Encode`] when the scope does not serialize,
    /// [`ExportError::Database`].
    pub fn expire<Conn, S>(&self, conn: &mut Conn, id: &str, scope: &S) -> Result<(), ExportError>
    where
        Conn: LoadConnection,
        Conn::Backend: StoreBackend,
        S: Serialize + ?Sized,
    {
        if !is_export_id(id) {
            return Err(ExportError::Unknown);
        }
        let header = <Conn::Backend as StoreBackend>::find_export(conn, id)?;
        self.check_scope(header, scope)?;
        let n = <Conn::Backend as StoreBackend>::expire_by(conn, id, as_i64(self.now()))?;
        expired(n)
    }

    /// The export's header checked for the caller's scope (not for expiry: expiring an
    /// expired export is harmless).
    fn check_scope<S: Serialize + ?Sized>(
        &self,
        header: Option<Header>,
        scope: &S,
    ) -> Result<(), ExportError> {
        let (stored_scope, ..) = header.ok_or(ExportError::Unknown)?;
        if !self.codec.stored_scope_is(&stored_scope, scope)? {
            return Err(ExportError::Unknown);
        }
        Ok(())
    }

    /// Ends export `id` now whatever its scope: for an operator's job, never for a request
    /// (see [`ExportStore::expire`]; the end only ever moves earlier). Returns whether the
    /// export existed.
    ///
    /// # Errors
    /// [`ExportError::Database`].
    pub fn expire_unscoped<Conn>(&self, conn: &mut Conn, id: &str) -> Result<bool, ExportError>
    where
        Conn: LoadConnection,
        Conn::Backend: StoreBackend,
    {
        if !is_export_id(id) {
            return Ok(false);
        }
        let n = <Conn::Backend as StoreBackend>::expire_by(conn, id, as_i64(self.now()))?;
        Ok(n > 0)
    }

    /// Deletes every expired export and its rows; returns how many of each it removed. Each
    /// export's rows are deleted before its header, so a purge interrupted half-way leaves
    /// the export for the next purge.
    ///
    /// # Errors
    /// [`ExportError::Database`].
    pub fn purge_expired<Conn>(&self, conn: &mut Conn) -> Result<Purged, ExportError>
    where
        Conn: LoadConnection,
        Conn::Backend: StoreBackend,
    {
        let ids = <Conn::Backend as StoreBackend>::expired_ids(conn, as_i64(self.now()))?;
        let (exports, rows) = <Conn::Backend as StoreBackend>::delete_exports(conn, &ids)?;
        Ok(Purged { exports, rows })
    }
}
