//! One-column keysets (plus the `id` tie-breaker) over `typed_rows`, one per supported key
//! type, and the test that pages each of them exactly: [`every_key_type_pages_exactly`].
//!
//! Partner: `tests/suites/src/typed.rs` holds the tests of this subject. The split follows the
//! crates' layers (docs/TESTING.md): this file, in the models crate, declares the models and
//! instantiates their pages once per backend; the tests reach them through traits, so editing
//! a test rebuilds no page.
//!
//! The table's columns differ per backend (`Timestamptz` vs `TimestamptzSqlite`, `Uuid` on
//! PostgreSQL only, no `timestamptz` on MySQL), so `typed_backend!` declares the table, its
//! insertable row and its models from one column list per backend, in the modules
//! [`sqlite`], [`postgres`] and [`mysql`] (each behind its feature). The values come from the
//! functions here, adjacent at the database's precision (1 µs apart, last UUID byte, 0.0001,
//! one ulp).

use bigdecimal::BigDecimal;
use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, Utc};
pub use keyset_testkit::values::*;

/// A model `$name` over `$table` keyed by `$col $dir, id $iddir`, with [`crate::models::Oracle`]
/// and [`crate::models::Walk`] on the one backend `$conn` (the caller is behind its feature). The `@model` form takes several key columns and
/// the table's SQL name for the oracle (a backend's own `table!` view of a shared table).
#[macro_export]
macro_rules! key_model {
    ($name:ident, $table:ident, $col:ident: $ty:ty => $dir:ident, id $iddir:ident, $conn:ty) => {
        $crate::key_model!(@model $name, $table, stringify!($table),
            [$col: $ty => $dir] id $iddir, $conn);
    };
    (@model $name:ident, $table:ident, $sql_table:expr,
        [$($col:ident: $ty:ty => $dir:ident),*] id $iddir:ident, $conn:ty) => {
        #[allow(non_camel_case_types)]
        #[derive(Debug, Clone, PartialEq, diesel::Queryable, diesel::Selectable, keyset_diesel::Keyset)]
        #[diesel(table_name = $table)]
        pub struct $name {
            $(
                #[keyset($dir)]
                pub $col: $ty,
            )*
            #[keyset($iddir, unique)]
            pub id: i64,
        }

        impl $crate::models::Oracle for $name {
            const ORDER: &'static [$crate::models::OrderTerm] = &[
                $((stringify!($col), stringify!($dir), None),)*
                ("id", stringify!($iddir), None),
            ];
            const TABLE: &'static str = $sql_table;
            const FILTER_COLUMN: &'static str = "tenant";
            fn id(&self) -> i64 {
                self.id
            }
        }

        $crate::impl_walk!(@impl $conn, $name, $table, i32,
            |q, f| q.filter($table::tenant.eq(f)));
    };
}

/// Walks one-column model `M` over `rows` rows of tenant 0 with page sizes 1, 4 and 7, boxed
/// and not, against the oracle, and sends every cursor through a token round trip.
pub fn check_typed<M, C>(conn: &mut C, rows: usize)
where
    M: crate::models::Walk<C, Filter = i32> + crate::models::Oracle,
    C: crate::TestDb,
{
    use crate::oracle::{assert_matches, token_round_trips, walk_and_compare};
    for page_size in [1u32, 4, 7] {
        for boxed in [false, true] {
            let compared = walk_and_compare::<M, C>(conn, &0, page_size, boxed);
            assert_eq!(compared.walked.len(), rows);
            let context = format!("{} page size {page_size}", std::any::type_name::<M>());
            assert_matches(&compared, &context);
        }
        let cursors = token_round_trips::<M, C>(conn, &0, page_size);
        assert_eq!(cursors, (rows - 1) / page_size as usize);
    }
}

/// Rows in `typed_rows` for [`every_key_type_pages_exactly`].
pub const TYPED_ROWS: i64 = 90;

/// A backend with a `typed_rows` table and its one-column models.
pub trait TypedKeys: crate::TestDb {
    /// Inserts [`TYPED_ROWS`] rows of tenant 0, every column picked from its values with its
    /// own step (so columns vary independently, with ties); returns the values written of the
    /// columns whose precision is checked, by id.
    fn insert_typed_rows(&mut self) -> Precise;
    /// Runs [`check_typed`] for every model of this backend.
    fn check_every_key_model(&mut self);
    /// The stored values of the same columns, by id.
    fn stored_precise(&mut self) -> Precise;
    /// The first page of `F64Asc` (boxed or not) after a hand-built cursor `(NaN, 0)`.
    ///
    /// # Errors
    /// What `load_page` returns.
    fn page_after_nan(&mut self, boxed: bool) -> diesel::QueryResult<usize>;
    /// Reads of tenant 0 from cursors the application built between stored values
    /// ([`built_cursor_reads`]): timestamps and times 500 ns after a stored one (`k_ts`,
    /// `k_time`), decimals with two digits more than the column keeps (`k_dec`).
    fn built_cursor_reads(&mut self) -> Vec<BuiltCursorRead>;
}

/// The `typed_rows` columns whose values must come back exactly as written.
#[derive(Debug, Clone, PartialEq)]
pub struct Precise {
    /// `k_ts`: 1 µs apart.
    pub timestamps: Vec<NaiveDateTime>,
    /// `k_f64`, as bits (`-0.0` read back as `0.0` on SQLite, which keeps no sign of zero,
    /// counts as exact: SQL compares them equal).
    pub f64_bits: Vec<u64>,
    /// `k_f32`, as bits (zero's sign as for `f64_bits`).
    pub f32_bits: Vec<u32>,
    /// `k_time`: 1 µs apart.
    pub times: Vec<NaiveTime>,
}

impl Precise {
    /// From the columns' values; zeros of either sign as `+0.0`.
    pub fn new(
        timestamps: Vec<NaiveDateTime>,
        f64s: &[f64],
        f32s: &[f32],
        times: Vec<NaiveTime>,
    ) -> Self {
        Precise {
            timestamps,
            f64_bits: f64s.iter().map(|&v| (v + 0.0).to_bits()).collect(),
            f32_bits: f32s.iter().map(|&v| (v + 0.0).to_bits()).collect(),
            times,
        }
    }
}

/// Declares, in module `$module` behind feature `$feature`, the `typed_rows` table with the
/// columns listed, `NewTyped`, the models named after each column (`key_model!`) and
/// [`TypedKeys`] for `$conn`. A column line is
/// `name -> SqlType: RustType = values(), step n, [Model dir id dir, ...];`.
macro_rules! typed_backend {
    (
        $module:ident, $feature:literal, $conn:ty;
        $($col:ident -> $sql:ident $(<$inner:ident>)?: $ty:ty = $values:expr, step $step:literal,
            [$($model:ident $dir:ident id $iddir:ident),* $(,)?];)*
    ) => {
        #[doc = concat!("`typed_rows` and its models on ", $feature, ".")]
        #[cfg(feature = $feature)]
        pub mod $module {
            #[allow(unused_imports)]
            use super::*;

            diesel::table! {
                typed_rows (id) {
                    id -> BigInt,
                    tenant -> Integer,
                    $($col -> $sql $(<$inner>)?,)*
                }
            }

            /// A row of `typed_rows`.
            #[derive(diesel::Insertable)]
            #[diesel(table_name = typed_rows)]
            pub struct NewTyped {
                pub id: i64,
                pub tenant: i32,
                $(pub $col: $ty,)*
            }

            $($(
                $crate::key_model!($model, typed_rows, $col: $ty => $dir, id $iddir, $conn);
            )*)*

            impl TypedKeys for $conn {
                fn insert_typed_rows(&mut self) -> Precise {
                    use diesel::RunQueryDsl;
                    let rows: Vec<NewTyped> = (0..TYPED_ROWS)
                        .map(|id| NewTyped {
                            id,
                            tenant: 0,
                            $($col: pick(&$values, id, $step),)*
                        })
                        .collect();
                    diesel::insert_into(typed_rows::table)
                        .values(&rows)
                        .execute(self)
                        .expect("insert typed rows");
                    Precise::new(
                        rows.iter().map(|r| r.k_ts).collect(),
                        &rows.iter().map(|r| r.k_f64).collect::<Vec<_>>(),
                        &rows.iter().map(|r| r.k_f32).collect::<Vec<_>>(),
                        rows.iter().map(|r| r.k_time).collect(),
                    )
                }

                fn check_every_key_model(&mut self) {
                    $($(
                        check_typed::<$model, _>(self, TYPED_ROWS as usize);
                    )*)*
                }

                fn stored_precise(&mut self) -> Precise {
                    use diesel::prelude::*;
                    let rows: Vec<(NaiveDateTime, f64, f32, NaiveTime)> = typed_rows::table
                        .select((
                            typed_rows::k_ts,
                            typed_rows::k_f64,
                            typed_rows::k_f32,
                            typed_rows::k_time,
                        ))
                        .order(typed_rows::id)
                        .load(self)
                        .expect("read the precise columns");
                    Precise::new(
                        rows.iter().map(|r| r.0).collect(),
                        &rows.iter().map(|r| r.1).collect::<Vec<_>>(),
                        &rows.iter().map(|r| r.2).collect::<Vec<_>>(),
                        rows.iter().map(|r| r.3).collect(),
                    )
                }

                fn page_after_nan(&mut self, boxed: bool) -> diesel::QueryResult<usize> {
                    use $crate::models::Walk;
                    let cursor = keyset_diesel::Cursor::after((f64::NAN, 0));
                    F64Asc::page(self, &0, Some(cursor), 3, boxed).map(|p| p.items.len())
                }

                fn built_cursor_reads(&mut self) -> Vec<BuiltCursorRead> {
                    let half_us = chrono::Duration::nanoseconds(500);
                    let extra = "0.000001".parse::<BigDecimal>().expect("a decimal") / 3;
                    let later = |v: &NaiveDateTime| *v + half_us;
                    let later_time = |v: &NaiveTime| *v + half_us;
                    let mut reads = Vec::new();
                    reads.extend(built_cursor_reads::<TsAsc, _, _>(
                        self, "TsAsc", |r| (r.k_ts, r.id), (false, false), later));
                    reads.extend(built_cursor_reads::<TsDesc, _, _>(
                        self, "TsDesc", |r| (r.k_ts, r.id), (true, false), later));
                    reads.extend(built_cursor_reads::<TimeAsc, _, _>(
                        self, "TimeAsc", |r| (r.k_time, r.id), (false, true), later_time));
                    reads.extend(built_cursor_reads::<TimeDesc, _, _>(
                        self, "TimeDesc", |r| (r.k_time, r.id), (true, false), later_time));
                    reads.extend(built_cursor_reads::<DecAsc, _, _>(
                        self, "DecAsc", |r| (r.k_dec.clone(), r.id), (false, true),
                        |v: &BigDecimal| v + &extra));
                    reads.extend(built_cursor_reads::<DecDesc, _, _>(
                        self, "DecDesc", |r| (r.k_dec.clone(), r.id), (true, false),
                        |v: &BigDecimal| v - &extra));
                    reads
                }
            }
        }
    };
}

/// One read from a cursor the application built ([`TypedKeys::built_cursor_reads`]).
#[derive(Debug)]
pub struct BuiltCursorRead {
    /// Model, bound kind (`after`, `before`, `until`), page size and the cursor's position.
    pub label: String,
    /// The ids of the page, or the error `load_page` returned.
    pub got: Result<Vec<i64>, diesel::result::Error>,
    /// The ids of that page computed in Rust from the stored keys.
    pub expected: Vec<i64>,
}

/// Reads of model `M` (tenant 0, keyed `(value, id)` by `key`; `desc` says which of the two
/// descends) from cursors whose value `nudge` moves off a few stored keys: `after` (forward),
/// `before` (backward) and the open window `until(before(..))`, at page sizes 1 to 3, each
/// with the page Rust computes from the keys.
pub fn built_cursor_reads<M, C, T>(
    conn: &mut C,
    model: &str,
    key: fn(&M) -> (T, i64),
    desc: (bool, bool),
    nudge: impl Fn(&T) -> T,
) -> Vec<BuiltCursorRead>
where
    M: crate::models::Walk<C, Filter = i32> + crate::models::Oracle,
    M: keyset_diesel::Keyset<Key = (T, i64)>,
    T: Ord + Clone + std::fmt::Debug,
{
    use crate::models::Read;
    use keyset_diesel::Cursor;
    use std::cmp::Ordering;
    let walk_cmp = |a: &(T, i64), b: &(T, i64)| -> Ordering {
        let v = a.0.cmp(&b.0);
        let i = a.1.cmp(&b.1);
        let v = if desc.0 { v.reverse() } else { v };
        let i = if desc.1 { i.reverse() } else { i };
        v.then(i)
    };
    let mut sorted: Vec<(T, i64)> = M::read(conn, &0, None, Read::forward(10_000))
        .expect("read every row")
        .items
        .iter()
        .map(key)
        .collect();
    sorted.sort_by(walk_cmp);
    let mut reads = Vec::new();
    for at in [0, sorted.len() / 3, sorted.len() / 2, sorted.len() - 1] {
        let cursor = (nudge(&sorted[at].0), sorted[at].1);
        let after: Vec<i64> = sorted
            .iter()
            .filter(|k| walk_cmp(k, &cursor) == Ordering::Greater)
            .map(|k| k.1)
            .collect();
        let before: Vec<i64> = sorted
            .iter()
            .filter(|k| walk_cmp(k, &cursor) == Ordering::Less)
            .map(|k| k.1)
            .collect();
        for page_size in 1..=3u32 {
            let n = page_size as usize;
            let ids = |page: keyset_diesel::Page<M>| page.items.iter().map(M::id).collect();
            let label = |kind: &str| format!("{model} {kind} {cursor:?} page size {page_size}");
            reads.push(BuiltCursorRead {
                label: label("after"),
                got: M::read(
                    conn,
                    &0,
                    Some(Cursor::after(cursor.clone())),
                    Read::forward(page_size),
                )
                .map(ids),
                expected: after.iter().take(n).copied().collect(),
            });
            reads.push(BuiltCursorRead {
                label: label("before"),
                got: M::read(
                    conn,
                    &0,
                    Some(Cursor::before(cursor.clone())),
                    Read::backward(page_size),
                )
                .map(ids),
                expected: before[before.len().saturating_sub(n)..].to_vec(),
            });
            reads.push(BuiltCursorRead {
                label: label("until"),
                got: M::read_window(
                    conn,
                    &0,
                    None,
                    Some(Cursor::before(cursor.clone())),
                    Read::forward(page_size),
                )
                .map(ids),
                expected: before.iter().take(n).copied().collect(),
            });
        }
    }
    reads
}

typed_backend! {
    sqlite, "sqlite", diesel::SqliteConnection;
    k_i16 -> SmallInt: i16 = i16s(), step 1, [I16Asc asc id asc, I16Desc desc id desc];
    k_i32 -> Integer: i32 = i32s(), step 2, [I32Desc desc id asc];
    k_bool -> Bool: bool = [false, true], step 1, [BoolAsc asc id desc];
    k_text -> Text: String = texts(), step 3, [TextDesc desc id asc];
    k_ts -> Timestamp: NaiveDateTime = naive_datetimes(), step 5,
        [TsAsc asc id asc, TsDesc desc id asc];
    k_tstz -> TimestamptzSqlite: DateTime<Utc> = datetimes_utc(), step 3,
        [TstzAsc asc id asc, TstzDesc desc id desc];
    k_date -> Date: NaiveDate = dates(), step 7, [DateDesc desc id asc];
    k_dec -> Numeric: BigDecimal = decimals(), step 7, [DecAsc asc id desc, DecDesc desc id asc];
    k_f64 -> Double: f64 = f64s(true), step 7, [F64Asc asc id asc, F64Desc desc id desc];
    k_f32 -> Float: f32 = f32s(true), step 5, [F32Asc asc id desc, F32Desc desc id asc];
    k_bytes -> Binary: Vec<u8> = byte_strings(), step 5,
        [BytesAsc asc id asc, BytesDesc desc id desc];
    k_time -> Time: NaiveTime = times_of_day(), step 3, [TimeAsc asc id desc, TimeDesc desc id asc];
    k_user -> BigInt: UserId = user_ids(), step 5, [UserAsc asc id asc, UserDesc desc id desc];
}

typed_backend! {
    postgres, "postgres", diesel::PgConnection;
    k_i16 -> SmallInt: i16 = i16s(), step 1, [I16Asc asc id asc, I16Desc desc id desc];
    k_i32 -> Integer: i32 = i32s(), step 2, [I32Desc desc id asc];
    k_bool -> Bool: bool = [false, true], step 1, [BoolAsc asc id desc];
    k_text -> Text: String = texts(), step 3, [TextDesc desc id asc];
    k_ts -> Timestamp: NaiveDateTime = naive_datetimes(), step 5,
        [TsAsc asc id asc, TsDesc desc id asc];
    k_tstz -> Timestamptz: DateTime<Utc> = datetimes_utc(), step 3,
        [TstzAsc asc id asc, TstzDesc desc id desc];
    k_date -> Date: NaiveDate = dates(), step 7, [DateDesc desc id asc];
    k_uuid -> Uuid: uuid::Uuid = uuids(), step 5, [UuidAsc asc id asc, UuidDesc desc id desc];
    k_dec -> Numeric: BigDecimal = decimals(), step 7, [DecAsc asc id desc, DecDesc desc id asc];
    k_f64 -> Double: f64 = f64s(true), step 7, [F64Asc asc id asc, F64Desc desc id desc];
    k_f32 -> Float: f32 = f32s(true), step 5, [F32Asc asc id desc, F32Desc desc id asc];
    k_bytes -> Binary: Vec<u8> = byte_strings(), step 5,
        [BytesAsc asc id asc, BytesDesc desc id desc];
    k_time -> Time: NaiveTime = times_of_day(), step 3, [TimeAsc asc id desc, TimeDesc desc id asc];
    k_user -> BigInt: UserId = user_ids(), step 5, [UserAsc asc id asc, UserDesc desc id desc];
}

typed_backend! {
    mysql, "mysql", diesel::MysqlConnection;
    k_i16 -> SmallInt: i16 = i16s(), step 1, [I16Asc asc id asc, I16Desc desc id desc];
    k_i32 -> Integer: i32 = i32s(), step 2, [I32Desc desc id asc];
    k_bool -> Bool: bool = [false, true], step 1, [BoolAsc asc id desc];
    k_text -> Text: String = texts(), step 3, [TextDesc desc id asc];
    k_ts -> Datetime: NaiveDateTime = naive_datetimes(), step 5,
        [TsAsc asc id asc, TsDesc desc id asc];
    k_date -> Date: NaiveDate = dates(), step 7, [DateDesc desc id asc];
    k_dec -> Numeric: BigDecimal = decimals(), step 7, [DecAsc asc id desc, DecDesc desc id asc];
    k_f64 -> Double: f64 = f64s(false), step 7, [F64Asc asc id asc, F64Desc desc id desc];
    k_f32 -> Float: f32 = f32s(false), step 5, [F32Asc asc id desc, F32Desc desc id asc];
    k_bytes -> Binary: Vec<u8> = byte_strings(), step 5,
        [BytesAsc asc id asc, BytesDesc desc id desc];
    k_time -> Time: NaiveTime = times_of_day(), step 3, [TimeAsc asc id desc, TimeDesc desc id asc];
    k_user -> BigInt: UserId = user_ids(), step 5, [UserAsc asc id asc, UserDesc desc id desc];
    k_i8 -> TinyInt: i8 = [i8::MIN, -1, 0, 1, i8::MAX], step 2, [I8Asc asc id asc];
    k_u8 -> Unsigned<TinyInt>: u8 = [0, 1, 127, 128, u8::MAX], step 3, [U8Desc desc id asc];
    k_u16 -> Unsigned<SmallInt>: u16 = [0, 1, 32_767, 32_768, u16::MAX], step 2,
        [U16Asc asc id desc];
    k_u32 -> Unsigned<Integer>: u32 = [0, 1, 1 << 31, u32::MAX - 1, u32::MAX], step 3,
        [U32Desc desc id desc];
    k_u64 -> Unsigned<BigInt>: u64 = u64s(), step 4, [U64Asc asc id asc, U64Desc desc id desc];
}

/// Rows in `time_rows` for [`every_time_key_type_pages_exactly`].
pub const TIME_ROWS: i64 = 60;

/// The values of `time_rows` by id: `(t_ts, t_tstz, t_date, t_time)`.
pub type TimeValues = Vec<(
    time::PrimitiveDateTime,
    time::OffsetDateTime,
    time::Date,
    time::Time,
)>;

/// A backend with a `time_rows` table and its `time` models.
pub trait TimeKeys: crate::TestDb {
    /// Inserts [`TIME_ROWS`] rows of tenant 0 (columns picked with their own steps, so they vary
    /// independently, with ties); returns the values written, by id.
    fn insert_time_rows(&mut self) -> TimeValues;
    /// Runs [`check_typed`] for every `time` model of this backend.
    fn check_every_time_model(&mut self);
    /// The stored values, by id.
    fn stored_time_values(&mut self) -> TimeValues;
}

/// Walks `M` (tenant 0) forward at page size 1 until a page fails: the ids delivered before,
/// and the error. Panics when the walk ends without one.
pub fn walk_until_error<M, C>(conn: &mut C) -> (Vec<i64>, diesel::result::Error)
where
    M: crate::models::Walk<C, Filter = i32> + crate::models::Oracle,
{
    let mut walked = Vec::new();
    let mut cursor = None;
    loop {
        match M::page(conn, &0, cursor.take(), 1, false) {
            Ok(page) => {
                walked.extend(page.items.iter().map(M::id));
                cursor = Some(page.next_cursor().expect("the walk fails before its end"));
            }
            Err(error) => return (walked, error),
        }
    }
}

/// Declares, in module `$module` behind feature `$feature`, the `time_rows` table, its models
/// (`key_model!`) and [`TimeKeys`] for `$conn`; `$tstz` is the SQL type of `t_tstz`, `$times`
/// the values of `t_time`.
macro_rules! time_backend {
    ($module:ident, $feature:literal, $conn:ty, $tstz:ident, $times:expr) => {
        #[doc = concat!("`time_rows` and its `time` models on ", $feature, ".")]
        #[cfg(feature = $feature)]
        pub mod $module {
            #[allow(unused_imports)]
            use super::*;

            diesel::table! {
                time_rows (id) {
                    id -> BigInt,
                    tenant -> Integer,
                    t_ts -> Timestamp,
                    t_tstz -> $tstz,
                    t_date -> Date,
                    t_time -> Time,
                }
            }

            /// A row of `time_rows`.
            #[derive(diesel::Insertable)]
            #[diesel(table_name = time_rows)]
            pub struct NewTimeRow {
                pub id: i64,
                pub tenant: i32,
                pub t_ts: time::PrimitiveDateTime,
                pub t_tstz: time::OffsetDateTime,
                pub t_date: time::Date,
                pub t_time: time::Time,
            }

            $crate::key_model!(TsAsc, time_rows, t_ts: time::PrimitiveDateTime => asc, id asc, $conn);
            $crate::key_model!(TsDesc, time_rows, t_ts: time::PrimitiveDateTime => desc, id asc, $conn);
            $crate::key_model!(TstzAsc, time_rows, t_tstz: time::OffsetDateTime => asc, id desc, $conn);
            $crate::key_model!(TstzDesc, time_rows, t_tstz: time::OffsetDateTime => desc, id desc, $conn);
            $crate::key_model!(DateAsc, time_rows, t_date: time::Date => asc, id asc, $conn);
            $crate::key_model!(DateDesc, time_rows, t_date: time::Date => desc, id desc, $conn);
            $crate::key_model!(TimeAsc, time_rows, t_time: time::Time => asc, id desc, $conn);
            $crate::key_model!(TimeDesc, time_rows, t_time: time::Time => desc, id asc, $conn);

            impl TimeKeys for $conn {
                fn insert_time_rows(&mut self) -> TimeValues {
                    use diesel::RunQueryDsl;
                    let rows: Vec<NewTimeRow> = (0..TIME_ROWS)
                        .map(|id| NewTimeRow {
                            id,
                            tenant: 0,
                            t_ts: pick(&primitive_datetimes(), id, 3),
                            t_tstz: pick(&offset_datetimes(), id, 7),
                            t_date: pick(&time_dates(), id, 2),
                            t_time: pick(&$times, id, 5),
                        })
                        .collect();
                    diesel::insert_into(time_rows::table)
                        .values(&rows)
                        .execute(self)
                        .expect("insert time rows");
                    rows.iter()
                        .map(|r| (r.t_ts, r.t_tstz, r.t_date, r.t_time))
                        .collect()
                }

                fn check_every_time_model(&mut self) {
                    let rows = TIME_ROWS as usize;
                    check_typed::<TsAsc, _>(self, rows);
                    check_typed::<TsDesc, _>(self, rows);
                    check_typed::<TstzAsc, _>(self, rows);
                    check_typed::<TstzDesc, _>(self, rows);
                    check_typed::<DateAsc, _>(self, rows);
                    check_typed::<DateDesc, _>(self, rows);
                    check_typed::<TimeAsc, _>(self, rows);
                    check_typed::<TimeDesc, _>(self, rows);
                }

                fn stored_time_values(&mut self) -> TimeValues {
                    use diesel::prelude::*;
                    time_rows::table
                        .select((
                            time_rows::t_ts,
                            time_rows::t_tstz,
                            time_rows::t_date,
                            time_rows::t_time,
                        ))
                        .order(time_rows::id)
                        .load(self)
                        .expect("read the time columns")
                }
            }
        }
    };
}

time_backend!(
    sqlite_time,
    "sqlite",
    diesel::SqliteConnection,
    TimestamptzSqlite,
    time_times()
);
time_backend!(
    postgres_time,
    "postgres",
    diesel::PgConnection,
    Timestamptz,
    time_times()
);
// Whole seconds: Diesel 2.4 binds a `time::Time` on MySQL without its fraction, so it writes
// none either (the cursor check refuses such keys: `time_time_fraction_diesel_drops_*`).
time_backend!(
    mysql_time,
    "mysql",
    diesel::MysqlConnection,
    Datetime,
    whole_second_times()
);
