//! How a read-contract test reads ([`Reader`]): the blocking API on the connection itself,
//! implemented here; the async API's reader is in `async_reader.rs`.

use diesel::connection::Instrumentation;
use diesel::QueryResult;
use keyset_diesel::export::{Export, ExportError, ExportPage, ExportStore, Purged};
use keyset_diesel::{with_read_snapshot, Cursor, Keyset, Page, Walk};

use super::{Ev, Shared, SharedDb};

/// A walk as a test asks for it.
#[derive(Debug, Clone, Default)]
pub struct WalkSpec {
    /// Start after this cursor.
    pub after: Option<Cursor<Ev>>,
    /// Rows per page.
    pub page_size: u32,
    /// Bound the walk by a high-water mark.
    pub high_water_mark: bool,
}

/// What a test sees after each item of a walk: the item and the walk's mark; it returns
/// whether to read on.
pub type OnItem<'a> = dyn FnMut(QueryResult<Page<Ev>>, Option<<Ev as Keyset>::Key>) -> bool + 'a;

/// How a read-contract test reads: the blocking API on a blocking connection (the
/// connection itself), or the async API (`keyset_diesel::async_`) on a diesel-async
/// connection to the same database, driven by a runtime of its own. Every test below runs
/// both ways, with the same data, writers and checks; set-up and the oracle's plain
/// `ORDER BY` reads stay on blocking connections.
pub trait Reader<C: SharedDb>: Sized {
    /// A new reading connection to the shared database.
    fn open(shared: &Shared<C>) -> Self;
    /// Walks `workspace`'s events (`Walk` or `async_::Walk`) until it ends or `on_item`
    /// says stop; returns the walk's cursor then.
    fn walk(
        &mut self,
        workspace: &str,
        spec: WalkSpec,
        on_item: &mut OnItem<'_>,
    ) -> Option<Cursor<Ev>>;
    /// In one read snapshot (`with_read_snapshot`): `workspace`'s events in one statement
    /// (the copy, the snapshot's first statement), then a walk of them in pages of
    /// `page_size`, calling `between` after each page.
    ///
    /// # Errors
    /// The database's.
    fn snapshot(
        &mut self,
        workspace: &str,
        page_size: u32,
        between: &mut (dyn FnMut() + Send),
    ) -> QueryResult<(Vec<Ev>, Vec<Ev>)>;
    /// `ExportStore::create` of `make_query`'s rows under `(scope,)`.
    ///
    /// # Errors
    /// The store's.
    fn create(
        &mut self,
        store: &ExportStore,
        scope: &str,
        make_query: &mut (dyn FnMut() -> C::EvQuery + Send),
    ) -> Result<Export, ExportError>;
    /// `ExportStore::page`.
    ///
    /// # Errors
    /// The store's.
    fn page(
        &mut self,
        store: &ExportStore,
        id: &str,
        scope: &str,
        token: Option<&str>,
        page_size: u32,
    ) -> Result<ExportPage<Ev>, ExportError>;
    /// `ExportStore::expire`.
    ///
    /// # Errors
    /// The store's.
    fn expire(&mut self, store: &ExportStore, id: &str, scope: &str) -> Result<(), ExportError>;
    /// `ExportStore::expire_unscoped`.
    ///
    /// # Errors
    /// The store's.
    fn expire_unscoped(&mut self, store: &ExportStore, id: &str) -> Result<bool, ExportError>;
    /// `ExportStore::purge_expired`.
    ///
    /// # Errors
    /// The store's.
    fn purge(&mut self, store: &ExportStore) -> Result<Purged, ExportError>;
    /// Instruments the reading connection.
    fn instrument(&mut self, hook: impl Instrumentation);
    /// Runs `sql` on the reading connection (a session setting).
    fn session(&mut self, sql: &str);
}

impl<C: SharedDb> Reader<C> for C {
    fn open(shared: &Shared<C>) -> Self {
        shared.connect()
    }

    fn walk(
        &mut self,
        workspace: &str,
        spec: WalkSpec,
        on_item: &mut OnItem<'_>,
    ) -> Option<Cursor<Ev>> {
        let mut walk = Walk::<Ev, _, _>::new(self, || C::ev_query(workspace))
            .after(spec.after)
            .page_size(spec.page_size);
        if spec.high_water_mark {
            walk = walk.high_water_mark();
        }
        while let Some(item) = walk.next() {
            if !on_item(item, walk.mark().cloned()) {
                break;
            }
        }
        walk.cursor().cloned()
    }

    fn snapshot(
        &mut self,
        workspace: &str,
        page_size: u32,
        between: &mut (dyn FnMut() + Send),
    ) -> QueryResult<(Vec<Ev>, Vec<Ev>)> {
        with_read_snapshot(self, |conn| {
            let copy = conn.load_evs(workspace)?;
            let mut exported = Vec::new();
            for page in Walk::<Ev, _, _>::new(conn, || C::ev_query(workspace)).page_size(page_size)
            {
                exported.extend(page?.items);
                between();
            }
            Ok((copy, exported))
        })
    }

    fn create(
        &mut self,
        store: &ExportStore,
        scope: &str,
        make_query: &mut (dyn FnMut() -> C::EvQuery + Send),
    ) -> Result<Export, ExportError> {
        store.create::<Ev, _, _, _, _>(self, &(scope,), make_query)
    }

    fn page(
        &mut self,
        store: &ExportStore,
        id: &str,
        scope: &str,
        token: Option<&str>,
        page_size: u32,
    ) -> Result<ExportPage<Ev>, ExportError> {
        store.page::<Ev, _, _>(self, id, &(scope,), token, page_size)
    }

    fn expire(&mut self, store: &ExportStore, id: &str, scope: &str) -> Result<(), ExportError> {
        store.expire(self, id, &(scope,))
    }

    fn expire_unscoped(&mut self, store: &ExportStore, id: &str) -> Result<bool, ExportError> {
        store.expire_unscoped(self, id)
    }

    fn purge(&mut self, store: &ExportStore) -> Result<Purged, ExportError> {
        store.purge_expired(self)
    }

    fn instrument(&mut self, hook: impl Instrumentation) {
        self.set_instrumentation(hook);
    }

    fn session(&mut self, sql: &str) {
        diesel::connection::SimpleConnection::batch_execute(self, sql).expect("session setting");
    }
}
