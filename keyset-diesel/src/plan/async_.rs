//! [`explain`] and [`explain_analyze`] on diesel-async connections: the same [`PlanRun`] and
//! the same driver ([`run_plan!`](super::run_plan)), `.await`ed.

use std::future::Future;

use diesel::query_builder::QueryFragment;
use diesel_async::methods::LoadQuery;
use diesel_async::{AsyncConnectionCore, RunQueryDsl};

use super::{
    explain_connection_impl, run_plan, Explain, PlanBackend, PlanError, PlanReport, PlanRun,
    StatusRow, HANDLER_STATUS,
};
use crate::keyset::Keyset;
use crate::paginate::async_::Async;
use crate::paginate::Paginated;
use crate::query::{PageQuery, PageSource, SelectParts};

/// [`plan::explain`](crate::plan::explain) on a diesel-async connection: the page's plan,
/// read and judged as the blocking form does, without running the page.
///
/// ```
/// # include!("../doctest_setup.rs");
/// use diesel_async::sync_connection_wrapper::SyncConnectionWrapper;
/// use keyset_diesel::async_::{self, PaginateDsl};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), keyset_diesel::plan::PlanError> {
/// let mut conn = SyncConnectionWrapper::<SqliteConnection>::new(setup());
/// let page = events::table
///     .filter(events::workspace_id.eq("W9"))
///     .select(Event::as_select())
///     .paginate_after::<Event>(None)
///     .page_size(2);
/// let report = async_::explain(&mut conn, page).await?;
/// assert!(!report.seeks()); // no index on the keyset yet: the report names one
/// assert!(report.index_recipe.starts_with("CREATE INDEX"));
/// # Ok(())
/// # }
/// ```
///
/// # Errors
/// As the blocking `explain`.
pub async fn explain<'q, Q, K, Conn>(
    conn: &mut Conn,
    paginated: Paginated<Q, K, Async>,
) -> Result<PlanReport, PlanError>
where
    K: Keyset,
    Conn: AsyncExplainConnection<'q, Q, K>,
{
    Conn::explain_page(conn, paginated, false).await
}

/// [`plan::explain_analyze`](crate::plan::explain_analyze) on a diesel-async connection.
///
/// # Errors
/// As the blocking `explain_analyze`.
pub async fn explain_analyze<'q, Q, K, Conn>(
    conn: &mut Conn,
    paginated: Paginated<Q, K, Async>,
) -> Result<PlanReport, PlanError>
where
    K: Keyset,
    Conn: AsyncExplainConnection<'q, Q, K>,
{
    Conn::explain_page(conn, paginated, true).await
}

/// A diesel-async connection the plan check runs on, for pages of query `Q` and keyset `K`:
/// the one bound of the async [`explain`] and [`explain_analyze`], the twin of
/// [`ExplainConnection`](super::ExplainConnection). Implemented for every diesel-async
/// connection whose backend is a [`PlanBackend`] and that loads the page's `EXPLAIN` rows.
pub trait AsyncExplainConnection<'q, Q, K: Keyset>: Sized {
    /// Runs the plan check (what [`explain`] and [`explain_analyze`] call).
    #[doc(hidden)]
    fn explain_page(
        conn: &mut Self,
        paginated: Paginated<Q, K, Async>,
        analyze: bool,
    ) -> impl Future<Output = Result<PlanReport, PlanError>>;
}

explain_connection_impl! {
    AsyncExplainConnection for Conn: AsyncConnectionCore, LoadQuery + 'q,
    where { Conn: Send, }
    #[allow(clippy::manual_async_fn)] // spelled out: a trait's method
    fn explain_page(
        conn: &mut Conn,
        paginated: Paginated<Q, K, Async>,
        analyze: bool,
    ) -> impl Future<Output = Result<PlanReport, PlanError>> {
        async move { run_plan!(Conn::Backend, conn, paginated, analyze, .await) }
    }
}
