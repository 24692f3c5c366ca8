//! The [`Reader`] of the async API: a diesel-async connection and the runtime that drives it.

use super::{OnItem, Reader, WalkSpec};
use crate::schema::events;
use diesel::connection::Instrumentation;
use diesel::{ExpressionMethods, QueryDsl, QueryResult};
use diesel_async::{AsyncConnection, RunQueryDsl, SimpleAsyncConnection};
use keyset_diesel::async_;
use keyset_diesel::export::{Export, ExportError, ExportPage, ExportStore, Purged};
use keyset_diesel::Cursor;
use keyset_test_models::read_contracts::{Ev, Shared, SharedDb};

/// A diesel-async connection `A` to a [`Shared`] database of `C`, with its runtime.
pub struct AsyncReader<C, A> {
    conn: A,
    runtime: tokio::runtime::Runtime,
    db: std::marker::PhantomData<fn() -> C>,
}

macro_rules! async_reader {
    ($db:ty, $async:ty) => {
        impl Reader<$db> for AsyncReader<$db, $async> {
            fn open(shared: &Shared<$db>) -> Self {
                let runtime = crate::async_db::runtime();
                let conn = runtime.block_on(async {
                    let mut conn = <$async>::establish(shared.url())
                        .await
                        .unwrap_or_else(|e| panic!("async connect to {}: {e}", shared.url()));
                    conn.batch_execute(shared.setup_sql())
                        .await
                        .expect("connection setup");
                    conn
                });
                AsyncReader {
                    conn,
                    runtime,
                    db: std::marker::PhantomData,
                }
            }

            fn walk(
                &mut self,
                workspace: &str,
                spec: WalkSpec,
                on_item: &mut OnItem<'_>,
            ) -> Option<Cursor<Ev>> {
                let conn = &mut self.conn;
                self.runtime.block_on(async {
                    let mut walk =
                        async_::Walk::<Ev, _, _>::new(conn, || <$db>::ev_query(workspace))
                            .after(spec.after)
                            .page_size(spec.page_size);
                    if spec.high_water_mark {
                        walk = walk.high_water_mark();
                    }
                    while let Some(item) = walk.next_page().await {
                        if !on_item(item, walk.mark().cloned()) {
                            break;
                        }
                    }
                    walk.cursor().cloned()
                })
            }

            fn snapshot(
                &mut self,
                workspace: &str,
                page_size: u32,
                between: &mut (dyn FnMut() + Send),
            ) -> QueryResult<(Vec<Ev>, Vec<Ev>)> {
                let conn = &mut self.conn;
                self.runtime.block_on(async_::with_read_snapshot(
                    conn,
                    async |conn: &mut $async| {
                        let copy: Vec<Ev> = <$db>::ev_query(workspace)
                            .order((events::occurred_at.asc(), events::event_id.asc()))
                            .load(conn)
                            .await?;
                        let mut exported = Vec::new();
                        let mut walk =
                            async_::Walk::<Ev, _, _>::new(conn, || <$db>::ev_query(workspace))
                                .page_size(page_size);
                        while let Some(page) = walk.next_page().await {
                            exported.extend(page?.items);
                            between();
                        }
                        Ok((copy, exported))
                    },
                ))
            }

            fn create(
                &mut self,
                store: &ExportStore,
                scope: &str,
                make_query: &mut (dyn FnMut() -> <$db as SharedDb>::EvQuery + Send),
            ) -> Result<Export, ExportError> {
                let store = async_::ExportStore::from(store.clone());
                self.runtime.block_on(store.create::<Ev, _, _, _, _>(
                    &mut self.conn,
                    &(scope,),
                    make_query,
                ))
            }

            fn page(
                &mut self,
                store: &ExportStore,
                id: &str,
                scope: &str,
                token: Option<&str>,
                page_size: u32,
            ) -> Result<ExportPage<Ev>, ExportError> {
                let store = async_::ExportStore::from(store.clone());
                self.runtime.block_on(store.page::<Ev, _, _>(
                    &mut self.conn,
                    id,
                    &(scope,),
                    token,
                    page_size,
                ))
            }

            fn expire(
                &mut self,
                store: &ExportStore,
                id: &str,
                scope: &str,
            ) -> Result<(), ExportError> {
                let store = async_::ExportStore::from(store.clone());
                self.runtime
                    .block_on(store.expire(&mut self.conn, id, &(scope,)))
            }

            fn expire_unscoped(
                &mut self,
                store: &ExportStore,
                id: &str,
            ) -> Result<bool, ExportError> {
                let store = async_::ExportStore::from(store.clone());
                self.runtime
                    .block_on(store.expire_unscoped(&mut self.conn, id))
            }

            fn purge(&mut self, store: &ExportStore) -> Result<Purged, ExportError> {
                let store = async_::ExportStore::from(store.clone());
                self.runtime.block_on(store.purge_expired(&mut self.conn))
            }

            fn instrument(&mut self, hook: impl Instrumentation) {
                self.conn.set_instrumentation(hook);
            }

            fn session(&mut self, sql: &str) {
                self.runtime
                    .block_on(self.conn.batch_execute(sql))
                    .expect("session setting");
            }
        }
    };
}

#[cfg(feature = "sqlite")]
async_reader!(
    diesel::SqliteConnection,
    diesel_async::sync_connection_wrapper::SyncConnectionWrapper<diesel::SqliteConnection>
);
#[cfg(feature = "postgres")]
async_reader!(diesel::PgConnection, diesel_async::AsyncPgConnection);
#[cfg(feature = "mysql")]
async_reader!(diesel::MysqlConnection, diesel_async::AsyncMysqlConnection);
