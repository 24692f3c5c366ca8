//! A PostgreSQL native enum as a key (`CREATE TYPE stage AS ENUM ('todo', 'doing', 'done')`):
//! pages in the enum's declaration order through tokens, and a token of another enum type is
//! refused.

use diesel::prelude::*;
use keyset_diesel::plan;
use keyset_diesel::{Cursor, PaginateDsl};
use keyset_test_suites::NextToken as _;
use keyset_test_suites::TestDb;

/// A PostgreSQL native enum as a key: `CREATE TYPE stage AS ENUM ('todo',
/// 'doing', 'done')`, Diesel's usual mapping, `#[derive(KeyValue)]` on the Rust enum.
mod stage_keys {
    use diesel::deserialize::{self, FromSql};
    use diesel::pg::{Pg, PgValue};
    use diesel::serialize::{self, IsNull, Output, ToSql};
    use std::io::Write;

    pub use keyset_test_suites::typed::stage::{Stage, StageType};

    diesel::table! {
        use diesel::sql_types::*;
        use super::StageType;

        stage_rows (id) {
            id -> BigInt,
            tenant -> Integer,
            stage -> StageType,
        }
    }

    #[derive(
        Debug,
        Clone,
        PartialEq,
        diesel::Queryable,
        diesel::Selectable,
        diesel::Insertable,
        keyset_diesel::Keyset,
    )]
    #[diesel(table_name = stage_rows)]
    pub struct StageRow {
        #[keyset(asc)]
        pub stage: Stage,
        pub tenant: i32,
        #[keyset(asc, unique)]
        pub id: i64,
    }

    /// Another enum type read from a column of the same name in a table of the same name: only
    /// the key's type tag tells the two keysets apart.
    pub mod other {
        use super::*;

        #[derive(diesel::sql_types::SqlType, diesel::query_builder::QueryId)]
        #[diesel(postgres_type(name = "priority"))]
        pub struct PriorityType;

        #[derive(
            Debug,
            Clone,
            Copy,
            PartialEq,
            diesel::expression::AsExpression,
            diesel::deserialize::FromSqlRow,
            keyset_diesel::query::KeyValue,
        )]
        #[diesel(sql_type = PriorityType)]
        pub enum Priority {
            Low,
            High,
        }

        impl ToSql<PriorityType, Pg> for Priority {
            fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Pg>) -> serialize::Result {
                out.write_all(match self {
                    Priority::Low => b"low",
                    Priority::High => b"high",
                })?;
                Ok(IsNull::No)
            }
        }

        impl FromSql<PriorityType, Pg> for Priority {
            fn from_sql(bytes: PgValue<'_>) -> deserialize::Result<Self> {
                match bytes.as_bytes() {
                    b"low" => Ok(Priority::Low),
                    b"high" => Ok(Priority::High),
                    other => Err(format!("not a priority: {other:?}").into()),
                }
            }
        }

        diesel::table! {
            use diesel::sql_types::*;
            use super::PriorityType;

            stage_rows (id) {
                id -> BigInt,
                tenant -> Integer,
                stage -> PriorityType,
            }
        }

        #[derive(
            Debug, Clone, PartialEq, diesel::Queryable, diesel::Selectable, keyset_diesel::Keyset,
        )]
        #[diesel(table_name = stage_rows)]
        pub struct PriorityRow {
            #[keyset(asc)]
            pub stage: Priority,
            #[keyset(asc, unique)]
            pub id: i64,
        }
    }
}

/// Ids of every page of `stage_rows` (tenant 0) at `page_size`, each page resumed from the
/// previous page's token, forward or backward; in display order.
fn stage_walk(conn: &mut diesel::PgConnection, page_size: u32, backward: bool) -> Vec<i64> {
    use stage_keys::{stage_rows, StageRow};
    let codec = keyset_test_suites::oracle::test_codec(std::sync::Arc::new(
        std::sync::atomic::AtomicU64::new(1_800_000_000),
    ));
    let scope = "stages";
    let mut token: Option<String> = None;
    let mut pages: Vec<Vec<i64>> = Vec::new();
    loop {
        let cursor = token
            .as_deref()
            .map(|t| codec.decode::<StageRow>(t, &scope).expect("decode"));
        let query = stage_rows::table
            .filter(stage_rows::tenant.eq(0))
            .select(StageRow::as_select());
        let page = if backward {
            query
                .paginate_before(cursor)
                .page_size(page_size)
                .load_page(conn)
        } else {
            query
                .paginate_after(cursor)
                .page_size(page_size)
                .load_page(conn)
        }
        .expect("page");
        pages.push(page.items.iter().map(|r| r.id).collect());
        token = codec.next_token(&page, &scope).expect("encode");
        if token.is_none() {
            break;
        }
        assert!(pages.len() <= 1_000, "the walk does not end");
    }
    if backward {
        pages.reverse();
    }
    pages.into_iter().flatten().collect()
}

/// A native enum key `(stage ASC, id ASC)` pages in the enum's declaration
/// order (todo, doing, done), not its text order, forward and backward through tokens at page
/// sizes 1, 2 and 3, with heavy ties: each walk equals `ORDER BY stage, id`. The seek binds the
/// enum as `stage` (no cast to text): the plan compares `stage` values.
#[test]
fn native_enum_key_pages_in_declaration_order_through_tokens() {
    use stage_keys::{stage_rows, Stage, StageRow};
    let mut db = diesel::PgConnection::open();
    let rows: Vec<StageRow> = (1..=40)
        .map(|id| StageRow {
            id,
            tenant: if id % 9 == 0 { 1 } else { 0 },
            stage: Stage::ALL[(id * 7 % 3) as usize],
        })
        .collect();
    diesel::insert_into(stage_rows::table)
        .values(&rows)
        .execute(&mut *db)
        .unwrap();
    let conn: &mut diesel::PgConnection = &mut db;
    let expected = conn.ids("SELECT id FROM stage_rows WHERE tenant = 0 ORDER BY stage, id");
    let text_order =
        conn.ids("SELECT id FROM stage_rows WHERE tenant = 0 ORDER BY stage::text, id");
    assert_ne!(
        expected, text_order,
        "the test needs the two orders to differ"
    );
    assert_eq!(expected.len(), 36);
    for page_size in [1, 2, 3] {
        assert_eq!(
            stage_walk(conn, page_size, false),
            expected,
            "forward, page size {page_size}"
        );
        assert_eq!(
            stage_walk(conn, page_size, true),
            expected,
            "backward, page size {page_size}"
        );
    }

    let paginated = stage_rows::table
        .filter(stage_rows::tenant.eq(0))
        .select(StageRow::as_select())
        .paginate_after(Some(Cursor::<StageRow>::after((Stage::Doing, 20))))
        .page_size(3);
    let report = plan::explain_analyze(conn, paginated).expect("plan");
    let lower = report.sql.to_lowercase();
    assert!(
        !lower.contains("::text") && !lower.contains("cast("),
        "{}",
        report.sql
    );
    assert!(report.plan.contains("'doing'::stage"), "{}", report.plan);
    assert!(!report.plan.contains("::text"), "{}", report.plan);
}

/// A token of one enum key is refused by a keyset over another enum type on the same table and
/// column name (`SortMismatch`): the type tag names the enum.
#[test]
fn token_of_another_enum_is_a_sort_mismatch() {
    use keyset_diesel::token::CursorError;
    use keyset_diesel::Keyset;
    use stage_keys::other::PriorityRow;
    use stage_keys::{Stage, StageRow};
    let codec = keyset_test_suites::oracle::test_codec(std::sync::Arc::new(
        std::sync::atomic::AtomicU64::new(1_800_000_000),
    ));
    let token = codec
        .encode(&Cursor::<StageRow>::after((Stage::Doing, 3)), &"stages")
        .expect("encode");
    assert_eq!(
        codec.decode::<PriorityRow>(&token, &"stages"),
        Err(CursorError::SortMismatch)
    );
    assert_eq!(
        StageRow::sort_signature().replace("enum<Stage>", "enum<Priority>"),
        PriorityRow::sort_signature(),
        "the signatures differ by the enum's name only"
    );
    let back = codec.decode::<StageRow>(&token, &"stages").expect("decode");
    assert_eq!(back.key, (Stage::Doing, 3));
}
