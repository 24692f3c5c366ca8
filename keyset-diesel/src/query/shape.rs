//! The one decision of a page: from its options, its backend and its cursor to the statement
//! it runs ([`PageQuery`]) and how its rows become a page ([`Assembly`]).

use std::sync::Arc;

use super::measure::{SizeColumn, SizeProbe};
use super::seek::{keyset_dialect, FarBound, KeysetOrder, SeekPredicate};
use super::source::PageSource;
use super::statement::PageStatement;
use super::union::UnionPage;
use super::PageQuery;
use crate::backend::KeysetBackend;
use crate::cursor::Direction;
use crate::error::KeysetError;
use crate::key::KeyTuple;
use crate::keyset::{column_name, Keyset};
use crate::paginate::{ByteBudget, IndexHint, Paginated};

/// How the rows a page statement loads become a page (`load/assemble.rs`).
pub(crate) struct Assembly<K: Keyset> {
    pub walk: Direction,
    pub page_size: u32,
    /// The request's cursor: the page check compares the first row with it, and the flag of
    /// the other side is "there was a cursor" unless probed.
    pub cursor: Option<K::Key>,
    /// The union carries a probe of the other side (exact flags).
    pub probed: bool,
    /// The byte budget, if any ([`Paginated::max_bytes`]).
    pub budget: Option<ByteBudget<K>>,
    /// The rows carry the total count ([`Paginated::with_total_count`]).
    pub total: bool,
}

/// The page statement of `paginated` on backend `DB`, and how its rows become a page: the
/// first page or one statement after the cursor (direct or deferred join), or a union of the
/// seek's arms, the probe of the other side and the count row.
///
/// # Errors
/// [`KeysetError::InvalidPageSize`] for a page size of 0, the query's own refusals
/// ([`PageSource::check_clauses`]), [`KeysetError::InvalidCursorKey`] for a cursor or window
/// end that cannot be bound.
pub(crate) fn shape<DB, Q, K, M>(
    paginated: Paginated<Q, K, M>,
) -> Result<(PageQuery<Q, K>, Assembly<K>), KeysetError>
where
    DB: KeysetBackend,
    Q: PageSource<K>,
    K: Keyset,
{
    let Paginated {
        mode: _,
        query,
        cursor,
        until,
        walk,
        page_size,
        exact,
        deferred,
        per_level,
        expanded,
        budget,
        total,
        index,
    } = paginated;
    if page_size == 0 {
        return Err(KeysetError::InvalidPageSize(0));
    }
    query.check_clauses()?;
    for key in until.as_ref().map(|u| &u.key).into_iter().chain(&cursor) {
        check_bound::<DB, K>(key)?;
    }
    let index = resolve_index(&query, index);
    let deferred = deferred.unwrap_or(DB::DEFERRED_JOIN && index.is_none());
    let mut dialect = keyset_dialect::<DB, K>();
    dialect.row_values &= !expanded;
    dialect.negated_ties &= !expanded;
    // u32 + 1 always fits in i64.
    let limit = i64::from(page_size) + 1;
    let order = KeysetOrder::new(walk);
    let until = until.map(|end| FarBound::new(end.key, walk, end.inclusive, dialect));
    let probed = exact && cursor.is_some();
    let assembly = Assembly {
        walk,
        page_size,
        cursor: cursor.clone(),
        probed,
        budget,
        total,
    };
    let seek = cursor.map(|key| SeekPredicate::planned(key, walk, dialect, per_level));
    // MySQL: a first page whose placement term would sort every row reads the values and the
    // NULL group as two arms, each in index order.
    let (query, seek) = match seek {
        None => match UnionPage::first_split::<DB>(query, order, deferred, limit, total) {
            Ok(union) => {
                let union = union.until(until).index(index);
                return Ok((PageQuery::Union(union), assembly));
            }
            Err(query) => (query, None),
        },
        seek => (query, seek),
    };
    let query = match seek {
        // A later page with the total count is a union: its count row carries the count even
        // when the page after the cursor is empty.
        Some(seek) if seek.arms() > 1 || probed || total => PageQuery::Union(
            UnionPage::new(query, seek, order, probed, deferred, limit, total)
                .until(until)
                .index(index),
        ),
        seek => PageQuery::Statement(PageStatement {
            query,
            deferred: deferred && seek.is_some(),
            // Rows all on one side of the leading column's NULL group: MySQL orders them
            // without the placement term, in the index's order (`KeysetOrder::of_split_arm`).
            order: match seek.as_ref().and_then(SeekPredicate::one_side) {
                Some(null_group) => order.of_split_arm(null_group),
                None => order,
            },
            seek,
            until,
            limit,
            total,
            index,
        }),
    };
    Ok((query, assembly))
}

/// The size probe of `paginated` on backend `DB` (`query/measure.rs`): the page's seek (one
/// condition), window, order, index and `LIMIT page_size + 1` over a copy of its query,
/// selecting the key columns and the sum of `columns`' sizes.
///
/// # Errors
/// As [`shape`]: an invalid page size, the query's own refusals, a cursor or window end that
/// cannot be bound.
pub(crate) fn size_probe<DB, Q, K, M>(
    paginated: &Paginated<Q, K, M>,
    columns: Arc<[SizeColumn]>,
) -> Result<SizeProbe<Q, K>, KeysetError>
where
    DB: KeysetBackend,
    Q: PageSource<K> + Clone,
    K: Keyset,
{
    let p = paginated;
    if p.page_size == 0 {
        return Err(KeysetError::InvalidPageSize(0));
    }
    p.query.check_clauses()?;
    for key in p
        .until
        .as_ref()
        .map(|u| &u.key)
        .into_iter()
        .chain(&p.cursor)
    {
        check_bound::<DB, K>(key)?;
    }
    let mut dialect = keyset_dialect::<DB, K>();
    dialect.row_values &= !p.expanded;
    dialect.negated_ties &= !p.expanded;
    Ok(SizeProbe {
        query: p.query.clone(),
        seek: p
            .cursor
            .clone()
            .map(|key| SeekPredicate::whole(key, p.walk, dialect)),
        until: p
            .until
            .as_ref()
            .map(|end| FarBound::new(end.key.clone(), p.walk, end.inclusive, dialect)),
        order: KeysetOrder::new(p.walk),
        limit: i64::from(p.page_size) + 1,
        index: resolve_index(&p.query, p.index),
        columns,
    })
}

/// The other side of `paginated`'s cursor, key-only (`query/measure.rs`): at most one row at
/// or before the cursor, nearest first; `None` without a cursor. What exact flags read for a
/// budgeted page, instead of the union's probe branch, which reads one whole row.
///
/// # Errors
/// As [`size_probe`].
pub(crate) fn other_side_probe<DB, Q, K, M>(
    paginated: &Paginated<Q, K, M>,
) -> Result<Option<SizeProbe<Q, K>>, KeysetError>
where
    DB: KeysetBackend,
    Q: PageSource<K> + Clone,
    K: Keyset,
{
    let p = paginated;
    let Some(cursor) = p.cursor.clone() else {
        return Ok(None);
    };
    let mut dialect = keyset_dialect::<DB, K>();
    dialect.row_values &= !p.expanded;
    dialect.negated_ties &= !p.expanded;
    Ok(Some(SizeProbe {
        query: p.query.clone(),
        seek: None,
        until: Some(FarBound::new(cursor, p.walk, true, dialect)),
        order: KeysetOrder::new(p.walk.reversed()),
        limit: 1,
        index: resolve_index(&p.query, p.index),
        columns: Arc::from(Vec::new()),
    }))
}

/// The index a page names: the query's default (the keyset's declared one), the forced one,
/// or none.
fn resolve_index<Q: PageSource<K>, K: Keyset>(query: &Q, hint: IndexHint) -> Option<&'static str> {
    match hint {
        IndexHint::Declared => query.default_index(),
        IndexHint::Named(name) => Some(name),
        IndexHint::Off => None,
    }
}

/// A cursor or window end that can be bound on `DB`: no value that is never a key (a NaN),
/// none Diesel would not bind exactly.
fn check_bound<DB: KeysetBackend, K: Keyset>(key: &K::Key) -> Result<(), KeysetError> {
    key.check_key()
        .and_then(|()| key.check_bind(DB::KIND))
        .map_err(|(index, e)| KeysetError::InvalidCursorKey {
            column: column_name::<K>(index),
            reason: e.0,
        })
}

impl<Q, K: Keyset, M> Paginated<Q, K, M> {
    /// The SQL query this page runs on backend `DB` (the deferred-join default depends on the
    /// backend), for `diesel::debug_query` or `EXPLAIN`. It is not itself loadable: use
    /// [`Paginated::load_page`].
    ///
    /// # Errors
    /// [`KeysetError::InvalidPageSize`] for a page size of 0;
    /// [`KeysetError::InvalidCursorKey`] for a cursor (or an [`until`](Paginated::until)
    /// bound) holding a NaN; for a boxed query, [`KeysetError::AlreadyOrdered`] /
    /// [`KeysetError::AlreadyLimited`] when it already has `ORDER BY`, `LIMIT` or `OFFSET`,
    /// [`KeysetError::DistinctOn`] when it has `DISTINCT ON`.
    pub fn into_query<DB: KeysetBackend>(self) -> Result<PageQuery<Q, K>, KeysetError>
    where
        Q: PageSource<K>,
    {
        Ok(shape::<DB, Q, K, M>(self)?.0)
    }

    /// The page's SQL and binds on the backend of connection `conn`, as `diesel::debug_query`
    /// prints them: [`into_query`](Self::into_query) and `debug_query` without spelling the
    /// backend. Runs nothing. On MySQL/MariaDB it also names the index a later page names by
    /// itself ([`KeysetBackend::LEARNS_INDEX`]) once this process has looked the table's
    /// indexes up (the first later page of the table does), so it shows the statement
    /// `load_page` runs; `into_query` never names a learned index.
    ///
    /// ```
    /// # include!("../doctest_setup.rs");
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let conn = &mut setup();
    /// let sql = events::table
    ///     .filter(events::workspace_id.eq("W9"))
    ///     .select(Event::as_select())
    ///     .paginate_after(None::<Cursor<Event>>)
    ///     .page_size(2)
    ///     .debug_sql(conn)?;
    /// assert!(sql.contains("ORDER BY `events`.`occurred_at` ASC, `events`.`event_id` ASC LIMIT +?"), "{sql}");
    /// assert!(sql.ends_with(r#"-- binds: ["W9", 3]"#), "{sql}");
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// As [`into_query`](Self::into_query).
    pub fn debug_sql<C>(self, conn: &C) -> Result<String, KeysetError>
    where
        C: diesel::Connection,
        C::Backend: KeysetBackend + Default,
        <C::Backend as diesel::backend::Backend>::QueryBuilder: Default,
        Q: PageSource<K> + super::SelectParts<C::Backend>,
        PageQuery<Q, K>: diesel::query_builder::QueryFragment<C::Backend>,
    {
        let _ = conn;
        let mut paginated = self;
        crate::load::learn::name_known::<C::Backend, _, _, _>(&mut paginated);
        let query = paginated.into_query::<C::Backend>()?;
        Ok(diesel::debug_query::<C::Backend, _>(&query).to_string())
    }
}
