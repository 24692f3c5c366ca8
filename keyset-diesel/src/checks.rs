//! Marker traits behind the derive's compile-time checks. Each one is implemented exactly when
//! the model is right; the derive writes a non-generic function whose `where` clause names it,
//! so a wrong model fails to compile with the message below, on the field concerned.

use diesel::expression::{AsExpression, Expression};
use diesel::sql_types::is_nullable::{IsNullable, NotNull};

/// The last key column is the table's single-column primary key.
#[diagnostic::on_unimplemented(
    message = "the last key column `{Col}` is not marked `unique` and is not the table's single-column primary key",
    label = "this keyset has no unique tie-breaker",
    note = "add the primary key as the final tie-breaker: a last key field like `#[keyset(asc, unique)] id: i64`, or write `unique` here if `{Col}` has a UNIQUE constraint"
)]
pub trait TieBreakerIsPrimaryKey<Col> {}

impl<Col> TieBreakerIsPrimaryKey<Col> for Col {}

/// A key column without `nulls_first` / `nulls_last` is `NOT NULL`.
#[diagnostic::on_unimplemented(
    message = "key column `{Col}` is nullable but says nothing about where NULLs sort",
    label = "add `nulls_first` or `nulls_last`, e.g. #[keyset(asc, nulls_last)]",
    note = "databases disagree on the default NULL order, and a seek predicate must know it; the field's type must be an `Option<_>`"
)]
pub trait NullableKeyColumnNeedsPlacement<Col> {}

impl<Col> NullableKeyColumnNeedsPlacement<Col> for NotNull {}

/// A key column with `nulls_first` / `nulls_last` is nullable.
#[diagnostic::on_unimplemented(
    message = "key column `{Col}` is NOT NULL, so a NULL placement means nothing",
    label = "remove `nulls_first` / `nulls_last` from this column"
)]
pub trait NullPlacementNeedsNullableColumn<Col> {}

impl<Col> NullPlacementNeedsNullableColumn<Col> for IsNullable {}

/// The tie-breaker is `NOT NULL`.
#[diagnostic::on_unimplemented(
    message = "the tie-breaker `{Col}` is nullable: a unique column may hold many NULLs, so NULL cannot name one row",
    label = "make the last key column a NOT NULL unique column, usually the primary key"
)]
pub trait TieBreakerMustBeNotNull<Col> {}

impl<Col> TieBreakerMustBeNotNull<Col> for NotNull {}

/// A key field's Rust type can be bound as its column's SQL type.
#[diagnostic::on_unimplemented(
    message = "the field type `{Self}` does not match the SQL type of key column `{Col}`",
    label = "use the Rust type Diesel maps this column's SQL type to (see the `table!` definition)"
)]
pub trait KeyFieldMatchesColumn<Col> {}

impl<T, Col> KeyFieldMatchesColumn<Col> for T
where
    Col: Expression,
    Col::SqlType: diesel::sql_types::SqlType + diesel::expression::TypedExpressionType,
    T: AsExpression<Col::SqlType>,
{
}
