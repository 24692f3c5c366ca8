//! The page statement: one `SELECT` written from the parts of your query (`SelectParts`),
//! the keyset's `ORDER BY` and `LIMIT page_size + 1`, and, on a later page, the seek
//! predicate ANDed after your filters. Every page shape is written here: the first page, a
//! later page in the direct form or as a deferred join, and each branch of a union page
//! (`crate::query::UnionPage`).
//!
//! ```sql
//! SELECT <your select> FROM <your table> WHERE <your filters> AND (<seek predicate>)
//! ORDER BY <keyset> LIMIT ?
//! ```
//!
//! On SQLite the select list ends with `<classes> AS __keyset_class`, the key columns' storage
//! classes (`typeof`, compared with the classes the key types bind before the page check: the
//! guide's [SQLite storage classes](crate::guide::keys_and_limits#sqlite-storage-classes)).
//!
//! The deferred join runs the seek on the keyset's index alone (a covering, index-only range
//! scan that reads page size + 1 entries), and then fetches the page's rows by their
//! tie-breaker. It is the default on MySQL/MariaDB, where a page whose select list is not
//! covered by the index is otherwise planned as `ref` access on your equality filter with the
//! seek pushed into the index condition, which reads every index entry from the start of your
//! filtered range to the cursor ([MySQL and MariaDB](crate::guide::sql#mysql-and-mariadb)):
//!
//! ```sql
//! SELECT <your select> FROM <your table> WHERE <your filters> AND `t`.`id` IN (
//!     SELECT `__keyset_k`.`__keyset_tb` FROM (
//!         SELECT `t`.`id` AS `__keyset_tb` FROM <your table>
//!         WHERE <your filters> AND (<seek predicate>) ORDER BY <keyset> LIMIT ?
//!     ) AS `__keyset_k`)
//! ORDER BY <keyset> LIMIT ?
//! ```
//!
//! `t.id` is the tie-breaker (the last key column), which is unique and `NOT NULL`; with an
//! index on it (it is usually the primary key) the outer query reads exactly the page's rows.
//! A key that ends with a composite primary key joins on all of its columns:
//! `(t.order_id, t.line_no) IN (SELECT __keyset_k.__keyset_tb0, __keyset_k.__keyset_tb1 ..)`.
//!
//! A `SELECT DISTINCT` query, or one with a locking clause (`FOR UPDATE`, `SKIP LOCKED`), is
//! written directly instead: duplicates would use up the inner `LIMIT`, and the inner query
//! would neither lock nor skip locked rows.

use std::fmt;

use diesel::backend::Backend;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::query_dsl::RunQueryDslSupport;
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, HasSqlType};
use diesel::QueryResult;

use super::seek::{FarBound, KeysetOrder, SeekPredicate};
use super::source::{PageSource, SelectParts};
use super::sql::Part;
use super::text_memo::{self, text_key, write_sql, TextKey};
use crate::backend::{BackendKind, KeysetBackend};
use crate::cursor::Direction;
use crate::key::KeyTuple;
use crate::keyset::{Keyset, KeysetSql};

/// One page's query, for every shape but the union: the first page (no seek predicate), or a
/// later page in the direct form or as a deferred join (see the module docs). Loads the
/// model (on SQLite with its key columns' storage classes: `(row, classes)`,
/// [`KeysetError::StorageClassMismatch`](crate::KeysetError::StorageClassMismatch)). [`crate::Paginated::into_query`] returns it inside [`PageQuery`](crate::query::PageQuery)
/// for `diesel::debug_query`.
pub struct PageStatement<Q, K: Keyset> {
    pub(crate) query: Q,
    pub(crate) seek: Option<SeekPredicate<K>>,
    /// The window's far end ([`crate::Paginated::until`]), if any.
    pub(crate) until: Option<FarBound<K>>,
    pub(crate) order: KeysetOrder<K>,
    /// `LIMIT`: page size + 1.
    pub(crate) limit: i64,
    /// As a deferred join, when there is a seek.
    pub(crate) deferred: bool,
    /// Also select the total count ([`crate::Paginated::with_total_count`]).
    pub(crate) total: bool,
    /// The index the seek must read ([`crate::Paginated::force_index`]).
    pub(crate) index: Option<&'static str>,
    /// Also select the key columns' storage classes (`__keyset_class`): on SQLite
    /// ([`KeysetBackend::STORAGE_CLASSES`]), where the statement loads typed with that column
    /// (`query/typing.rs`).
    pub(crate) classes: bool,
}

/// The page shapes whose SQL text the types `(Q, K, backend)` fix: what
/// [`PageStatement::static_shape`] finds, and the shape part of a static query id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum StaticShape {
    /// The first page forward: `ORDER BY <keyset> LIMIT ?`.
    FirstForward,
    /// The first page backward: `ORDER BY <reversed keyset> LIMIT ?`.
    FirstBackward,
    /// A later page forward: the seek after the cursor.
    AfterForward,
    /// A later page backward: the seek before the cursor.
    AfterBackward,
    /// A later page forward whose seek splits the leading column's values from its NULL group
    /// (a union of two arms, [`UnionPage::static_shape`](super::UnionPage::static_shape)).
    SplitForward,
    /// The same, backward.
    SplitBackward,
}

impl<Q, K: Keyset> PageStatement<Q, K> {
    /// The shape whose SQL text this statement's types fix on `DB`, if its text is that one:
    /// then Diesel may cache it by type ([`TypeKeyed`](super::typing::TypeKeyed)) instead of
    /// by its text. That is its [`text_shape`](Self::text_shape) when its limit is a bind, not
    /// a number in the text ([`limit_is_text`]), and it reads the index and (on a later page)
    /// takes the deferred join the keyset and backend choose by default.
    pub(crate) fn static_shape<DB: KeysetBackend>(&self) -> Option<StaticShape>
    where
        Q: PageSource<K>,
    {
        let default_index = self.query.default_index();
        let default_deferred = DB::DEFERRED_JOIN && default_index.is_none();
        self.text_shape::<DB>().filter(|_| {
            !limit_is_text::<DB>(self.limit)
                && self.index == default_index
                && (self.seek.is_none() || self.deferred == default_deferred)
        })
    }

    /// The shape whose SQL text this statement's types fix on `DB`, given its limit, index and
    /// deferred join, if its text is that one. Decided from every field the writer reads (named
    /// here one by one, so a field added later must be decided here too): no far bound, no
    /// total count, and a seek (if any) in its default text ([`SeekPredicate::text_is_fixed`]).
    /// The text is then fixed by `(the query's static id, the keyset, the shape, the limit
    /// where it is a number, the index, the deferred join)` (`query/text_memo.rs`); with the
    /// limit a bind and the default index and join it is the static shape.
    pub(crate) fn text_shape<DB: KeysetBackend>(&self) -> Option<StaticShape> {
        let PageStatement {
            query: _,
            seek,
            until,
            order,
            limit: _,
            deferred: _,
            total,
            index: _,
            classes: _,
        } = self;
        let fixed =
            until.is_none() && !*total && seek.as_ref().is_none_or(|s| s.text_is_fixed::<DB>());
        fixed.then_some(match (seek.is_some(), order.walk()) {
            (false, Direction::Forward) => StaticShape::FirstForward,
            (false, Direction::Backward) => StaticShape::FirstBackward,
            (true, Direction::Forward) => StaticShape::AfterForward,
            (true, Direction::Backward) => StaticShape::AfterBackward,
        })
    }
}

impl<Q: fmt::Debug, K: Keyset> fmt::Debug for PageStatement<Q, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PageStatement")
            .field("query", &self.query)
            .field("seek", &self.seek)
            .field("until", &self.until)
            .field("order", &self.order)
            .field("limit", &self.limit)
            .field("deferred", &self.deferred)
            .field("total", &self.total)
            .field("index", &self.index)
            .field("classes", &self.classes)
            .finish()
    }
}

impl<Q, K: Keyset> QueryId for PageStatement<Q, K> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

/// Your select list: its rows load as your model. (On SQLite the statement also selects the
/// key columns' storage classes after it, and the page loads it typed with that column.)
impl<Q: Query, K: Keyset> Query for PageStatement<Q, K> {
    type SqlType = Q::SqlType;
}

impl<Q, K: Keyset> RunQueryDslSupport for PageStatement<Q, K> {}

impl<Q: PageSource<K> + QueryId, K: Keyset + 'static> PageStatement<Q, K> {
    /// The key of this statement's kept text on `DB` (`query/text_memo.rs`), where its types,
    /// limit, index and deferred join fix it.
    fn memo_key<DB: KeysetBackend + 'static>(&self) -> Option<TextKey> {
        text_key::<DB, Q, K>(
            self.text_shape::<DB>().map(|shape| shape as u8),
            self.limit,
            limit_is_text::<DB>(self.limit),
            self.index,
            self.deferred && self.seek.is_some(),
        )
    }
}

impl<Q, K, DB> QueryFragment<DB> for PageStatement<Q, K>
where
    DB: KeysetBackend + HasSqlType<BigInt> + 'static,
    DB::QueryBuilder: Default,
    i64: ToSql<BigInt, DB>,
    Q: SelectParts<DB> + PageSource<K> + QueryId,
    K: KeysetSql<DB> + 'static,
{
    /// The statement's SQL, kept once per thread where its types, limit, index and deferred
    /// join fix it (`query/text_memo.rs`).
    fn to_sql(&self, out: &mut DB::QueryBuilder, backend: &DB) -> QueryResult<()> {
        write_sql(self.memo_key::<DB>(), self, out, backend)
    }

    /// Kept with the text (`query/text_memo.rs`).
    fn count_binds(&self, backend: &DB) -> QueryResult<usize> {
        text_memo::count_binds(self.memo_key::<DB>(), self, backend)
    }

    /// Kept with the text (`query/text_memo.rs`).
    fn is_safe_to_cache_prepared(&self, backend: &DB) -> QueryResult<bool> {
        text_memo::is_safe_to_cache_prepared(self.memo_key::<DB>(), self, backend)
    }

    fn walk_ast<'b>(&'b self, out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        walk_statement(
            Statement {
                query: &self.query,
                seek: self.seek.as_ref().map(|seek| Arm::Seek(seek, Part::Arm(0))),
                until: self.until.as_ref(),
                order: &self.order,
                limit: Some(&self.limit),
                deferred: self.deferred,
                index: self.index,
                kind: None,
                classes: self.classes,
                total: if self.total {
                    Total::Count
                } else {
                    Total::None
                },
            },
            out,
        )
    }
}

/// The rows a statement keeps besides your filters.
pub(crate) enum Arm<'b, K: Keyset> {
    /// A part of the seek predicate after a cursor.
    Seek(&'b SeekPredicate<K>, Part),
    /// One side of the leading column's NULL group, on a first page split around it
    /// (`UnionPage::first_split`): the group (`col IS NULL`, `true`) or the values.
    NullGroup(bool),
}

/// One page statement, written from the parts of the caller's query.
pub(crate) struct Statement<'b, Q, K: Keyset> {
    pub query: &'b Q,
    /// The seek predicate and the part of it to write (or a first page's side of the NULL
    /// group); `None` on a first page.
    pub seek: Option<Arm<'b, K>>,
    /// The window's far end, written next to the seek (`AND (<until>)`); `None` for none
    /// (and for the probe and count branches, which it does not bound).
    pub until: Option<&'b FarBound<K>>,
    pub order: &'b KeysetOrder<K>,
    /// `LIMIT` (page size + 1, or 1 for a probe); `None` for a member of an SQLite compound
    /// that the compound orders and limits as a whole (`UnionPage`): no `ORDER BY` and no
    /// `LIMIT` of its own.
    pub limit: Option<&'b i64>,
    /// As a deferred join (when there is a seek, unless the query is `DISTINCT` or locks
    /// rows).
    pub deferred: bool,
    /// The index the seek must read: written after the `FROM` that carries the seek (the
    /// inner one of a deferred join).
    pub index: Option<&'static str>,
    /// For a union branch: also select every key column as `__keyset_k<i>`, and this
    /// [`RowKind`] as `__keyset_kind`.
    pub kind: Option<RowKind>,
    /// Also select the key columns' storage classes, `__keyset_class` ([`walk_classes`]):
    /// every union branch, and a page statement on SQLite.
    pub classes: bool,
    /// The total count column `__keyset_total`, last in the select list, if any.
    pub total: Total,
}

/// What a statement selects as its last column, `__keyset_total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Total {
    /// Nothing: no total count was asked for.
    None,
    /// The total count ([`walk_count`] as a scalar subquery).
    Count,
    /// `0`: a union branch whose rows do not carry the count (the union's count row does).
    Zero,
}

/// `SELECT <list> [, keys, kind], classes [, total] FROM .. WHERE <filters> AND (<seek>) .. ORDER BY .. LIMIT ?`,
/// or its deferred-join form (see the module docs).
pub(crate) fn walk_statement<'b, Q, K, DB>(
    s: Statement<'b, Q, K>,
    mut out: AstPass<'_, 'b, DB>,
) -> QueryResult<()>
where
    DB: KeysetBackend + HasSqlType<BigInt>,
    i64: ToSql<BigInt, DB>,
    Q: SelectParts<DB>,
    K: KeysetSql<DB>,
{
    let q = s.query;
    // The key columns that name one row (the tie-breaker; every column of a composite
    // primary key): the deferred join fetches the page's rows by them.
    let tie_breaker = K::COLUMNS
        .len()
        .saturating_sub(K::TIE_BREAKER_COLUMNS.max(1))..K::COLUMNS.len();
    out.push_sql("SELECT ");
    q.walk_select_list(out.reborrow())?;
    if let Some(kind) = s.kind {
        for i in 0..K::COLUMNS.len() {
            out.push_sql(", ");
            K::walk_column(i, out.reborrow())?;
            out.push_sql(" AS ");
            out.push_identifier(&key_alias(i))?;
        }
        out.push_sql(", ");
        out.push_sql(&(kind as i32).to_string());
        out.push_sql(" AS ");
        out.push_identifier(KIND_ALIAS)?;
    }
    if s.classes {
        walk_classes::<DB, K>(out.reborrow())?;
    }
    match s.total {
        Total::None => {}
        Total::Zero => out.push_sql(", 0"),
        Total::Count => {
            out.push_sql(", (");
            walk_count(q, out.reborrow())?;
            out.push_sql(")");
        }
    }
    if s.total != Total::None {
        out.push_sql(" AS ");
        out.push_identifier(TOTAL_ALIAS)?;
    }
    let deferred = s.seek.is_some() && s.deferred && !q.distinct_or_locking(out.backend())?;
    q.walk_from(out.reborrow())?;
    if !deferred {
        walk_index_hint(s.index, out.reborrow())?;
    }
    q.walk_where(out.reborrow())?;
    if s.seek.is_some() || s.until.is_some() {
        let and_or_where = if q.has_where(out.backend())? {
            " AND "
        } else {
            " WHERE "
        };
        out.push_sql(and_or_where);
        if deferred {
            walk_tie_breaker::<DB, K>(tie_breaker.clone(), None, out.reborrow())?;
            out.push_sql(" IN (SELECT ");
            walk_tie_breaker::<DB, K>(tie_breaker.clone(), Some(false), out.reborrow())?;
            out.push_sql(" FROM (SELECT ");
            walk_tie_breaker::<DB, K>(tie_breaker, Some(true), out.reborrow())?;
            q.walk_from(out.reborrow())?;
            walk_index_hint(s.index, out.reborrow())?;
            q.walk_where(out.reborrow())?;
            out.push_sql(and_or_where);
        }
        out.push_sql("(");
        if let Some(arm) = s.seek {
            match arm {
                Arm::Seek(seek, part) => seek.walk_part(part, out.reborrow())?,
                Arm::NullGroup(null) => {
                    K::walk_column(0, out.reborrow())?;
                    out.push_sql(if null { " IS NULL" } else { " IS NOT NULL" });
                }
            }
            if s.until.is_some() {
                out.push_sql(") AND (");
            }
        }
        if let Some(until) = s.until {
            until.walk_bound(out.reborrow())?;
        }
        out.push_sql(")");
    }
    // ` GROUP BY .. ORDER BY <keyset> LIMIT ?`: of the seek, and again of the outer query.
    let tail = |mut out: AstPass<'_, 'b, DB>| -> QueryResult<()> {
        q.walk_group(out.reborrow())?;
        let Some(limit) = s.limit else { return Ok(()) };
        out.push_sql(" ORDER BY ");
        s.order.walk_ast(out.reborrow())?;
        walk_limit(limit, out)
    };
    tail(out.reborrow())?;
    if deferred {
        out.push_sql(") AS ");
        out.push_identifier("__keyset_k")?;
        out.push_sql(")");
        tail(out.reborrow())?;
    }
    q.walk_locking(out)
}

/// The largest `LIMIT` (page size + 1) PostgreSQL gets as a number in the SQL text
/// ([`limit_is_text`]): page sizes up to 100.
pub(crate) const MAX_LIMIT_IN_TEXT: i64 = 101;

/// Whether a page's `LIMIT` is written as a number in its SQL text rather than bound: on
/// PostgreSQL, for a limit up to [`MAX_LIMIT_IN_TEXT`].
///
/// PostgreSQL plans a prepared statement for the values bound at each execution (a custom
/// plan) and keeps one plan for every value (a generic plan) only when that plan's estimated
/// cost is close to the custom plans' (after five executions). It cannot estimate an unknown
/// `LIMIT $n` and assumes a tenth of the rows, so a page whose limit was bound was planned again
/// at every execution: measured on the benchmark's table, 0 generic and 40 custom plans in 40
/// pages, planning 0.067 ms against 0.037 ms of execution; with `LIMIT 21` in the text, 35
/// generic plans of 40 and planning 0.007 ms ([a page planned
/// once](crate::guide::sql#postgresql-a-page-planned-once)).
/// A limit in the text makes the page size part of the statement Diesel caches (one prepared
/// statement per page size and shape on a connection, which Diesel finds by its SQL text), so
/// only page sizes up to 100 are written so; larger pages, whose rows cost more than the
/// planning, keep the bind (and their type key, [`PageStatement::static_shape`]).
pub(crate) fn limit_is_text<DB: KeysetBackend>(limit: i64) -> bool {
    DB::KIND == BackendKind::Postgres && limit <= MAX_LIMIT_IN_TEXT
}

/// ` LIMIT ?` with `limit` bound, written ` LIMIT +?` on SQLite, whose planner reads the value
/// bound to a bare `LIMIT ?` and so plans a cached statement again at every execution
/// ([prepared statements](crate::guide::sql#prepared-statements-which-pages-diesel-finds-by-type)); ` LIMIT <limit>` as a number where
/// [`limit_is_text`].
pub(crate) fn walk_limit<'b, DB>(limit: &'b i64, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()>
where
    DB: KeysetBackend + HasSqlType<BigInt>,
    i64: ToSql<BigInt, DB>,
{
    if limit_is_text::<DB>(*limit) {
        // Every pass over the statement writes this (Diesel walks a cached page two or three
        // times per load to collect its binds and cache flags): no `format!` allocation.
        out.push_sql(" LIMIT ");
        out.push_sql(itoa::Buffer::new().format(*limit));
        return Ok(());
    }
    out.push_sql(match DB::KIND {
        BackendKind::Sqlite => " LIMIT +",
        BackendKind::Postgres | BackendKind::Mysql => " LIMIT ",
    });
    out.push_bind_param::<BigInt, i64>(limit)
}

/// The index hint after a `FROM` clause of one table, the name quoted as an identifier:
/// MySQL/MariaDB `FORCE INDEX (<index>)`, SQLite `INDEXED BY <index>`; nothing on
/// PostgreSQL, which has no index hints.
pub(crate) fn walk_index_hint<DB: KeysetBackend>(
    index: Option<&'static str>,
    mut out: AstPass<'_, '_, DB>,
) -> QueryResult<()> {
    let Some(index) = index else { return Ok(()) };
    match DB::KIND {
        BackendKind::Mysql => {
            out.push_sql(" FORCE INDEX (");
            out.push_identifier(index)?;
            out.push_sql(")");
        }
        BackendKind::Sqlite => {
            out.push_sql(" INDEXED BY ");
            out.push_identifier(index)?;
        }
        BackendKind::Postgres => {}
    }
    Ok(())
}

/// `SELECT COUNT(*) FROM (SELECT 1 FROM <your from> WHERE <your filters> GROUP BY ..
/// HAVING ..) AS __keyset_count`: the rows of your query without the seek, `ORDER BY` and
/// `LIMIT` (one per group with `GROUP BY`). A `SELECT DISTINCT` query counts its distinct
/// rows: the subquery keeps its `DISTINCT` select list instead of `1`.
pub(crate) fn walk_count<'b, Q, DB>(q: &'b Q, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()>
where
    DB: Backend,
    Q: SelectParts<DB>,
{
    out.push_sql("SELECT COUNT(*) FROM (SELECT ");
    if q.is_distinct(out.backend())? {
        q.walk_select_list(out.reborrow())?;
    } else {
        out.push_sql("1");
    }
    q.walk_from(out.reborrow())?;
    q.walk_where(out.reborrow())?;
    q.walk_group(out.reborrow())?;
    out.push_sql(") AS ");
    out.push_identifier("__keyset_count")
}

/// What a union branch's row is, in its `__keyset_kind` column: the discriminant is the
/// value written and the value read back ([`RowKind::of`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub(crate) enum RowKind {
    /// A row of the page (any arm of the seek).
    Page = 0,
    /// The probe row of the other side.
    Probe = 1,
    /// The count row: the first row of your query (no seek), carrying the total count, so
    /// that the count arrives even when the page itself is empty.
    Count = 2,
}

impl RowKind {
    /// The kind whose value is `value` (as written by [`walk_statement`]); `None` for another.
    pub(crate) fn of(value: i32) -> Option<RowKind> {
        [RowKind::Page, RowKind::Probe, RowKind::Count]
            .into_iter()
            .find(|kind| *kind as i32 == value)
    }
}

/// `__keyset_k<i>`: key column `i` in a union branch's select list. Written at every pass
/// over a union (two or three per load), so the first eight are not formatted.
pub(crate) fn key_alias(i: usize) -> std::borrow::Cow<'static, str> {
    const ALIASES: [&str; 8] = [
        "__keyset_k0",
        "__keyset_k1",
        "__keyset_k2",
        "__keyset_k3",
        "__keyset_k4",
        "__keyset_k5",
        "__keyset_k6",
        "__keyset_k7",
    ];
    match ALIASES.get(i) {
        Some(alias) => std::borrow::Cow::Borrowed(alias),
        None => std::borrow::Cow::Owned(format!("__keyset_k{i}")),
    }
}

/// The union branch's row kind column ([`RowKind`]).
pub(crate) const KIND_ALIAS: &str = "__keyset_kind";

/// The total count column.
pub(crate) const TOTAL_ALIAS: &str = "__keyset_total";

/// The key columns' storage classes column ([`walk_classes`]).
pub(crate) const CLASS_ALIAS: &str = "__keyset_class";

/// How many key columns [`walk_classes`] reads the storage class of: three bits each in an
/// `INTEGER` (`i32`).
pub(crate) const CLASS_COLUMNS: usize = 10;

/// `, <classes> AS __keyset_class`, after a page statement's select list (and a union branch's
/// key columns and kind): on SQLite the storage class of each of the first [`CLASS_COLUMNS`]
/// key columns, column `i` in bits `3i..3i+3`: its class (1 NULL, 2 INTEGER or REAL, 3 TEXT,
/// 4 BLOB), or 0 for a value of another class that the column's affinity compares equal to
/// the key's bind (a number in a `STRING` column read by a `String` key, text in a `TEXT`
/// column read by an integer key),
/// which the load compares with the class each key type binds
/// ([`KeysetError::StorageClassMismatch`](crate::KeysetError::StorageClassMismatch),
/// `load/classes.rs`); `0` on PostgreSQL and MySQL (union branches only), whose columns hold
/// one type. INTEGER and
/// REAL share a code: SQLite orders and compares them together, and a `DISTINCT` query's
/// rows stay the ones it selects.
fn walk_classes<DB, K>(mut out: AstPass<'_, '_, DB>) -> QueryResult<()>
where
    DB: KeysetBackend,
    K: KeysetSql<DB>,
{
    out.push_sql(", ");
    match DB::KIND {
        BackendKind::Sqlite => walk_class_codes::<DB, K>(out.reborrow())?,
        BackendKind::Postgres | BackendKind::Mysql => out.push_sql("0"),
    }
    out.push_sql(" AS ");
    out.push_identifier(CLASS_ALIAS)
}

/// The SQLite expression of [`walk_classes`]: the key columns' class codes, three bits each.
pub(crate) fn walk_class_codes<DB, K>(mut out: AstPass<'_, '_, DB>) -> QueryResult<()>
where
    DB: KeysetBackend,
    K: KeysetSql<DB>,
{
    use crate::key::class::{binds_text, bound_class, text_read_as};
    out.push_sql("(");
    for i in 0..K::COLUMNS.len().min(CLASS_COLUMNS) {
        if i > 0 {
            out.push_sql(" + ");
        }
        let tag = <K::Key as KeyTuple>::type_tag(i);
        if bound_class(&tag).is_none() {
            // A key value type this crate does not know the binding of: not compared.
            out.push_sql("0");
            continue;
        }
        // One `CASE typeof(..)` per value, its class as the code (the form measured cheapest;
        // comparisons with '' and x'' instead cost more); a value the column's affinity
        // compares equal to the key's bind is asked about only when its class differs.
        out.push_sql("(CASE typeof(");
        K::walk_column(i, out.reborrow())?;
        out.push_sql(") WHEN 'null' THEN 1 WHEN 'text' THEN ");
        if let Some(cast) = text_read_as(&tag) {
            // Text that a `TEXT` column's affinity compares equal to the number the key binds
            // (`'10'` under an integer key, bound as 10 and converted back to `'10'`; `'10.0'`
            // under an `f64` key, bound as 10.0).
            out.push_sql("(CASE WHEN ");
            K::walk_column(i, out.reborrow())?;
            out.push_sql(" = (CAST(");
            K::walk_column(i, out.reborrow())?;
            out.push_sql(cast);
            out.push_sql(") + 0) THEN 0 ELSE 3 END)");
        } else {
            out.push_sql("3");
        }
        out.push_sql(" WHEN 'blob' THEN 4 ELSE ");
        if binds_text(&tag) {
            // A number that the column's numeric affinity compares equal to its own text (a
            // `STRING` or `NUMERIC` column holding `'10'` as 10): the text a `String` key
            // binds is converted back, so the seek compares as `ORDER BY`.
            out.push_sql("(CASE WHEN ");
            K::walk_column(i, out.reborrow())?;
            out.push_sql(" = (CAST(");
            K::walk_column(i, out.reborrow())?;
            out.push_sql(" AS TEXT) || '') THEN 0 ELSE 2 END)");
        } else {
            out.push_sql("2");
        }
        out.push_sql(" END)");
        if i > 0 {
            out.push_sql(" * ");
            out.push_sql(itoa::Buffer::new().format(1_i32 << (3 * i)));
        }
    }
    out.push_sql(")");
    Ok(())
}

/// The deferred join's tie-breaker columns `columns` (of the key): `None`, as the outer query
/// reads them (`t.id`, or `(t.a, t.b)` for a composite key); `Some(false)`, as the join reads
/// the inner query's (`__keyset_k.__keyset_tb`, `__keyset_tb0, ..`); `Some(true)`, as the
/// inner query selects them (`t.id AS __keyset_tb`).
fn walk_tie_breaker<DB, K>(
    columns: std::ops::Range<usize>,
    inner: Option<bool>,
    mut out: AstPass<'_, '_, DB>,
) -> QueryResult<()>
where
    DB: Backend,
    K: KeysetSql<DB>,
{
    let composite = columns.len() > 1;
    if composite && inner.is_none() {
        out.push_sql("(");
    }
    for (n, i) in columns.enumerate() {
        if n > 0 {
            out.push_sql(", ");
        }
        let alias = if composite {
            format!("__keyset_tb{n}")
        } else {
            "__keyset_tb".to_string()
        };
        match inner {
            None => K::walk_column(i, out.reborrow())?,
            Some(false) => {
                out.push_identifier("__keyset_k")?;
                out.push_sql(".");
                out.push_identifier(&alias)?;
            }
            Some(true) => {
                K::walk_column(i, out.reborrow())?;
                out.push_sql(" AS ");
                out.push_identifier(&alias)?;
            }
        }
    }
    if composite && inner.is_none() {
        out.push_sql(")");
    }
    Ok(())
}
