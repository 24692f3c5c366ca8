//! The MariaDB/MySQL run: its connection, plans (`EXPLAIN`), `Handler_*` counters, InnoDB
//! buffer pool reads and settings.

use diesel::connection::SimpleConnection;
use diesel::deserialize::FromSql;
use diesel::mysql::{Mysql, MysqlConnection, MysqlValue};
use diesel::prelude::*;
use diesel::query_builder::QueryFragment;
use diesel::sql_types::{BigInt, Nullable, Text};

use crate::handwritten::Explain;
use crate::results::BackendRun;

pub fn url() -> String {
    std::env::var("KEYSET_MYSQL_URL").unwrap_or_else(|_| "mysql://root@127.0.0.1:3306".to_string())
}

#[derive(QueryableByName)]
struct One {
    #[diesel(sql_type = Text)]
    v: String,
}

fn one(conn: &mut MysqlConnection, sql: &str) -> String {
    diesel::sql_query(sql)
        .get_result::<One>(conn)
        .map(|r| r.v)
        .unwrap_or_else(|e| format!("({e})"))
}

/// One cell of EXPLAIN's output, whatever type the server sends it as (MariaDB sends
/// some numeric columns as strings through the binary protocol).
struct Cell(String);

impl FromSql<Text, Mysql> for Cell {
    fn from_sql(value: MysqlValue<'_>) -> diesel::deserialize::Result<Self> {
        use diesel::mysql::MysqlType as T;
        match value.value_type() {
            T::Tiny
            | T::UnsignedTiny
            | T::Short
            | T::UnsignedShort
            | T::Long
            | T::UnsignedLong
            | T::LongLong
            | T::UnsignedLongLong => Ok(Cell(
                <i64 as FromSql<BigInt, Mysql>>::from_sql(value)?.to_string(),
            )),
            _ => Ok(Cell(<String as FromSql<Text, Mysql>>::from_sql(value)?)),
        }
    }
}

#[derive(QueryableByName)]
struct ExplainRow {
    #[diesel(sql_type = Nullable<Text>)]
    id: Option<Cell>,
    #[diesel(sql_type = Nullable<Text>)]
    select_type: Option<Cell>,
    #[diesel(sql_type = Nullable<Text>)]
    table: Option<Cell>,
    #[diesel(sql_type = Nullable<Text>)]
    r#type: Option<Cell>,
    #[diesel(sql_type = Nullable<Text>)]
    possible_keys: Option<Cell>,
    #[diesel(sql_type = Nullable<Text>)]
    key: Option<Cell>,
    #[diesel(sql_type = Nullable<Text>)]
    key_len: Option<Cell>,
    #[diesel(sql_type = Nullable<Text>)]
    r#ref: Option<Cell>,
    #[diesel(sql_type = Nullable<Text>)]
    rows: Option<Cell>,
    #[diesel(sql_type = Nullable<Text>)]
    #[diesel(column_name = Extra)]
    extra: Option<Cell>,
}

fn explain<Q: QueryFragment<Mysql>>(conn: &mut MysqlConnection, query: Q) -> String {
    let rows: Vec<ExplainRow> = diesel::RunQueryDsl::load(
        Explain::<Q, diesel::sql_types::Untyped>::new("EXPLAIN", query),
        conn,
    )
    .expect("explain");
    let text = |v: &Option<Cell>| {
        v.as_ref()
            .map_or_else(|| "NULL".to_string(), |c| c.0.clone())
    };
    let num = text;
    let mut table = vec![[
        "id",
        "select_type",
        "table",
        "type",
        "possible_keys",
        "key",
        "key_len",
        "ref",
        "rows",
        "Extra",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect::<Vec<_>>()];
    for r in &rows {
        table.push(vec![
            num(&r.id),
            text(&r.select_type),
            text(&r.table),
            text(&r.r#type),
            text(&r.possible_keys),
            text(&r.key),
            text(&r.key_len),
            text(&r.r#ref),
            num(&r.rows),
            text(&r.extra),
        ]);
    }
    crate::backends::columns(&table)
}

#[derive(QueryableByName)]
struct Status {
    #[diesel(sql_type = Text)]
    #[diesel(column_name = Variable_name)]
    name: String,
    #[diesel(sql_type = Text)]
    #[diesel(column_name = Value)]
    value: String,
}

/// The Handler counters of `run` (FLUSH STATUS first): the work MariaDB did.
fn counters(conn: &mut MysqlConnection, run: impl FnOnce(&mut MysqlConnection)) -> Option<String> {
    conn.batch_execute("FLUSH STATUS").ok()?;
    run(conn);
    let rows: Vec<Status> = diesel::sql_query("SHOW SESSION STATUS LIKE 'Handler\\_%'")
        .load(conn)
        .ok()?;
    Some(
        rows.iter()
            .filter(|r| {
                r.name.starts_with("Handler_read")
                    || r.name == "Handler_icp_attempts"
                    || r.name == "Handler_icp_match"
            })
            .filter(|r| r.value != "0")
            .map(|r| format!("{}={}", r.name, r.value))
            .collect::<Vec<_>>()
            .join(" "),
    )
}

/// The server's InnoDB buffer pool counters: pages read from storage
/// (`Innodb_buffer_pool_reads`) and page requests (`Innodb_buffer_pool_read_requests`).
/// Server-wide: nothing else uses the server during the run.
fn storage(conn: &mut MysqlConnection) -> Option<(u64, u64)> {
    let rows: Vec<Status> =
        diesel::sql_query("SHOW GLOBAL STATUS LIKE 'Innodb\\_buffer\\_pool\\_read%'")
            .load(conn)
            .ok()?;
    let get = |name: &str| {
        rows.iter()
            .find(|r| r.name == name)
            .and_then(|r| r.value.parse::<u64>().ok())
    };
    Some((
        get("Innodb_buffer_pool_reads")?,
        get("Innodb_buffer_pool_read_requests")?,
    ))
}

walk_fn!(MysqlConnection);

pub fn run(c: &mut criterion::Criterion) -> BackendRun {
    let base = url();
    let admin_url = format!("{}/test", base.trim_end_matches('/'));
    let mut admin = MysqlConnection::establish(&admin_url).unwrap_or_else(|e| {
        panic!("MariaDB/MySQL is not reachable at {admin_url} ({e}): run `bash scripts/setup.sh`")
    });
    admin
        .batch_execute("CREATE DATABASE IF NOT EXISTS keyset_bench")
        .expect("database keyset_bench");
    drop(admin);
    let url = format!("{}/keyset_bench", base.trim_end_matches('/'));
    let mut conn = MysqlConnection::establish(&url).expect("keyset_bench database");
    let mut run = BackendRun {
        name: "mysql",
        ..BackendRun::default()
    };
    run.load = crate::load(&mut conn, crate::data::load_mysql);
    run.version = one(&mut conn, "SELECT CAST(VERSION() AS CHAR) AS v");
    for setting in [
        "innodb_buffer_pool_size",
        "innodb_flush_method",
        "innodb_flush_log_at_trx_commit",
        "optimizer_search_depth",
    ] {
        let value = one(&mut conn, &format!("SELECT CAST(@@{setting} AS CHAR) AS v"));
        run.settings.push((setting.to_string(), value));
    }
    backend_run!(c, &mut conn, &mut run, MysqlConnection, Mysql);
    run
}
