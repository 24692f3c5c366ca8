//! SQLite plans a statement again when a parameter it read while planning is bound anew
//! (the SQL guide, "SQLite: a cached statement that is planned again"). The page's cursor values
//! are written `+?`, which SQLite does not read while planning: run on one prepared statement
//! with new cursor values, as Diesel's statement cache runs a later page, the library's text
//! is never prepared again, while the same text with bare `?` is, once `ANALYZE` has written
//! `sqlite_stat4` rows. Counted with `sqlite3_stmt_status(SQLITE_STMTSTATUS_REPREPARE)` on the
//! bundled SQLite that Diesel links.
#![cfg(feature = "sqlite")]

use std::ffi::{c_int, CStr, CString};
use std::ptr;

use diesel::prelude::*;
use diesel::sqlite::Sqlite;
use keyset_diesel::prelude::*;
use libsqlite3_sys as ffi;

diesel::table! { ranked (id) { id -> BigInt, score -> Integer } }

/// `score ASC, id ASC`.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = ranked)]
struct Ranked {
    #[keyset(asc)]
    score: i32,
    #[keyset(asc, unique)]
    id: i64,
}

/// A raw connection to an in-memory database.
struct Db(*mut ffi::sqlite3);

impl Db {
    fn open() -> Self {
        let mut db = ptr::null_mut();
        let rc = unsafe { ffi::sqlite3_open(c":memory:".as_ptr(), &mut db) };
        assert_eq!(rc, ffi::SQLITE_OK, "open");
        Db(db)
    }

    fn error(&self) -> String {
        unsafe { CStr::from_ptr(ffi::sqlite3_errmsg(self.0)) }
            .to_string_lossy()
            .into_owned()
    }

    fn exec(&self, sql: &str) {
        let sql = CString::new(sql).expect("no NUL");
        let rc = unsafe {
            ffi::sqlite3_exec(self.0, sql.as_ptr(), None, ptr::null_mut(), ptr::null_mut())
        };
        assert_eq!(rc, ffi::SQLITE_OK, "{}", self.error());
    }

    /// Runs `sql` once per set of binds on one prepared statement (reset and bound anew each
    /// time); returns the first column of each run's rows and how often SQLite prepared the
    /// statement again.
    fn run(&self, sql: &str, binds: &[Vec<i64>]) -> (Vec<Vec<i64>>, c_int) {
        let text = CString::new(sql).expect("no NUL");
        let mut stmt = ptr::null_mut();
        let rc = unsafe {
            ffi::sqlite3_prepare_v2(self.0, text.as_ptr(), -1, &mut stmt, ptr::null_mut())
        };
        assert_eq!(rc, ffi::SQLITE_OK, "{}: {sql}", self.error());
        let mut runs = Vec::new();
        for values in binds {
            let mut rows = Vec::new();
            unsafe {
                ffi::sqlite3_reset(stmt);
                assert_eq!(
                    ffi::sqlite3_bind_parameter_count(stmt),
                    values.len() as c_int
                );
                for (i, v) in values.iter().enumerate() {
                    assert_eq!(
                        ffi::sqlite3_bind_int64(stmt, i as c_int + 1, *v),
                        ffi::SQLITE_OK
                    );
                }
                loop {
                    match ffi::sqlite3_step(stmt) {
                        ffi::SQLITE_ROW => rows.push(ffi::sqlite3_column_int64(stmt, 0)),
                        ffi::SQLITE_DONE => break,
                        _ => panic!("step: {}", self.error()),
                    }
                }
            }
            runs.push(rows);
        }
        let reprepared =
            unsafe { ffi::sqlite3_stmt_status(stmt, ffi::SQLITE_STMTSTATUS_REPREPARE, 0) };
        unsafe { ffi::sqlite3_finalize(stmt) };
        (runs, reprepared)
    }

    fn ids(&self, sql: &str) -> Vec<i64> {
        self.run(sql, &[vec![]]).0.remove(0)
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        unsafe { ffi::sqlite3_close(self.0) };
    }
}

/// The SQL text of the page after `key` and its binds (all integers here).
fn page_sql(key: (i32, i64)) -> (String, Vec<i64>) {
    let query = ranked::table
        .select(ranked::id)
        .paginate_after(Some(Cursor::<Ranked>::after(key)))
        .page_size(20)
        .into_query::<Sqlite>()
        .expect("a page query");
    let debug = diesel::debug_query::<Sqlite, _>(&query).to_string();
    let (text, binds) = debug.split_once(" -- binds: [").expect("binds");
    let binds = binds
        .trim_end_matches(']')
        .split(", ")
        .map(|b| b.parse().expect("an integer bind"))
        .collect();
    (text.to_string(), binds)
}

#[test]
fn a_later_page_is_not_planned_again_for_new_cursor_values() {
    let db = Db::open();
    // Skewed scores, so that the histogram samples hold something to plan with.
    db.exec(
        "CREATE TABLE ranked (id BIGINT PRIMARY KEY, score INTEGER NOT NULL);
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4000)
         INSERT INTO ranked SELECT i, CASE WHEN i % 10 = 0 THEN i ELSE i % 3 END FROM n;
         CREATE INDEX ranked_score_id ON ranked (score, id);
         ANALYZE;",
    );
    assert!(
        db.ids("SELECT count(*) FROM sqlite_stat4")[0] > 0,
        "this SQLite builds with STAT4 and ANALYZE wrote samples"
    );
    let cursors = [(1, 1_000), (2, 3_998), (1_000, 1_000)];
    let pages: Vec<_> = cursors.iter().map(|k| page_sql(*k)).collect();
    let text = &pages[0].0.clone();
    assert!(pages.iter().all(|(t, _)| t == text), "one text: {pages:?}");
    assert!(text.contains("(+?, +?)"), "{text}");
    let binds: Vec<Vec<i64>> = pages.into_iter().map(|(_, b)| b).collect();

    let (runs, reprepared) = db.run(text, &binds);
    for ((score, id), rows) in cursors.iter().zip(&runs) {
        let expected = db.ids(&format!(
            "SELECT id FROM ranked WHERE score > {score} OR (score = {score} AND id > {id}) \
             ORDER BY score, id LIMIT 21"
        ));
        assert!(!expected.is_empty());
        assert_eq!(rows, &expected, "the page after ({score}, {id})");
    }
    assert_eq!(reprepared, 0, "planned once: {text}");

    // The same statement with the cursor values bound to bare parameters is planned again
    // when they change (`LIMIT +?` kept: a bare `LIMIT ?` is planned again by itself).
    let bare = text.replace("+?", "?").replace("LIMIT ?", "LIMIT +?");
    let (bare_runs, bare_reprepared) = db.run(&bare, &binds);
    assert_eq!(bare_runs, runs);
    eprintln!("planned again: {reprepared} (the crate's text), {bare_reprepared} (bare)");
    assert!(bare_reprepared >= 2, "{bare_reprepared} for {bare}");
}
