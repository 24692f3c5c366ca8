//! `Paginated::force_index`: the hint after the `FROM` that carries the seek, in each
//! backend's syntax (none on PostgreSQL); the direct form by default on MySQL/MariaDB; with the
//! deferred join asked for, on its inner seek only; on every branch of a union page. The pages
//! these statements load are checked on the servers (tests/tests/mysql.rs, sqlite.rs).
#![cfg(all(feature = "sqlite", feature = "mysql", feature = "postgres"))]

use diesel::mysql::Mysql;
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::sqlite::Sqlite;
use keyset_diesel::prelude::*;

diesel::table! { pairs (id) { id -> BigInt, score -> Integer } }

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
