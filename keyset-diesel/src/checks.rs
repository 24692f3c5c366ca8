//! Marker traits behind the compile-time checks. Each one is implemented exactly when the
//! model or the query is right, and its `on_unimplemented` message names the fix.
//!
//! * The derive writes a non-generic function whose `where` clause names the model checks,
//!   each predicate spanned on what the user must change (the technique of Diesel's
//!   `check_for_backend`).
//! * [`PageSource`](crate::PageSource) for an unboxed select statement requires the query
//!   checks, so `paginate_after` on an ordered, limited or offset query, or on a query that does
//!   not read the keyset's table, fails to compile with these messages.
//!
//! The guide's [compile errors](crate::guide::compile_errors) page lists every message; `ui-tests/tests/ui`
//! pins them.

use std::borrow::Cow;

use diesel::expression::{
    is_aggregate, AppearsOnTable, AsExpression, Expression, SelectableExpression,
    TypedExpressionType, ValidGrouping,
};
use diesel::query_builder::{NoLimitClause, NoOffsetClause, NoOrderClause};
use diesel::query_source::Once;
use diesel::sql_types::is_nullable::{IsNullable, NotNull};
use diesel::sql_types::SqlType;

use crate::key::{InvalidKeyValue, KeyValue};

// ---------------------------------------------------------------------------------------------
// Model checks, written by the derive.

/// The key columns `Self` (a tuple, in keyset order) end with every column of the table's
/// primary key `Pk` (checked when the last key column is not marked `unique`): a single-column
/// key last, or all the columns of a composite key (up to four), in the order `table!`
/// declares them, last. `WIDTH` is how many of the key's last columns that is
/// ([`Keyset::TIE_BREAKER_COLUMNS`](crate::Keyset::TIE_BREAKER_COLUMNS)).
#[diagnostic::on_unimplemented(
    message = "the keyset `{Self}` has no unique tie-breaker: its last key column is not marked `unique` and it does not end with the table's primary key `{Pk}`",
    label = "the last key columns must name exactly one row",
    note = "end the keyset with the primary key: every column of `{Pk}` as the last key fields, in the order `table!` declares them (`#[keyset(asc)]` or `desc` on each; in a named sort, last entries such as `order_id(asc), line_no(asc)`)",
    note = "or, if the last key column itself is NOT NULL and has a UNIQUE constraint, write `unique` in its attribute, e.g. `#[keyset(desc, unique)]` (in a named sort: `column(desc, unique)`)"
)]
pub trait KeysetEndsWithPrimaryKey<Pk> {
    /// How many of the key's last columns the primary key has.
    const WIDTH: usize;
}

// One impl, so a refusal names the rule above, not the shapes of `PrimaryKeySuffix`.
#[diagnostic::do_not_recommend]
impl<Key, Pk> KeysetEndsWithPrimaryKey<Pk> for Key
where
    Key: PrimaryKeySuffix<Pk>,
{
    const WIDTH: usize = <Key as PrimaryKeySuffix<Pk>>::WIDTH;
}

/// The key columns of a keyset, as a tuple (what the derive names in its checks).
pub type KeyColumns<Columns> = Columns;

/// How many of the last columns of the key `Key` name one row: the width of the table's
/// primary key `Pk`, which `Key` ends with (what the derive writes when the last key column
/// is not marked `unique`).
pub const fn tie_breaker_columns<Key, Pk>() -> usize
where
    Key: KeysetEndsWithPrimaryKey<Pk>,
{
    <Key as KeysetEndsWithPrimaryKey<Pk>>::WIDTH
}

/// [`KeysetEndsWithPrimaryKey`], shape by shape: key tuples of up to 15 columns that end with
/// a primary key of one to four columns.
pub trait PrimaryKeySuffix<Pk> {
    /// How many of the key's last columns the primary key has.
    const WIDTH: usize;
}

/// [`PrimaryKeySuffix`] for key tuples that start with the columns `$x` and end with a primary
/// key of one, two, three or four columns.
macro_rules! ends_with_primary_key {
    ($($x:ident),*) => {
        impl<$($x,)* P> PrimaryKeySuffix<P> for ($($x,)* P,) {
            const WIDTH: usize = 1;
        }
        impl<$($x,)* P1, P2> PrimaryKeySuffix<(P1, P2)> for ($($x,)* P1, P2) {
            const WIDTH: usize = 2;
        }
        impl<$($x,)* P1, P2, P3> PrimaryKeySuffix<(P1, P2, P3)> for ($($x,)* P1, P2, P3) {
            const WIDTH: usize = 3;
        }
        impl<$($x,)* P1, P2, P3, P4> PrimaryKeySuffix<(P1, P2, P3, P4)>
            for ($($x,)* P1, P2, P3, P4)
        {
            const WIDTH: usize = 4;
        }
    };
}

ends_with_primary_key!();
ends_with_primary_key!(X1);
ends_with_primary_key!(X1, X2);
ends_with_primary_key!(X1, X2, X3);
ends_with_primary_key!(X1, X2, X3, X4);
ends_with_primary_key!(X1, X2, X3, X4, X5);
ends_with_primary_key!(X1, X2, X3, X4, X5, X6);
ends_with_primary_key!(X1, X2, X3, X4, X5, X6, X7);
ends_with_primary_key!(X1, X2, X3, X4, X5, X6, X7, X8);
ends_with_primary_key!(X1, X2, X3, X4, X5, X6, X7, X8, X9);
ends_with_primary_key!(X1, X2, X3, X4, X5, X6, X7, X8, X9, X10);
ends_with_primary_key!(X1, X2, X3, X4, X5, X6, X7, X8, X9, X10, X11);

/// A key column without `nulls_first` / `nulls_last` is `NOT NULL`. `Self` is the column's
/// nullability.
#[diagnostic::on_unimplemented(
    message = "key column `{Col}` is nullable, but its #[keyset(..)] does not say where NULLs sort",
    label = "add `nulls_first` or `nulls_last` here, e.g. `#[keyset(asc, nulls_last)]` (in a named sort: `column(asc, nulls_last)`)",
    note = "databases disagree on where NULLs sort by default, so the keyset writes the placement out in ORDER BY and in the seek predicate"
)]
pub trait NullableKeyColumnNeedsPlacement<Col> {}

impl<Col> NullableKeyColumnNeedsPlacement<Col> for NotNull {}

/// A key column with `nulls_first` / `nulls_last` is nullable. `Self` is the column's
/// nullability.
#[diagnostic::on_unimplemented(
    message = "key column `{Col}` is NOT NULL, so it has no NULLs to place",
    label = "remove this NULL placement",
    note = "`nulls_first` / `nulls_last` belong on columns declared `Nullable<..>` in `table!`"
)]
pub trait NullPlacementNeedsNullableColumn<Col> {}

impl<Col> NullPlacementNeedsNullableColumn<Col> for IsNullable {}

/// The tie-breaker is `NOT NULL`. `Self` is the column's nullability.
#[diagnostic::on_unimplemented(
    message = "the tie-breaker `{Col}` is nullable: a column with NULLs cannot name exactly one row",
    label = "the last key column must be a NOT NULL unique column",
    note = "make the last key column the primary key (or another NOT NULL unique column), marked `#[keyset(asc, unique)]`"
)]
pub trait TieBreakerMustBeNotNull<Col> {}

impl<Col> TieBreakerMustBeNotNull<Col> for NotNull {}

/// A key read through `#[diesel(select_expression = ..)]` is no aggregate. `Self` is the
/// expression's `ValidGrouping<()>::IsAggregate`: `No` for columns and functions of them,
/// `Never` for constants and SQL literals, `Yes` for `count(*)`, `sum(..)` and the like.
#[diagnostic::on_unimplemented(
    message = "key column `{Col}` is an aggregate: the seek predicate compares key columns in WHERE, where aggregates are not allowed",
    label = "an aggregate (count, sum, max, ...) cannot be a key column",
    note = "page the grouped rows from a subquery or a view that computes the aggregate (it is then a plain column there), or key on the GROUP BY columns (the group key marked `unique`)"
)]
pub trait KeyExpressionIsNotAggregate<Col> {}

impl<Col> KeyExpressionIsNotAggregate<Col> for is_aggregate::No {}

impl<Col> KeyExpressionIsNotAggregate<Col> for is_aggregate::Never {}

/// A key field's Rust type can be bound as its column's SQL type `ST`.
#[diagnostic::on_unimplemented(
    message = "the field type `{Self}` does not match key column `{Col}`, whose SQL type is `{ST}`",
    label = "expected the Rust type Diesel reads `{ST}` into",
    note = "Diesel's mapping: `Text` -> `String`, `Integer` -> `i32`, `BigInt` -> `i64`, `SmallInt` -> `i16`, `Bool` -> `bool`, `Double` -> `f64`, `Float` -> `f32`, `Binary` -> `Vec<u8>`, `Timestamp` -> `chrono::NaiveDateTime` (or `time::PrimitiveDateTime`), `Timestamptz` -> `chrono::DateTime<Utc>` (or `time::OffsetDateTime`), `Date` -> `chrono::NaiveDate` (or `time::Date`), `Time` -> `chrono::NaiveTime` (or `time::Time`; the `time` types need the feature `time`), MySQL's `TinyInt` -> `i8` and `Unsigned<BigInt>` -> `u64` (`u8`, `u16`, `u32` likewise), `Nullable<T>` -> `Option<_>`"
)]
pub trait KeyFieldMatchesColumn<Col, ST> {}

impl<T, Col, ST> KeyFieldMatchesColumn<Col, ST> for T
where
    ST: SqlType + TypedExpressionType,
    T: AsExpression<ST>,
{
}

/// The field of a nullable key column is an `Option<_>` (`IsNull` is the column's
/// nullability), so a row whose key is NULL can be read and its cursor written.
#[diagnostic::on_unimplemented(
    message = "key column `{Col}` is nullable, so its field must be an `Option<_>`, not `{Self}`",
    label = "write `Option<{Self}>`"
)]
pub trait NullableColumnNeedsOptionField<Col, IsNull> {}

impl<T, Col> NullableColumnNeedsOptionField<Col, NotNull> for T {}

impl<T, Col> NullableColumnNeedsOptionField<Col, IsNullable> for Option<T> {}

// ---------------------------------------------------------------------------------------------
// Query checks, required by `PageSource` for unboxed select statements.

/// The query has no `ORDER BY` yet. `Self` is the query's order clause.
#[diagnostic::on_unimplemented(
    message = "this query already has an ORDER BY, and `paginate_after` writes the keyset's own",
    label = "remove `.order(..)` / `.then_order_by(..)` from the query given to `paginate_after`",
    note = "a page is ordered by the model's #[keyset(..)] columns, in their declared directions; to page in another order, declare it there, or as a named sort of the model (`#[keyset(sort(Name(field(desc), ..)))]` on the struct, paginated through its row type `<Model>By<Name>`)"
)]
pub trait NoOrderByYet {}

impl NoOrderByYet for NoOrderClause {}

/// The query has no `LIMIT` yet. `Self` is the query's limit clause.
#[diagnostic::on_unimplemented(
    message = "this query already has a LIMIT, and `paginate_after` writes its own (`LIMIT page_size + 1`)",
    label = "remove `.limit(..)` from the query given to `paginate_after`",
    note = "set the number of rows per page with `.page_size(n)` after `.paginate_after(..)`"
)]
pub trait NoLimitYet {}

impl NoLimitYet for NoLimitClause {}

/// The query has no `OFFSET`. `Self` is the query's offset clause.
#[diagnostic::on_unimplemented(
    message = "this query has an OFFSET, and keyset pages never skip rows",
    label = "remove `.offset(..)` from the query given to `paginate_after`",
    note = "the next page starts after the previous page's last row: pass `page.next_cursor()` to `.paginate_after(..)`"
)]
pub trait NoOffsetYet {}

impl NoOffsetYet for NoOffsetClause {}

/// The query has no `DISTINCT ON` (PostgreSQL). `Self` is the query's distinct clause.
#[diagnostic::on_unimplemented(
    message = "this query has DISTINCT ON, which keyset pages cannot page correctly",
    label = "remove `.distinct_on(..)` from the query given to `paginate_after`",
    note = "DISTINCT ON keeps the first row of each group in the query's own ORDER BY; the page's seek would re-admit the rest of the cursor's group, and an ORDER BY not led by the DISTINCT ON expressions is PostgreSQL error 42P10 (keyset_diesel::guide::keys_and_limits)",
    note = "page the reduced rows instead: `.group_by(..)` with aggregates, or a view (or subquery table) that keeps one row per group, paginated like a table"
)]
pub trait NoDistinctOn {}

/// Diesel's distinct clause types other than `DISTINCT ON` are not nameable outside Diesel, so
/// they are told apart by what Diesel allows: a query on this private table may be ordered by
/// its column under no `DISTINCT` and plain `DISTINCT`, never under a `DISTINCT ON` (whose
/// `ORDER BY` must start with the `DISTINCT ON` expressions, which cannot be this column).
mod distinct_probe {
    diesel::table! { keyset_distinct_probe (id) { id -> Integer } }
}

/// A select statement type with its distinct clause replaced by `D`.
#[doc(hidden)]
pub trait WithDistinct<D> {
    /// The statement with distinct clause `D`.
    type Output;
}

impl<F, S, D0, W, O, LOf, G, H, LC, D> WithDistinct<D>
    for diesel::query_builder::SelectStatement<F, S, D0, W, O, LOf, G, H, LC>
{
    type Output = diesel::query_builder::SelectStatement<F, S, D, W, O, LOf, G, H, LC>;
}

#[diagnostic::do_not_recommend]
impl<D> NoDistinctOn for D where
    <diesel::dsl::Select<
        distinct_probe::keyset_distinct_probe::table,
        distinct_probe::keyset_distinct_probe::id,
    > as WithDistinct<D>>::Output:
        diesel::query_dsl::methods::OrderDsl<distinct_probe::keyset_distinct_probe::id>
{
}

/// The keyset's table `T` appears exactly once in the query's `FROM` clause `QS`. `Self` is
/// how often it appears (Diesel's `AppearsInFromClause::Count`).
#[diagnostic::on_unimplemented(
    message = "the keyset of `{K}` orders by columns of `{T}`, which is not in this query's FROM clause",
    label = "this query reads `{QS}`, not `{T}`",
    note = "paginate a query on `{T}` (or one that joins it once), or derive `Keyset` on a model whose `#[diesel(table_name = ..)]` is the table this query reads"
)]
pub trait KeysetTableInQuery<K, T, QS> {}

/// Once the model's table is there, every key column must be readable from `QS` too: a key on
/// a joined table's column (`select_expression = authors::name`) needs that table in the
/// `FROM` as well. Checked here, behind the table check, so a query on the wrong table gets the
/// message above alone, and a query missing a joined key's table gets Diesel's
/// `AppearsOnTable` error naming the column.
impl<K: crate::keyset::Keyset, T, QS> KeysetTableInQuery<K, T, QS> for Once where
    K::Columns: diesel::AppearsOnTable<QS>
{
}

// ---------------------------------------------------------------------------------------------
// The stub a model with derive errors gets, so its use sites add no errors of their own.

/// Key and columns of a model whose `#[derive(Keyset)]` failed. The crate does not compile
/// while that error stands, so nothing here ever runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, diesel::deserialize::FromSqlRow)]
pub struct InvalidKeyset;

impl KeyValue for InvalidKeyset {
    type Repr = ();
    fn type_tag() -> Cow<'static, str> {
        Cow::Borrowed("invalid")
    }
    fn to_repr(&self) {}
    fn from_repr((): ()) -> Result<Self, InvalidKeyValue> {
        Err(InvalidKeyValue("the model's #[derive(Keyset)] failed"))
    }
}

// A real SQL type, so the stub keyset loads like any other at its use sites (no second
// error there); reading one fails.
impl Expression for InvalidKeyset {
    type SqlType = diesel::sql_types::Integer;
}

impl<DB: diesel::backend::Backend> diesel::deserialize::FromSql<diesel::sql_types::Integer, DB>
    for InvalidKeyset
{
    fn from_sql(_bytes: DB::RawValue<'_>) -> diesel::deserialize::Result<Self> {
        Err("the model's #[derive(Keyset)] failed".into())
    }
}

impl<QS> AppearsOnTable<QS> for InvalidKeyset {}

impl<QS> SelectableExpression<QS> for InvalidKeyset {}

impl<GB> ValidGrouping<GB> for InvalidKeyset {
    type IsAggregate = is_aggregate::Never;
}

/// The error of every `KeysetSql` method of a stub.
pub fn __invalid_keyset() -> diesel::result::Error {
    diesel::result::Error::QueryBuilderError("the model's #[derive(Keyset)] failed".into())
}
