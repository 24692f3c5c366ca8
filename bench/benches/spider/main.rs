//! A table sharded across MariaDB servers with the Spider storage engine:
//! section 1's data set (1,300,100 rows, tenant 1 holding 1,000,079) in a Spider table
//! hash-partitioned on `id` whose two partitions are tables on the MariaDB shards of
//! `scripts/setup.sh` (ports 3307 and 3308, `KEYSET_MARIADB_SHARD_PORTS`). For the three keyset
//! shapes, in the default form and as a deferred join: the page after the row at depth
//! 1,000,000 against the first page, and the rows each shard sends for one deep page (the
//! shard's `Rows_sent`). Writes section 4f of `reports/PERFORMANCE.md` in place.
//!
//! `bash scripts/bench.sh spider` (or `cargo bench -p keyset-bench --bench spider`; not part of
//! the full run). The Spider table lives in database `keyset_spider` of the main server, each
//! partition in database `keyset_spider` of its shard; loaded on the first run (set-based, on
//! each shard directly: about a minute) and reused while complete.

#[path = "../pagination/data.rs"]
#[allow(dead_code)]
mod data;
#[path = "../pagination/numbers.rs"]
mod numbers;
#[allow(dead_code)]
#[path = "../pagination/schema.rs"]
mod schema;
#[path = "../pagination/section.rs"]
mod section;
#[macro_use]
#[path = "../scale/depth.rs"]
mod depth;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::Text;
use keyset_diesel::{Cursor, Keyset, PaginateDsl, Paginated};

use crate::depth::{median, Depth};
use crate::numbers::group;
use crate::schema::{bench_rows, Asc, Desc, Mixed};

/// Rows in the table: section 1's data set.
const ROWS: i64 = data::ROWS;
/// Marks a complete load of this data set.
const VERSION: &str =
    "keyset-bench spider data v1: 1300100 rows, hash-partitioned on id across 2 MariaDB servers";
/// The deep page's depth (rows before it).
const DEPTH: i64 = 1_000_000;
/// Rows per page.
const PAGE: u32 = 20;
/// Timed reads per page and side.
const SAMPLES: usize = 200;
/// Uncounted reads per page before timing.
const WARM_UP: usize = 20;
/// Section 1's target for a deep page: deep page / first page.
const TARGET: f64 = 1.5;
/// The database of the Spider table and of each shard's partition; the servers' name prefix.
const DATABASE: &str = "keyset_spider";

/// The shard servers' ports: `KEYSET_MARIADB_SHARD_PORTS` (comma-separated) or 3307 and 3308.
fn shard_ports() -> Vec<u16> {
    std::env::var("KEYSET_MARIADB_SHARD_PORTS")
        .unwrap_or_else(|_| "3307,3308".to_string())
        .split(',')
        .map(|p| p.trim().parse().expect("KEYSET_MARIADB_SHARD_PORTS: ports"))
        .collect()
}

fn connect(url: &str) -> MysqlConnection {
    MysqlConnection::establish(url).unwrap_or_else(|e| {
        panic!("MariaDB is not reachable at {url} ({e}): run `bash scripts/setup.sh`")
    })
}

#[derive(QueryableByName)]
struct Status {
    #[diesel(sql_type = Text)]
    name: String,
    #[diesel(sql_type = Text)]
    value: String,
}

/// Rows each shard has sent to its clients and `SELECT` statements it has run since it
/// started (each call sends two rows and runs one `SELECT` more).
fn rows_sent(shards: &mut [MysqlConnection]) -> Vec<(i64, i64)> {
    shards
        .iter_mut()
        .map(|shard| {
            let status: Vec<Status> = diesel::sql_query(
                "SELECT VARIABLE_NAME AS name, VARIABLE_VALUE AS value \
                 FROM information_schema.GLOBAL_STATUS \
                 WHERE VARIABLE_NAME IN ('ROWS_SENT', 'COM_SELECT')",
            )
            .load(shard)
            .expect("shard status");
            let get = |name: &str| -> i64 {
                status
                    .iter()
                    .find(|s| s.name == name)
                    .map(|s| s.value.parse().expect("a count"))
                    .expect("a status variable")
            };
            (get("ROWS_SENT"), get("COM_SELECT"))
        })
        .collect()
}

/// Loads each shard's partition directly (the rows whose `id` hashes to it: `id MOD 2`), with
/// section 1's indexes, and creates the servers and the Spider table over them.
fn load(conn: &mut MysqlConnection, shards: &mut [MysqlConnection], ports: &[u16]) {
    let modulus = shards.len();
    let columns = "id BIGINT NOT NULL PRIMARY KEY, tenant INTEGER NOT NULL, \
                   at DATETIME(6) NOT NULL, score INTEGER NOT NULL, grade INTEGER NOT NULL, \
                   payload TEXT NOT NULL";
    let indexes = "KEY bench_rows_tenant_at_id (tenant, at, id), \
                   KEY bench_rows_tenant_score_id (tenant, score DESC, id), \
                   KEY bench_rows_tenant_grade_id (tenant, grade DESC, id)";
    for (n, shard) in shards.iter_mut().enumerate() {
        // Section 1's rows, then the ones of other partitions deleted: one generator.
        data::fill_mysql(shard, ROWS, "partial").expect("shard rows");
        shard
            .batch_execute(&format!(
                "DROP TABLE bench_meta; DELETE FROM bench_rows WHERE id MOD {modulus} <> {n}; \
                 ANALYZE TABLE bench_rows"
            ))
            .expect("shard partition");
    }
    let mut partitions = Vec::new();
    for (n, port) in ports.iter().enumerate() {
        let server = format!("{DATABASE}_{n}");
        conn.batch_execute(&format!(
            "CREATE OR REPLACE SERVER {server} FOREIGN DATA WRAPPER mysql OPTIONS \
             (HOST '127.0.0.1', PORT {port}, USER 'root', PASSWORD '', DATABASE '{DATABASE}')"
        ))
        .expect("spider server");
        partitions.push(format!("PARTITION p{n} COMMENT = 'srv \"{server}\"'"));
    }
    conn.batch_execute(&format!(
        "DROP TABLE IF EXISTS bench_meta; DROP TABLE IF EXISTS bench_rows;
         CREATE TABLE bench_rows ({columns}, {indexes}) ENGINE = SPIDER
             COMMENT = 'wrapper \"mysql\", table \"bench_rows\"'
             PARTITION BY HASH (id) ({});
         CREATE TABLE bench_meta (version TEXT NOT NULL) ENGINE = InnoDB;
         INSERT INTO bench_meta VALUES ('{VERSION}');",
        partitions.join(", ")
    ))
    .expect("spider table (is the Spider engine loaded? run `bash scripts/setup.sh`)");
}

/// The rows each shard sends for the page after the row at `DEPTH` of `$model`, built by
/// `$configure`.
macro_rules! sent {
    ($conn:expr, $shards:expr, $model:ty, $order:expr, $configure:expr) => {{
        let configure = $configure;
        let base = || {
            bench_rows::table
                .filter(bench_rows::tenant.eq(data::BIG_TENANT))
                .select(<$model>::as_select())
        };
        let row: $model = base()
            .order($order)
            .offset(DEPTH - 1)
            .limit(1)
            .get_result($conn)
            .expect("the row before the deep page");
        let page = || {
            configure(
                base()
                    .paginate_after(Some(Cursor::after(row.key())))
                    .page_size(PAGE),
            )
        };
        // Spider opens its connections to the shards on first use.
        page().load_page($conn).expect("deep page");
        let before = rows_sent($shards);
        let got = page().load_page($conn).expect("deep page");
        assert_eq!(got.items.len(), PAGE as usize);
        let after = rows_sent($shards);
        // Less the status rows and statement of `before`.
        after
            .iter()
            .zip(&before)
            .map(|(a, b)| (a.0 - b.0 - 2, a.1 - b.1 - 1))
            .collect::<Sent>()
    }};
}

/// Rows sent and `SELECT` statements run, per shard.
type Sent = Vec<(i64, i64)>;

/// Rows sent per shard, and the statements that sent them.
fn per_shard(sent: &[(i64, i64)]) -> String {
    sent.iter()
        .map(|(rows, statements)| format!("{} ({statements})", group(*rows as u64)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn ms(d: std::time::Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

fn render(rows: &[(Depth, &str, Sent)], load: &str, took: std::time::Duration) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{}", section::SPIDER.start);
    let _ = writeln!(
        s,
        "## 4f. A table sharded across MariaDB servers (Spider)\n"
    );
    let _ = writeln!(
        s,
        "Written by `bash scripts/bench.sh spider` (`cargo bench -p keyset-bench --bench \
         spider`; not part of the full run) on {} UTC; the run took {:.1} minutes. {load}\n",
        chrono::Utc::now().format("%Y-%m-%d %H:%M"),
        took.as_secs_f64() / 60.0
    );
    let _ = writeln!(
        s,
        "Section 1's data set ({} rows, tenant 1 holding {}) in a MariaDB Spider table \
         hash-partitioned on `id` into two partitions, each a table on one of two more MariaDB \
         10.11 servers on this machine (the shards `scripts/setup.sh` starts), each with \
         section 1's indexes, which the Spider table declares too. Spider sends each shard the \
         page's seek, `ORDER BY` and `LIMIT` (page size + 1), as one query per arm of the \
         expanded form's `OR` (the cursor's tie group, then the rows after it), and merges the \
         shards' sorted rows, so no option is needed ([the SQL guide](../keyset-diesel/src/guide/sql.md), \"MariaDB: a Spider \
         table over shards\"): a shard sends at most one page and its look-ahead row per arm. \"default\" is the page as the library writes it with no option (on MariaDB, \
         the index it learned, named); \"deferred join\" is `.deferred_join(true)`. The first \
         page and the page after the row at depth {} ({PAGE} rows) are read {SAMPLES} times \
         each, alternating, after {WARM_UP} uncounted reads of each; the figures are medians, \
         and the deep page was first checked equal to the rows `OFFSET` reads there. Rows sent: \
         per shard, for one page after the row at depth {}, from the shard's `Rows_sent` \
         counter, and in parentheses the `SELECT` statements the shard ran for it \
         (`Com_select`). Wall-clock times on our 2-core machine, which runs all three servers: the \
         ratio is the figure to read.\n",
        group(ROWS as u64),
        group(data::BIG_TENANT_ROWS as u64),
        group(DEPTH as u64),
        group(DEPTH as u64),
    );
    let _ = writeln!(
        s,
        "| shape | form | first page | page at depth {} | deep / first | target ≤ {TARGET} | rows sent per shard, depth {} |",
        group(DEPTH as u64),
        group(DEPTH as u64)
    );
    let _ = writeln!(s, "|---|---|---:|---:|---:|---|---|");
    for (d, form, sent) in rows {
        let ratio = d.deep.as_secs_f64() / d.first.as_secs_f64();
        let _ = writeln!(
            s,
            "| {} | {form} | {} | {} | {ratio:.2} | {} | {} |",
            d.shape,
            ms(d.first),
            ms(d.deep),
            if ratio <= TARGET { "met" } else { "**missed**" },
            per_shard(sent),
        );
    }
    let _ = writeln!(
        s,
        "\nReading the table: a deep page reaches each shard as the seek's arms (the rest of \
         the cursor's tie group, then the rows after it), each one index range from the \
         cursor with the `LIMIT`, in one statement (a `UNION ALL` of the arms) or, as Spider \
         chose for the descending keyset, one statement per arm. So the rows a shard sends are \
         bounded by one page and its look-ahead row per arm, whatever the depth; what the deep \
         page adds to the first page (one ordered read per shard) is that union and \
         Spider's merge of its rows on the server you connect to. The deferred join costs one \
         more statement per row of the page on the shard that holds it (Spider fetches the \
         rows the inner query found by their `id`, one look-up each), hence its ratio: on \
         Spider, leave the default."
    );
    let _ = write!(s, "\n{}", section::SPIDER.end);
    s
}

/// The default form and the deferred join of one shape: its rows sent and depth figures.
macro_rules! shape {
    ($out:expr, $conn:expr, $shards:expr, $shape:expr, $model:ty, $order:expr) => {{
        let sent = sent!($conn, $shards, $model, $order, |page| page);
        let d = depth!($conn, "mysql", $shape, $model, $order);
        $out.push((d, "default", sent));
        let deferred = |page: Paginated<_, $model>| page.deferred_join(true);
        let sent = sent!($conn, $shards, $model, $order, deferred);
        let d = depth!($conn, "mysql", $shape, $model, $order, deferred);
        $out.push((d, "deferred join", sent));
    }};
}

fn main() {
    // `cargo bench` passes `--bench`; nothing here takes arguments.
    let started = Instant::now();
    let base = std::env::var("KEYSET_MYSQL_URL")
        .unwrap_or_else(|_| "mysql://root@127.0.0.1:3306".to_string());
    connect(&format!("{base}/test"))
        .batch_execute(&format!("CREATE DATABASE IF NOT EXISTS {DATABASE}"))
        .expect("database");
    let mut conn = connect(&format!("{base}/{DATABASE}"));
    let ports = shard_ports();
    let (host, _) = base.rsplit_once(':').expect("KEYSET_MYSQL_URL has a port");
    let mut shards: Vec<MysqlConnection> = ports
        .iter()
        .map(|port| {
            connect(&format!("{host}:{port}/test"))
                .batch_execute(&format!("CREATE DATABASE IF NOT EXISTS {DATABASE}"))
                .expect("shard database");
            connect(&format!("{host}:{port}/{DATABASE}"))
        })
        .collect();
    let load = if data::is_complete_as(&mut conn, ROWS, VERSION) {
        "The data set was already loaded.".to_string()
    } else {
        eprintln!("[spider] loading {ROWS} rows on the shards");
        let t = Instant::now();
        load(&mut conn, &mut shards, &ports);
        format!(
            "The data set was loaded in this run ({:.1} minutes).",
            t.elapsed().as_secs_f64() / 60.0
        )
    };
    let c = &mut conn;
    let mut rows = Vec::new();
    shape!(
        rows,
        &mut *c,
        &mut shards,
        "ASC `at, id`",
        Asc,
        (bench_rows::at.asc(), bench_rows::id.asc())
    );
    shape!(
        rows,
        &mut *c,
        &mut shards,
        "DESC `at DESC, id DESC`",
        Desc,
        (bench_rows::at.desc(), bench_rows::id.desc())
    );
    shape!(
        rows,
        &mut *c,
        &mut shards,
        "mixed `score DESC, id ASC`",
        Mixed,
        (bench_rows::score.desc(), bench_rows::id.asc())
    );
    for (d, form, sent) in &rows {
        eprintln!(
            "[spider] {} {form}: first {}, deep {}, sent {}",
            d.shape,
            ms(d.first),
            ms(d.deep),
            per_shard(sent)
        );
    }
    let text = render(&rows, &load, started.elapsed());
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../reports/PERFORMANCE.md");
    let doc = std::fs::read_to_string(&path).unwrap_or_default();
    std::fs::write(&path, section::SPIDER.replace(&doc, &text)).expect("write PERFORMANCE.md");
    eprintln!("[spider] wrote section 4f of {}", path.display());
}
