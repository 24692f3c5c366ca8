//! `Paginated::force_index`: the hint after the `FROM` that carries the seek, in each
//! backend's syntax (none on PostgreSQL); the direct form by default on MySQL/MariaDB; with the
//! deferred join asked for, on its inner seek only; on every branch of a union page. The pages
//! these statements load are checked on the servers (tests/tests/mysql.rs, sqlite.rs). An
//! index declared on the model (`#[keyset(index = "..")]`, or in a named sort) is named by
//! every page of a query on the model's table alone, never by a joined query's page, and
//! `force_index(..)` overrides it.
#![cfg(all(feature = "sqlite", feature = "mysql", feature = "postgres"))]

use diesel::mysql::Mysql;
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::sqlite::{Sqlite, SqliteConnection};
use keyset_diesel::prelude::*;
use keyset_diesel::{Keyset, Paginated};

diesel::table! { pairs (id) { id -> BigInt, score -> Integer, tag_id -> Integer } }
diesel::table! { tags (id) { id -> Integer, name -> Text } }
diesel::joinable!(pairs -> tags (tag_id));
diesel::allow_tables_to_appear_in_same_query!(pairs, tags);

/// `score DESC, id ASC`.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = pairs)]
struct Pair {
    #[keyset(desc)]
    score: i32,
    #[keyset(asc, unique)]
    id: i64,
}

/// The SQL text (with binds) of the page after `(5, 9)` of `pairs` (filtered) on `$db`, with
/// the index named; `$deferred`: `Some(..)` sets the deferred join; `$exact`: exact flags.
macro_rules! sql {
    ($db:ty, $deferred:expr, $exact:expr) => {{
        let p = pairs::table
            .filter(pairs::id.gt(0))
            .select((pairs::score, pairs::id))
            .paginate_after(Some(Cursor::<Pair>::after((5, 9))))
            .exact_flags($exact)
            .force_index("pairs_score_id");
        let deferred: Option<bool> = $deferred;
        let p = match deferred {
            Some(d) => p.deferred_join(d),
            None => p,
        };
        diesel::debug_query::<$db, _>(&p.into_query::<$db>().expect("a page query")).to_string()
    }};
}

const HINT: &str = "FORCE INDEX (`pairs_score_id`)";

/// [`Pair`]'s order with its index declared on the model, and a named sort declaring its own.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = pairs)]
#[keyset(index = "pairs_score_id")]
#[keyset(sort(Newest(id(desc), index = "pairs_pkey_desc")))]
struct Declared {
    #[keyset(desc)]
    score: i32,
    #[keyset(asc, unique)]
    id: i64,
}

/// The SQL text of the page after `(5, 9)` of a [`Declared`] query on `$db`, its paginated
/// query passed through `$options`.
macro_rules! declared_sql {
    ($db:ty, $query:expr, $options:expr) => {{
        let options = $options;
        let p = options($query.paginate_after(Some(Cursor::<Declared>::after((5, 9)))));
        diesel::debug_query::<$db, _>(&p.into_query::<$db>().expect("a page query")).to_string()
    }};
}

#[test]
fn a_declared_index_is_named_by_every_page_of_the_models_table() {
    assert_eq!(Declared::INDEX, Some("pairs_score_id"));
    assert_eq!(Pair::INDEX, None);
    fn same<T>(p: T) -> T {
        p
    }
    let query = || {
        pairs::table
            .filter(pairs::id.gt(0))
            .select((pairs::score, pairs::id))
    };
    // MySQL: the direct form with the hint, as `.force_index(..)` writes it.
    let mysql = declared_sql!(Mysql, query(), same);
    assert_eq!(mysql, sql!(Mysql, None, false));
    let sqlite = declared_sql!(Sqlite, query(), same);
    assert_eq!(sqlite, sql!(Sqlite, None, false));
    // A boxed query of the table reads it too.
    let boxed = declared_sql!(Mysql, query().into_boxed(), same);
    assert_eq!(boxed, mysql);
    // The first page too.
    let first = diesel::debug_query::<Mysql, _>(
        &query()
            .paginate_after(None::<Cursor<Declared>>)
            .into_query::<Mysql>()
            .expect("a page query"),
    )
    .to_string();
    assert!(
        first.contains(&format!("FROM `pairs` {HINT} WHERE")),
        "{first}"
    );
}

#[test]
fn force_index_overrides_the_declared_index_and_none_removes_it() {
    let query = || pairs::table.select((pairs::score, pairs::id));
    let other = declared_sql!(Mysql, query(), |p: Paginated<_, Declared>| p
        .force_index("pairs_other"));
    assert!(other.contains("FORCE INDEX (`pairs_other`)"), "{other}");
    assert!(!other.contains("pairs_score_id"), "{other}");
    let none = declared_sql!(Mysql, query(), |p: Paginated<_, Declared>| p
        .force_index(None));
    assert!(!none.contains("FORCE INDEX"), "{none}");
    // Without a hint MySQL keeps its default form, the deferred join.
    assert!(none.contains("__keyset_k"), "{none}");
}

#[test]
fn a_joined_query_does_not_name_the_declared_index() {
    let joined = || {
        pairs::table
            .inner_join(tags::table)
            .filter(tags::name.eq("x"))
            .select((pairs::score, pairs::id))
    };
    let mysql = declared_sql!(Mysql, joined(), |p| p);
    assert!(!mysql.contains("FORCE INDEX"), "{mysql}");
    assert!(mysql.contains("__keyset_k"), "{mysql}");
    let sqlite = declared_sql!(Sqlite, joined(), |p| p);
    assert!(!sqlite.contains("INDEXED BY"), "{sqlite}");
}

#[test]
fn a_named_sort_names_its_own_index() {
    assert_eq!(DeclaredByNewest::INDEX, Some("pairs_pkey_desc"));
    let newest = diesel::debug_query::<Mysql, _>(
        &pairs::table
            .select(DeclaredByNewest::as_select())
            .paginate_after(Some(Cursor::<DeclaredByNewest>::after((9,))))
            .into_query::<Mysql>()
            .expect("a page query"),
    )
    .to_string();
    assert!(
        newest.contains("FROM `pairs` FORCE INDEX (`pairs_pkey_desc`) WHERE"),
        "{newest}"
    );
}

#[test]
fn mysql_writes_the_hint_on_the_direct_form_by_default() {
    let direct = sql!(Mysql, None, false);
    assert!(
        direct.contains(&format!("FROM `pairs` {HINT} WHERE")),
        "{direct}"
    );
    assert!(!direct.contains("__keyset_k"), "{direct}");
    assert_eq!(direct, sql!(Mysql, Some(false), false));
}

#[test]
fn mysql_deferred_join_asked_for_reads_the_index_in_its_inner_seek_only() {
    let deferred = sql!(Mysql, Some(true), false);
    assert_eq!(deferred.matches(HINT).count(), 1, "{deferred}");
    assert!(
        deferred.contains(&format!("AS `__keyset_tb` FROM `pairs` {HINT} WHERE")),
        "{deferred}"
    );
}

#[test]
fn every_branch_of_a_union_page_reads_the_index() {
    // Exact flags: the seek's branch and the probe.
    let union = sql!(Mysql, None, true);
    assert_eq!(union.matches(HINT).count(), 2, "{union}");
    let sqlite = sql!(Sqlite, None, true);
    assert_eq!(
        sqlite.matches("INDEXED BY `pairs_score_id`").count(),
        2,
        "{sqlite}"
    );
}

#[test]
fn sqlite_writes_indexed_by_and_postgres_writes_no_hint() {
    let sqlite = sql!(Sqlite, None, false);
    assert!(
        sqlite.contains("FROM `pairs` INDEXED BY `pairs_score_id` WHERE"),
        "{sqlite}"
    );
    let pg = sql!(Pg, None, false);
    assert!(!pg.contains("pairs_score_id"), "{pg}");
}

#[test]
fn without_the_hint_mysql_keeps_the_deferred_join() {
    let default = diesel::debug_query::<Mysql, _>(
        &pairs::table
            .select((pairs::score, pairs::id))
            .paginate_after(Some(Cursor::<Pair>::after((5, 9))))
            .into_query::<Mysql>()
            .expect("a page query"),
    )
    .to_string();
    assert!(default.contains("__keyset_k"), "{default}");
    assert!(!default.contains("FORCE INDEX"), "{default}");
}

/// [`Pair`]'s order, declaring an index the database does not have: every statement that names
/// it fails, so a page that loads is a page read without the hint.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = pairs)]
#[keyset(index = "pairs_missing")]
struct Missing {
    #[keyset(desc)]
    score: i32,
    #[keyset(asc, unique)]
    id: i64,
}

/// On SQLite: a page and a walk name the declared index at run time (a missing one is the
/// database's error), `force_index(None)` on the page or the walk leaves it out, and
/// `Walk::force_index(name)` names another; every walk that loads equals `ORDER BY`.
#[test]
fn pages_and_walks_name_the_declared_index_unless_told_otherwise() {
    use diesel::connection::SimpleConnection;
    use keyset_diesel::Walk;
    let conn = &mut SqliteConnection::establish(":memory:").expect("SQLite");
    conn.batch_execute(
        "CREATE TABLE pairs (id BIGINT PRIMARY KEY, score INTEGER NOT NULL, tag_id INTEGER NOT NULL);
         CREATE INDEX pairs_score_id ON pairs (score DESC, id ASC);
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50)
         INSERT INTO pairs SELECT i, i % 7, 0 FROM n;",
    )
    .expect("table");
    let expected: Vec<i64> = pairs::table
        .select(pairs::id)
        .order((pairs::score.desc(), pairs::id.asc()))
        .load(conn)
        .expect("ORDER BY");
    let query = || pairs::table.select(Missing::as_select());
    let missing = query().paginate_after(None).page_size(4).load_page(conn);
    assert!(
        matches!(missing, Err(diesel::result::Error::DatabaseError(..))),
        "{missing:?}"
    );
    let first = Walk::<Missing, _, _>::new(conn, query).page_size(4).next();
    assert!(
        matches!(first, Some(Err(diesel::result::Error::DatabaseError(..)))),
        "{first:?}"
    );
    let page = query()
        .paginate_after(None)
        .page_size(4)
        .force_index(None)
        .load_page(conn)
        .expect("a page without the hint");
    let ids: Vec<i64> = page.items.iter().map(|r| r.id).collect();
    assert_eq!(ids, expected[..4]);
    for index in [None, Some("pairs_score_id")] {
        let mut seen = Vec::new();
        for page in Walk::<Missing, _, _>::new(conn, query)
            .page_size(4)
            .force_index(index)
            .high_water_mark()
        {
            seen.extend(page.expect("a walk page").items.iter().map(|r| r.id));
        }
        assert_eq!(seen, expected, "walk with force_index({index:?})");
    }
}
