//! The connections of the instructions run (PostgreSQL schema and MariaDB database
//! `keyset_instr`, its SQLite file) and its small table; section 1's SQLite data file and a
//! copy of it without `sqlite_stat4` rows.

use std::path::PathBuf;

use diesel::connection::SimpleConnection;
use diesel::prelude::*;

use crate::{data, dirs, ROWS, VERSION};

fn pg_url() -> String {
    std::env::var("KEYSET_PG_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_string())
}

fn mysql_base() -> String {
    std::env::var("KEYSET_MYSQL_URL")
        .unwrap_or_else(|_| "mysql://root@127.0.0.1:3306".to_string())
        .trim_end_matches('/')
        .to_string()
}

fn sqlite_path() -> PathBuf {
    dirs::bench_dir().join("instructions.sqlite3")
}

pub fn postgres() -> PgConnection {
    let url = pg_url();
    let mut conn = PgConnection::establish(&url).unwrap_or_else(|e| {
        panic!("PostgreSQL is not reachable at {url} ({e}): run `bash scripts/setup.sh`")
    });
    conn.batch_execute(
        "SET client_min_messages TO warning; CREATE SCHEMA IF NOT EXISTS keyset_instr; \
         SET search_path TO keyset_instr",
    )
    .expect("schema keyset_instr");
    conn
}

pub fn mysql() -> MysqlConnection {
    let admin_url = format!("{}/test", mysql_base());
    let mut admin = MysqlConnection::establish(&admin_url).unwrap_or_else(|e| {
        panic!("MariaDB/MySQL is not reachable at {admin_url} ({e}): run `bash scripts/setup.sh`")
    });
    admin
        .batch_execute("CREATE DATABASE IF NOT EXISTS keyset_instr")
        .expect("database keyset_instr");
    drop(admin);
    MysqlConnection::establish(&format!("{}/keyset_instr", mysql_base()))
        .expect("keyset_instr database")
}

pub fn sqlite() -> SqliteConnection {
    SqliteConnection::establish(&sqlite_path().to_string_lossy()).expect("SQLite file")
}

/// Loads the small table unless it is there and complete.
pub fn prepare<C>(name: &str, conn: &mut C, fill: fn(&mut C, i64, &str) -> QueryResult<()>)
where
    C: Connection,
    diesel::query_builder::SqlQuery: diesel::query_dsl::LoadQuery<'static, C, data::Version>
        + diesel::query_dsl::LoadQuery<'static, C, data::Count>,
{
    if !data::is_complete_as(conn, ROWS, VERSION) {
        eprintln!("[instructions] {name}: loading {ROWS} rows");
        fill(conn, ROWS, VERSION).expect("load the small table");
        assert!(data::is_complete_as(conn, ROWS, VERSION));
    }
}

/// The data file of section 1 (`<target>/keyset-bench/bench.sqlite3`), loaded unless complete.
pub fn sqlite_big() -> SqliteConnection {
    let path = dirs::bench_dir().join("bench.sqlite3");
    SqliteConnection::establish(&path.to_string_lossy()).expect("SQLite file")
}

/// A copy of section 1's SQLite file without `sqlite_stat4` rows (SQLite then plans a cached
/// page once), in `<bench dir>/without-stat4/`: the directory to give the case as
/// `KEYSET_BENCH_DIR`.
pub fn sqlite_without_stat4() -> PathBuf {
    let dir = dirs::bench_dir().join("without-stat4");
    std::fs::create_dir_all(&dir).expect("directory for the copy");
    std::fs::copy(
        dirs::bench_dir().join("bench.sqlite3"),
        dir.join("bench.sqlite3"),
    )
    .expect("copy the SQLite file");
    let mut conn =
        SqliteConnection::establish(&dir.join("bench.sqlite3").to_string_lossy()).expect("copy");
    conn.batch_execute("DELETE FROM sqlite_stat4")
        .expect("delete the copy's sqlite_stat4 rows");
    dir
}
