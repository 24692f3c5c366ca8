//! GraphQL Relay connections (feature `async-graphql`, async-graphql 7): a [`RelayConnection`]
//! from a [`Page`], and Relay's `first` / `after` / `last` / `before` arguments resolved through
//! the same [`CursorCodec`], scope and [`PageSizePolicy`] as the REST parameters
//! ([`PageParams`](super::PageParams)). Errors are GraphQL errors whose `extensions.code` is the
//! REST [`Problem`]'s code, with its title as the message: never the token's text.
//! [`CostLimit`] refuses, before anything runs, a document that asks for more page reads,
//! total counts or selections than its limits ([`DocumentCost`]), or that does not parse
//! (without quoting it).
//!
//! ```
//! # include!("../../doctest_setup.rs");
//! use keyset_diesel::token::SecretKey;
//! use keyset_diesel::web::graphql::{connection, RelayArgs};
//! use keyset_diesel::web::PageSizePolicy;
//! use keyset_diesel::CursorCodec;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let conn = &mut setup();
//! let codec = CursorCodec::builder()
//!     .signing_key(SecretKey::new(1, b"a 32+ byte secret from your secret store")?)
//!     .build()?;
//! let policy = PageSizePolicy::new(2, 10).expect("default <= maximum");
//! let scope = ("events", "W9");
//! let feed = || events::table.filter(events::workspace_id.eq("W9")).select(Event::as_select());
//! // `events(first: 2)`
//! let args = RelayArgs { first: Some(2), ..RelayArgs::default() };
//! let request = args.resolve::<Event>(&codec, &scope, &policy).map_err(|e| e.message)?;
//! let page = request.paginate(feed()).load_page(conn)?;
//! let first = connection(page, &codec, &scope, |e| e.event_id).map_err(|e| e.message)?;
//! assert_eq!(first.edges.iter().map(|e| e.node.as_str()).collect::<Vec<_>>(), ["e101", "e102"]);
//! assert!(first.has_next_page && !first.has_previous_page);
//! // `events(first: 2, after: <endCursor>)`
//! let after = first.edges.last().map(|e| e.cursor.clone());
//! let args = RelayArgs { first: Some(2), after, ..RelayArgs::default() };
//! let request = args.resolve::<Event>(&codec, &scope, &policy).map_err(|e| e.message)?;
//! let page = request.paginate(feed()).load_page(conn)?;
//! assert_eq!(page.items.iter().map(|e| e.event_id.as_str()).collect::<Vec<_>>(), ["e103", "e104"]);
//! // `events(first: 0) { totalCount pageInfo { hasNextPage } }`: no edges, exact flags.
//! let args = RelayArgs { first: Some(0), ..RelayArgs::default() };
//! let request = args.resolve::<Event>(&codec, &scope, &policy).map_err(|e| e.message)?;
//! let page = request.paginate(feed()).with_total_count().load_page(conn)?;
//! let counted = connection(page, &codec, &scope, |e| e.event_id).map_err(|e| e.message)?;
//! assert!(counted.edges.is_empty() && counted.has_next_page && !counted.has_previous_page);
//! assert_eq!(counted.additional_fields.total_count, Some(6));
//! // Both `first` and `last`: the REST problem's code.
//! let both = RelayArgs { first: Some(2), last: Some(2), ..RelayArgs::default() };
//! let error = both.resolve::<Event>(&codec, &scope, &policy).unwrap_err();
//! assert_eq!(error.extensions.unwrap().get("code"), Some(&"query_invalid".into()));
//! # Ok(())
//! # }
//! ```

mod cost;
#[cfg(test)]
mod tests;

pub use self::cost::{CostLimit, DocumentCost};

use async_graphql::connection::{
    Connection, DefaultConnectionName, DefaultEdgeName, Edge, EmptyFields, EnableNodesField,
};
use async_graphql::{ErrorExtensions, ObjectType, OutputType, SimpleObject};
use serde::Serialize;

use super::params::sort_of_tokens;
use super::Problem;
use crate::cursor::{Cursor, Direction};
use crate::keyset::Keyset;
use crate::page::Page;
use crate::page_size::PageSizePolicy;
use crate::paginate::{PaginateDsl, Paginated};
use crate::sort::SortChoice;
use crate::token::CursorCodec;

/// A Relay connection of `T`: `edges` (each a token `cursor` and a `node`), `nodes` (the
/// edges' nodes without their cursors, as GitHub's connections have), `pageInfo`
/// (`hasNextPage`, `hasPreviousPage`, `startCursor`, `endCursor`: the first and last edges'
/// cursors) and the fields `F`: `totalCount` by default ([`connection`]), none for a
/// connection that does not offer a count ([`UncountedConnection`],
/// [`uncounted_connection`]): a schema shows `totalCount` only where it can be asked for.
/// Named after the node's GraphQL type: a node type `Event` gives `EventConnection` and
/// `EventEdge`.
pub type RelayConnection<T, F = TotalCount> =
    Connection<String, T, F, EmptyFields, DefaultConnectionName, DefaultEdgeName, EnableNodesField>;

/// A [`RelayConnection`] without `totalCount`, for a list whose count the server does not
/// offer (a count reads every row): [`uncounted_connection`].
pub type UncountedConnection<T> = RelayConnection<T, EmptyFields>;

/// The connection's `totalCount: Int`: the page's total count when it was read
/// [`with_total_count`](crate::Paginated::with_total_count), `null` otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, SimpleObject)]
pub struct TotalCount {
    /// Rows of the query without the page.
    pub total_count: Option<i64>,
}

/// Relay's connection arguments as a resolver receives them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RelayArgs {
    /// Rows after `after` (or from the start), reading forward.
    pub first: Option<i32>,
    /// An edge's cursor: the page starts after it.
    pub after: Option<String>,
    /// Rows before `before` (or up to the end), reading backward.
    pub last: Option<i32>,
    /// An edge's cursor: the page ends before it.
    pub before: Option<String>,
}

/// Checked [`RelayArgs`]: where to read, which way, how far, how many.
#[derive(Debug, Clone, PartialEq)]
pub struct RelayRequest<K: Keyset> {
    /// `Forward` for `first` (or neither), `Backward` for `last`.
    pub walk: Direction,
    /// The key to read from: `after` walking forward, `before` walking backward.
    pub cursor: Option<K::Key>,
    /// The window's far end: `before` walking forward, `after` walking backward.
    pub until: Option<Cursor<K>>,
    /// `first` or `last`, else the policy's default.
    pub page_size: u32,
    /// `first: 0` or `last: 0`: no edges, only `pageInfo` and `totalCount`
    /// ([`Paginated::flags_only`]).
    pub flags_only: bool,
}

impl RelayArgs {
    /// The sort of the request, for a model with named sorts (`S` is its generated
    /// `<Model>Sort`; `#[keyset(graphql_sort)]` makes it a GraphQL enum argument): the one it
    /// names (`requested`), which `after` and `before` must have been made in; with no sort
    /// named, their tokens' sort, so a client that pages on without the argument stays in its
    /// sort; with neither, `default`. Then [`resolve`](Self::resolve) the page for that sort's
    /// row type. As [`PageParams::resolve_sort`](super::PageParams::resolve_sort) for REST.
    ///
    /// ```
    /// # include!("../../doctest_setup.rs");
    /// use keyset_diesel::token::SecretKey;
    /// use keyset_diesel::web::graphql::RelayArgs;
    /// use keyset_diesel::{Cursor, CursorCodec};
    ///
    /// #[derive(Queryable, Selectable, Keyset)]
    /// #[diesel(table_name = events)]
    /// #[keyset(sort(Oldest(occurred_at(asc), event_id(asc)), Latest(occurred_at(desc), event_id(desc))))]
    /// struct Post {
    ///     #[keyset(asc, unique)]
    ///     event_id: String,
    ///     occurred_at: chrono::NaiveDateTime,
    /// }
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let codec = CursorCodec::builder()
    ///     .signing_key(SecretKey::new(1, b"a 32+ byte secret from your secret store")?)
    ///     .build()?;
    /// let at = chrono::NaiveDate::from_ymd_opt(2026, 1, 2).unwrap().and_hms_opt(3, 4, 5).unwrap();
    /// let token = codec.encode(&Cursor::<PostByLatest>::after((at, "e9".into())), &"W9")?;
    /// let args = RelayArgs { first: Some(2), after: Some(token), ..RelayArgs::default() };
    /// // No sort named: the token's.
    /// assert_eq!(args.resolve_sort(None, PostSort::Oldest, &codec, &"W9").map_err(|e| e.message)?, PostSort::Latest);
    /// // Another sort than the token's: the REST problem's code.
    /// let error = args.resolve_sort(Some(PostSort::Oldest), PostSort::Oldest, &codec, &"W9").unwrap_err();
    /// assert_eq!(error.extensions.unwrap().get("code"), Some(&"sort_mismatch".into()));
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// A GraphQL error with the REST problem's code: `sort_mismatch` (and
    /// `extensions.restartFromFirstPage: true`, both sort names in `extensions.detail`) when
    /// a token was made in another sort than the one named, or than the other token;
    /// `cursor_invalid` / `cursor_expired` for a refused token.
    pub fn resolve_sort<S: SortChoice>(
        &self,
        requested: Option<S>,
        default: S,
        codec: &CursorCodec,
        scope: &(impl Serialize + ?Sized),
    ) -> Result<S, async_graphql::Error> {
        let tokens = self
            .after
            .as_deref()
            .into_iter()
            .chain(self.before.as_deref());
        sort_of_tokens(tokens, requested, default, codec, scope)
            .map_err(|e| error(&Problem::from(&e)))
    }

    /// Checks the arguments: each cursor with `codec` for keyset `K` and `scope`, the count
    /// with `policy` (a count over the maximum is refused or clamped, as the policy says).
    /// `after` with `before` reads the window between them.
    ///
    /// # Errors
    /// A GraphQL error with the message and `extensions.code` of the REST [`Problem`], the
    /// tokens checked first: `cursor_invalid` / `cursor_expired` for a refused cursor (also
    /// `extensions.restartFromFirstPage: true`); `query_invalid` for both `first` and `last`;
    /// `page_size_invalid` for a negative count, or one over a rejecting policy's maximum. No
    /// message carries the token. A count of 0 asks for no edges: the connection then has
    /// exact `pageInfo` flags (`hasNextPage` for `first: 0`, `hasPreviousPage` for `last: 0`:
    /// whether a row lies past the cursor) and `totalCount`, read with one row
    /// ([`Paginated::flags_only`]).
    pub fn resolve<K: Keyset>(
        &self,
        codec: &CursorCodec,
        scope: &(impl Serialize + ?Sized),
        policy: &PageSizePolicy,
    ) -> Result<RelayRequest<K>, async_graphql::Error> {
        // The tokens first, as `PageParams::resolve` does: a refused token restarts the
        // client whatever else is wrong with the request.
        let key = |token: &Option<String>| {
            token
                .as_deref()
                .map(|token| codec.decode::<K>(token, scope).map(|c| c.key))
                .transpose()
                .map_err(|e| error(&Problem::from(&e)))
        };
        let (after, before) = (key(&self.after)?, key(&self.before)?);
        let (walk, count) = match (self.first, self.last) {
            (Some(_), Some(_)) => {
                // GraphQL's words (the arguments), not REST's (the query string).
                let problem = Problem::new(400, "query_invalid", "invalid connection arguments")
                    .with_detail("give `first` or `last`, not both");
                return Err(error(&problem));
            }
            (first, None) => (Direction::Forward, first),
            (None, last) => (Direction::Backward, last),
        };
        let flags_only = count == Some(0);
        let page_size = match flags_only {
            true => 1,
            false => policy
                .resolve_number(count.map(i64::from))
                .map_err(|e| error(&Problem::from(&e)))?,
        };
        let (cursor, until) = match walk {
            Direction::Forward => (after, before.map(Cursor::before)),
            Direction::Backward => (before, after.map(Cursor::after)),
        };
        Ok(RelayRequest {
            walk,
            cursor,
            until,
            page_size,
            flags_only,
        })
    }
}

impl<K: Keyset> RelayRequest<K> {
    /// Attaches the request to `query` (blocking [`PaginateDsl`]): `paginate_after` or
    /// `paginate_before` its cursor, `until` its far end, its page size. Add any other
    /// option ([`with_total_count`](crate::Paginated::with_total_count) for `totalCount`)
    /// before `load_page`.
    pub fn paginate<Q: PaginateDsl>(self, query: Q) -> Paginated<Q, K> {
        self.attach(query)
    }

    /// [`RelayRequest::paginate`] for a diesel-async connection (the
    /// [`async_::PaginateDsl`](crate::async_::PaginateDsl) mode): `.load_page(conn).await`.
    #[cfg(feature = "diesel-async")]
    pub fn paginate_async<Q: crate::paginate::async_::PaginateDsl>(
        self,
        query: Q,
    ) -> Paginated<Q, K, crate::paginate::async_::Async> {
        self.attach(query)
    }

    /// The request on `query`, in either mode.
    fn attach<Q, M>(self, query: Q) -> Paginated<Q, K, M> {
        let cursor = self.cursor.map(|key| Cursor {
            key,
            direction: self.walk,
        });
        let paginated = Paginated::new(query, cursor, self.walk)
            .until(self.until)
            .page_size(self.page_size);
        match self.flags_only {
            true => paginated.flags_only(),
            false => paginated,
        }
    }
}

/// The Relay connection of `page`: one edge per item, its cursor a token after that item
/// (bound to `scope`, recording the page size), its node `map(item)`; the page's exact flags
/// (see [`Page`]); its total count when read.
///
/// # Errors
/// A GraphQL error `internal_error` when a token cannot be encoded
/// ([`EncodeError`](crate::token::EncodeError)).
pub fn connection<K: Keyset, T: OutputType>(
    page: Page<K>,
    codec: &CursorCodec,
    scope: &(impl Serialize + ?Sized),
    map: impl FnMut(K) -> T,
) -> Result<RelayConnection<T>, async_graphql::Error> {
    let fields = TotalCount {
        total_count: page.total_count,
    };
    relay(page, codec, scope, map, fields)
}

/// [`connection`] without `totalCount`: the connection of a list that does not offer a count.
///
/// # Errors
/// As [`connection`].
pub fn uncounted_connection<K: Keyset, T: OutputType>(
    page: Page<K>,
    codec: &CursorCodec,
    scope: &(impl Serialize + ?Sized),
    map: impl FnMut(K) -> T,
) -> Result<UncountedConnection<T>, async_graphql::Error> {
    relay(page, codec, scope, map, EmptyFields)
}

/// The connection of `page` with the connection fields `fields`.
fn relay<K: Keyset, T: OutputType, F: ObjectType>(
    page: Page<K>,
    codec: &CursorCodec,
    scope: &(impl Serialize + ?Sized),
    mut map: impl FnMut(K) -> T,
    fields: F,
) -> Result<RelayConnection<T, F>, async_graphql::Error> {
    let mut connection =
        RelayConnection::with_additional_fields(page.has_previous_page, page.has_next_page, fields);
    for row in page.items {
        let token = codec
            .encode_with_page_size(&Cursor::after_row(&row), page.page_size, scope)
            .map_err(|e| error(&Problem::from(&e)))?;
        connection.edges.push(Edge::new(token, map(row)));
    }
    Ok(connection)
}

/// The GraphQL error of `problem`: its title as the message, `extensions.code` its code,
/// `extensions.status` its HTTP status, `extensions.detail` its detail when it has one (a page
/// size's limits, which arguments clash; never a token), and
/// `extensions.restartFromFirstPage` when set.
pub fn error(problem: &Problem) -> async_graphql::Error {
    let restart = problem.restart_from_first_page;
    async_graphql::Error::new(problem.title.clone()).extend_with(|_, e| {
        e.set("code", problem.code.clone());
        e.set("status", i32::from(problem.status));
        if let Some(detail) = &problem.detail {
            e.set("detail", detail.clone());
        }
        if restart {
            e.set("restartFromFirstPage", true);
        }
    })
}
