//! The library's own cost in CPU instructions: the same later page read `PAGES` times with
//! `load_page` and with the same SQL text and binds prepared by hand, counted by valgrind's
//! callgrind (deterministic for the same binary and inputs, whatever the machine's load).
//! Writes section 2a of `reports/PERFORMANCE.md` in place.
//!
//! `bash scripts/bench.sh instructions` (or `cargo bench -p keyset-bench --bench
//! instructions`): loads a small table per backend (PostgreSQL schema `keyset_instr`, MariaDB
//! database `keyset_instr`, SQLite file `<target>/keyset-bench/instructions.sqlite3`), then
//! runs this same binary (`case <backend> <shape> <form>`) for each backend, shape, form and
//! side under `valgrind --tool=callgrind --toggle-collect=*measured_<side>*`, and reads the
//! inclusive count of the side's loop with `callgrind_annotate`. For SQLite it also counts the
//! library's first page and its page at depth 1,000,000 on section 1's data file
//! (`depth <shape> <depth>`; SQLite runs in the process, so the count holds its index reads).
//! `KEYSET_BENCH_BACKENDS=sqlite,postgres` runs a subset.

#[allow(dead_code)]
#[path = "../pagination/data.rs"]
mod data;
#[path = "../pagination/dirs.rs"]
mod dirs;
#[allow(dead_code, unused_imports)]
#[path = "../pagination/handwritten.rs"]
mod handwritten;
#[path = "../pagination/numbers.rs"]
mod numbers;
#[allow(dead_code)] // LongTies is not measured here.
#[path = "../pagination/schema.rs"]
mod schema;
#[path = "../pagination/section.rs"]
mod section;

/// The models of `schema` with their index declared (`#[keyset(index = "..")]`): a page of
/// theirs names it, and on MySQL/MariaDB its default form is the direct one.
mod declared {
    use crate::schema::bench_rows;
    use chrono::NaiveDateTime;
    use diesel::prelude::*;
    use keyset_diesel::Keyset;

    /// `at ASC, id ASC` on `bench_rows_tenant_at_id`.
    #[derive(Debug, Clone, PartialEq, Queryable, Selectable, QueryableByName, Keyset)]
    #[diesel(table_name = bench_rows)]
    #[keyset(index = "bench_rows_tenant_at_id")]
    pub struct Asc {
        pub tenant: i32,
        #[keyset(asc)]
        pub at: NaiveDateTime,
        #[keyset(asc, unique)]
        pub id: i64,
        pub score: i32,
        pub grade: i32,
        pub payload: String,
    }

    /// `at DESC, id DESC` on the same index, read backward.
    #[derive(Debug, Clone, PartialEq, Queryable, Selectable, QueryableByName, Keyset)]
    #[diesel(table_name = bench_rows)]
    #[keyset(index = "bench_rows_tenant_at_id")]
    pub struct Desc {
        pub tenant: i32,
        #[keyset(desc)]
        pub at: NaiveDateTime,
        #[keyset(desc, unique)]
        pub id: i64,
        pub score: i32,
        pub grade: i32,
        pub payload: String,
    }

    /// `score DESC, id ASC` on `bench_rows_tenant_score_id`.
    #[derive(Debug, Clone, PartialEq, Queryable, Selectable, QueryableByName, Keyset)]
    #[diesel(table_name = bench_rows)]
    #[keyset(index = "bench_rows_tenant_score_id")]
    pub struct Mixed {
        pub tenant: i32,
        pub at: NaiveDateTime,
        #[keyset(desc)]
        pub score: i32,
        #[keyset(asc, unique)]
        pub id: i64,
        pub grade: i32,
        pub payload: String,
    }
}

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use diesel::connection::SimpleConnection;
use diesel::prelude::*;

use crate::numbers::group;

/// Rows per page.
const PAGE: u32 = 20;
/// Pages counted per side (each side reads the same page this many times).
const PAGES: u32 = 200;
/// Uncounted reads per side first: both statements are prepared and cached before counting.
const WARM_UP: u32 = 3;
/// Rows in the small table (tenant 1 gets 4,000 of them).
const ROWS: i64 = 5_200;
const TENANT: i32 = 1;
/// The measured page is the one after the row at this depth of tenant 1 (a later page).
const DEPTH: i64 = 2_000;
const VERSION: &str = "keyset-bench instructions data v1: 5200 rows, tenants 1-4 (10:1:1:1)";
/// The loops callgrind counts (`--toggle-collect`), by side.
const SIDES: [&str; 3] = ["measured_library", "measured_prepared", "measured_by_name"];

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

fn postgres() -> PgConnection {
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

fn mysql() -> MysqlConnection {
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

fn sqlite() -> SqliteConnection {
    SqliteConnection::establish(&sqlite_path().to_string_lossy()).expect("SQLite file")
}

/// Loads the small table unless it is there and complete.
fn prepare<C>(name: &str, conn: &mut C, fill: fn(&mut C, i64, &str) -> QueryResult<()>)
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

/// The counted loops: one page read `pages` times by `page`, each page kept from the optimizer
/// (`black_box`); returns the rows read (`rows` of each page). Three functions, so that
/// callgrind counts each side on its own.
#[inline(never)]
fn measured_library<R, F: FnMut() -> R>(pages: u32, page: &mut F, rows: fn(&R) -> usize) -> usize {
    (0..pages)
        .map(|_| rows(&std::hint::black_box(page())))
        .sum()
}

#[inline(never)]
fn measured_prepared<R, F: FnMut() -> R>(pages: u32, page: &mut F, rows: fn(&R) -> usize) -> usize {
    (0..pages)
        .map(|_| rows(&std::hint::black_box(page())))
        .sum()
}

#[inline(never)]
fn measured_by_name<R, F: FnMut() -> R>(pages: u32, page: &mut F, rows: fn(&R) -> usize) -> usize {
    (0..pages)
        .map(|_| rows(&std::hint::black_box(page())))
        .sum()
}

/// A counted loop: [`measured_library`] or another.
type Measured<R, F> = fn(u32, &mut F, fn(&R) -> usize) -> usize;

/// `page` read [`WARM_UP`] times uncounted (its statement prepared and cached), then
/// [`PAGES`] times by the counted loop `measured`, every read a full page.
fn counted<R, F: FnMut() -> R>(mut page: F, rows: fn(&R) -> usize, measured: Measured<R, F>) {
    for _ in 0..WARM_UP {
        page();
    }
    assert_eq!(measured(PAGES, &mut page, rows), (PAGES * PAGE) as usize);
}

/// One case, run under callgrind: checks that the three sides run the same SQL text with the
/// same binds and read the same rows, warms them up, then runs the counted loops.
macro_rules! case {
    (
        $conn:expr, $db:ty, $model:ty, $order:expr, lead: $lead:ident as $lead_bind:ident,
        same_direction: $same:expr, deferred: $deferred:expr
    ) => {{
        use keyset_diesel::{Cursor, Keyset, KeysetBackend, PaginateDsl};
        use $crate::handwritten::{page_binds, same_statement, seek_binds, Bind};
        use $crate::schema::bench_rows;

        let conn = $conn;
        let deferred: Option<bool> = $deferred;
        let base = || {
            bench_rows::table
                .filter(bench_rows::tenant.eq(TENANT))
                .select(<$model>::as_select())
        };
        let cursor_row: $model = base()
            .order($order)
            .offset(DEPTH - 1)
            .limit(1)
            .get_result(conn)
            .expect("cursor row");
        let want: Vec<$model> = base()
            .order($order)
            .offset(DEPTH)
            .limit(i64::from(PAGE) + 1)
            .load(conn)
            .expect("the page by OFFSET");
        let cursor = Cursor::after_row(&cursor_row);
        let paginated = || {
            let p = base().paginate_after(Some(cursor.clone())).page_size(PAGE);
            match deferred {
                Some(d) => p.deferred_join(d),
                None => p,
            }
        };
        // On MySQL/MariaDB the default later page names the index it learned (the first
        // load looks it up): the hand-written statement is that one, `.force_index(<it>)`.
        let learned: Option<&'static str> = if deferred.is_none()
            && <$db as KeysetBackend>::LEARNS_INDEX
            && <$model as Keyset>::INDEX.is_none()
        {
            paginated().load_page(conn).expect("learn the index");
            let sql = paginated().debug_sql(&*conn).expect("default sql");
            let name = sql
                .split_once("FORCE INDEX (`")
                .and_then(|(_, rest)| rest.split_once('`'))
                .map(|(name, _)| name.to_string())
                .expect("the default page names the index it learned");
            Some(Box::leak(name.into_boxed_str()))
        } else {
            None
        };
        // The library's SQL text and binds, written by hand.
        let query = match learned {
            Some(index) => paginated().force_index(index),
            None => paginated(),
        }
        .into_query::<$db>()
        .expect("page query");
        let seek_form = $crate::handwritten::SeekForm::of::<$db>($same);
        let binds = page_binds::<$db>(
            TENANT,
            seek_binds(Bind::$lead_bind(cursor_row.$lead), cursor_row.id, seek_form),
            i64::from(PAGE) + 1,
            deferred.unwrap_or(
                <$db as KeysetBackend>::DEFERRED_JOIN
                    && <$model as Keyset>::INDEX.is_none()
                    && learned.is_none(),
            ),
        );
        let (debug, by_name) = same_statement::<$db, _>(&query, &binds);
        if learned.is_some() {
            assert_eq!(
                paginated().debug_sql(&*conn).expect("default sql"),
                debug,
                "the default page is the statement written by hand"
            );
        }
        let prepared = by_name
            .clone()
            .typed::<diesel::dsl::AsSelect<$model, $db>>();
        assert_eq!(diesel::debug_query::<$db, _>(&prepared).to_string(), debug);
        // The same rows, and the same page.
        let hand_page = |mut rows: Vec<$model>| {
            let has_more = rows.len() > PAGE as usize;
            rows.truncate(PAGE as usize);
            let next = rows.last().filter(|_| has_more).map(|r| (r.$lead, r.id));
            (rows, has_more, next)
        };
        let library = paginated().load_page(conn).expect("library page");
        let (rows, has_more, next) = hand_page(prepared.clone().load(conn).expect("prepared"));
        assert_eq!(library.items, want[..PAGE as usize]);
        assert_eq!(rows, library.items);
        assert!(has_more && library.has_more());
        let library_next = library.next_cursor().expect("next cursor");
        assert_eq!(Some(library_next), next.map(Cursor::after));
        let (by_name_rows, _, _) = hand_page(by_name.clone().load(conn).expect("by name"));
        assert_eq!(by_name_rows, library.items);
        eprintln!("[instructions] checked: the same SQL, binds and rows: {debug}");

        counted(
            || paginated().load_page(&mut *conn).expect("page"),
            |page| page.items.len(),
            measured_library,
        );
        counted(
            || hand_page(prepared.clone().load(&mut *conn).expect("prepared")),
            |page| page.0.len(),
            measured_prepared,
        );
        counted(
            || hand_page(by_name.clone().load(&mut *conn).expect("by name")),
            |page| page.0.len(),
            measured_by_name,
        );
    }};
}

/// The shapes of one backend (`$form`: `default`; `direct` for the form without the
/// deferred join, chosen with `.deferred_join(false)`; `deferred` for the deferred join,
/// `.deferred_join(true)`; `declared` for the models that declare
/// their index, whose default form on MySQL/MariaDB is the direct one naming it).
macro_rules! shapes {
    ($conn:expr, $db:ty, $shape:expr, $form:expr) => {{
        match $form {
            "default" => shapes!(@models $conn, $db, $shape, None, schema),
            "direct" => shapes!(@models $conn, $db, $shape, Some(false), schema),
            "deferred" => shapes!(@models $conn, $db, $shape, Some(true), schema),
            "declared" => shapes!(@models $conn, $db, $shape, None, declared),
            other => panic!("unknown form {other}"),
        }
    }};
    (@models $conn:expr, $db:ty, $shape:expr, $deferred:expr, $models:ident) => {{
        use $crate::$models::{Asc, Desc, Mixed};
        let deferred: Option<bool> = $deferred;
        match $shape {
            "asc" => case!($conn, $db, Asc, (bench_rows::at.asc(), bench_rows::id.asc()),
                lead: at as Ts, same_direction: true, deferred: deferred),
            "desc" => case!($conn, $db, Desc, (bench_rows::at.desc(), bench_rows::id.desc()),
                lead: at as Ts, same_direction: true, deferred: deferred),
            "mixed" => case!($conn, $db, Mixed, (bench_rows::score.desc(), bench_rows::id.asc()),
                lead: score as Int, same_direction: false, deferred: deferred),
            other => panic!("unknown shape {other}"),
        }
    }};
}

/// SQLite's deep page against its first page, counted: the library's page at `$depth` (0: the
/// first page) of section 1's big tenant, checked against the same page by OFFSET, then read
/// by the counted loop [`measured_library`].
macro_rules! depth_case {
    ($conn:expr, $model:ty, $order:expr, $depth:expr, per_level: $per_level:expr) => {{
        use keyset_diesel::{Cursor, PaginateDsl};
        use $crate::schema::bench_rows;

        let conn = $conn;
        let depth: i64 = $depth;
        let base = || {
            bench_rows::table
                .filter(bench_rows::tenant.eq(data::BIG_TENANT))
                .select(<$model>::as_select())
        };
        let cursor = if depth == 0 {
            None
        } else {
            let row: $model = base()
                .order($order)
                .offset(depth - 1)
                .limit(1)
                .get_result(conn)
                .expect("cursor row");
            Some(Cursor::after_row(&row))
        };
        let want: Vec<$model> = base()
            .order($order)
            .offset(depth)
            .limit(i64::from(PAGE))
            .load(conn)
            .expect("the page by OFFSET");
        let per_level: bool = $per_level;
        let page = base()
            .paginate_after(cursor.clone())
            .page_size(PAGE)
            .seek_per_level(per_level)
            .load_page(conn)
            .expect("library page");
        assert_eq!(
            page.items, want,
            "the page at depth {depth} is the OFFSET page"
        );
        assert!(page.has_more());
        counted(
            || {
                base()
                    .paginate_after(cursor.clone())
                    .page_size(PAGE)
                    .seek_per_level(per_level)
                    .load_page(&mut *conn)
                    .expect("page")
            },
            |page| page.items.len(),
            measured_library,
        );
    }};
}

/// The data file of section 1 (`<target>/keyset-bench/bench.sqlite3`), loaded unless complete.
fn sqlite_big() -> SqliteConnection {
    let path = dirs::bench_dir().join("bench.sqlite3");
    SqliteConnection::establish(&path.to_string_lossy()).expect("SQLite file")
}

fn run_depth(shape: &str, depth: i64) {
    use crate::schema::{Asc, Desc, LongTies, Mixed};
    let conn = &mut sqlite_big();
    assert!(data::is_complete(conn), "section 1's SQLite data set");
    match shape {
        "asc" => depth_case!(
            conn,
            Asc,
            (bench_rows::at.asc(), bench_rows::id.asc()),
            depth,
            per_level: false
        ),
        "desc" => depth_case!(
            conn,
            Desc,
            (bench_rows::at.desc(), bench_rows::id.desc()),
            depth,
            per_level: false
        ),
        "mixed" => depth_case!(
            conn,
            Mixed,
            (bench_rows::score.desc(), bench_rows::id.asc()),
            depth,
            per_level: false
        ),
        "long_ties" | "long_ties_per_level" => depth_case!(
            conn,
            LongTies,
            (bench_rows::grade.desc(), bench_rows::id.asc()),
            depth,
            per_level: shape == "long_ties_per_level"
        ),
        other => panic!("unknown shape {other}"),
    }
}

/// The depths of SQLite's counted deep page: the first page and section 1's deepest page.
const SQLITE_DEPTHS: [i64; 2] = [0, 1_000_000];

/// SQLite's first and deep page of one shape, counted: instructions per page at each of
/// [`SQLITE_DEPTHS`].
struct DepthCount {
    shape: &'static str,
    /// On section 1's file, which `ANALYZE` gave `sqlite_stat4` rows.
    per_page: [f64; 2],
    /// On a copy of it without `sqlite_stat4` rows.
    without_stat4: [f64; 2],
}

/// A copy of section 1's SQLite file without `sqlite_stat4` rows (SQLite then plans a cached
/// page once), in `<bench dir>/without-stat4/`: the directory to give the case as
/// `KEYSET_BENCH_DIR`.
fn sqlite_without_stat4() -> PathBuf {
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

fn run_case(backend: &str, shape: &str, form: &str) {
    match backend {
        "postgres" => shapes!(&mut postgres(), diesel::pg::Pg, shape, form),
        "sqlite" => shapes!(&mut sqlite(), diesel::sqlite::Sqlite, shape, form),
        "mysql" => shapes!(&mut mysql(), diesel::mysql::Mysql, shape, form),
        other => panic!("unknown backend {other}: use postgres, sqlite, mysql"),
    }
}

/// One side of one case, counted once: the loop's instructions, and those of them that built
/// the statement's SQL text (Diesel's statement cache key).
#[derive(Clone, Copy)]
struct Count {
    total: u64,
    sql_text: u64,
}

/// One measured case: each side ([`SIDES`]) counted in each run.
struct Counted {
    backend: &'static str,
    shape: &'static str,
    form: &'static str,
    runs: Vec<[Count; 3]>,
}

impl Counted {
    /// Instructions per page of `side` (first run), in all and for the SQL text.
    fn per_page(&self, side: usize) -> (f64, f64) {
        let c = self.runs[0][side];
        let pages = f64::from(PAGES);
        (c.total as f64 / pages, c.sql_text as f64 / pages)
    }
}

/// Diesel's function that writes a statement's SQL text for the statement cache key (a query
/// without a static query id, as the library's and the hand-written ones).
const SQL_TEXT: &str = "QueryFragmentForCachedStatement<DB>>::construct_sql";

/// The inclusive instruction count of the loop `side` and of the SQL text written inside it,
/// from a callgrind output file that counted only that loop.
fn read_count(out: &Path, side: &str) -> Count {
    let annotated = Command::new("callgrind_annotate")
        .args(["--inclusive=yes", "--threshold=100"])
        .arg(out)
        .output()
        .expect("run callgrind_annotate");
    assert!(annotated.status.success(), "callgrind_annotate failed");
    let text = String::from_utf8_lossy(&annotated.stdout);
    let count = |name: &str| -> Vec<u64> {
        text.lines()
            .filter(|l| l.contains(name))
            .filter_map(|l| l.split_whitespace().next()?.replace(',', "").parse().ok())
            .collect()
    };
    let total = count(&format!("::{side} ["));
    assert_eq!(
        total.len(),
        1,
        "one line for {side} in callgrind_annotate's output of {}",
        out.display()
    );
    Count {
        total: total[0],
        sql_text: count(SQL_TEXT).into_iter().sum(),
    }
}

fn valgrind_version() -> String {
    Command::new("valgrind")
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .expect("valgrind is not installed: run `bash scripts/setup.sh`")
}

fn rustc_version() -> String {
    Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string()))
        .arg("-V")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".to_string())
}

fn backend_title(name: &str) -> &'static str {
    match name {
        "postgres" => "PostgreSQL",
        "sqlite" => "SQLite",
        _ => "MariaDB",
    }
}

fn shape_title(shape: &str) -> &'static str {
    match shape {
        "asc" => "ASC `at, id`",
        "desc" => "DESC `at DESC, id DESC`",
        "long_ties" => "mixed, long ties `grade DESC, id ASC`",
        "long_ties_per_level" => "mixed, long ties, `.seek_per_level(true)`",
        _ => "mixed `score DESC, id ASC`",
    }
}

/// The target of issue 16: the library within 3% of the same statement prepared by hand.
const TARGET: f64 = 1.03;

fn render(
    counted: &[Counted],
    depths: &[DepthCount],
    valgrind: &str,
    took_s: f64,
    runs: usize,
) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{}", section::INSTRUCTIONS.start);
    let _ = writeln!(
        s,
        "## 2a. The library's own cost in CPU instructions per page\n"
    );
    let _ = writeln!(
        s,
        "Written by `bash scripts/bench.sh instructions` (`cargo bench -p keyset-bench --bench \
         instructions`) on {} UTC, with {valgrind} and {}; the measurement took {:.1} minutes. \
         Instruction counts do not depend on the machine's load: the same binary with the \
         same inputs counts the same (each case was counted {runs} time{}: {}).\n",
        chrono::Utc::now().format("%Y-%m-%d %H:%M"),
        rustc_version(),
        took_s / 60.0,
        if runs == 1 { "" } else { "s" },
        spread(counted, runs),
    );
    let _ = writeln!(
        s,
        "Each case reads the page after the row at depth {} of tenant 1 ({PAGE} rows, with a \
         cursor) {PAGES} times with `load_page`, then {PAGES} times with the same SQL text and \
         binds prepared by hand, on a small table of the benchmark's kind ({} rows; \
         PostgreSQL schema and MariaDB database `keyset_instr`, SQLite file \
         `<target>/keyset-bench/instructions.sqlite3`), after {WARM_UP} uncounted reads per \
         side so that Diesel has prepared and cached both statements. Before counting, the run \
         checks that the hand-written statements have exactly the library's SQL text and \
         binds and read the same rows and page. `valgrind --tool=callgrind` counts the \
         instructions of this process inside each side's loop (`--toggle-collect`, read with \
         `callgrind_annotate --inclusive=yes`; a run per side): the client side only, since the PostgreSQL \
         and MariaDB servers are other processes; SQLite runs in the process, so its counts \
         include SQLite's own work, the same on both sides.\n",
        group(DEPTH as u64),
        group(ROWS as u64)
    );
    let _ = writeln!(
        s,
        "`library` builds the query (`.paginate_after(Some(cursor)).page_size({PAGE})`, as \
         an application does at every request) and calls `load_page`: SQL text and statement \
         cache key, binds, row decoding, the page check and the page with its cursors. \
         `prepared` clones a hand-written statement (a `QueryFragment` holding the text and \
         the binds, whose SQL type is the model's select clause, so Diesel decodes its rows by \
         position as it does the library's), loads it and cuts the page by hand (drop the \
         look-ahead row, `has_more`, the last row's key). `by name` is the same statement \
         decoded by column name (`QueryableByName`), the baseline of section 2's `prepared` \
         timings. The target is library / prepared ≤ {TARGET}.\n"
    );
    let _ = writeln!(
        s,
        "| backend | shape | form | library | prepared | library / prepared | target ≤ {TARGET} | by name | library / by name | SQL text: library | SQL text: prepared | library / prepared without SQL text |"
    );
    let _ = writeln!(
        s,
        "|---|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|"
    );
    let mut sql_share: Vec<f64> = Vec::new();
    for c in counted {
        let ((l, l_sql), (p, p_sql), (n, _)) = (c.per_page(0), c.per_page(1), c.per_page(2));
        if l > p && l_sql > p_sql {
            sql_share.push((l_sql - p_sql) / (l - p));
        }
        let form = match (c.backend, c.form) {
            ("mysql", "default") => "the index it learned (default)",
            ("mysql", "direct") => "direct (`.deferred_join(false)`)",
            ("mysql", "deferred") => "deferred join (`.deferred_join(true)`)",
            ("mysql", _) => "direct, index declared (default)",
            _ => "default",
        };
        let count = |v: f64| group(v.round() as u64);
        let _ = writeln!(
            s,
            "| {} | {} | {form} | {} | {} | {:.3} | {} | {} | {:.3} | {} | {} | {:.3} |",
            backend_title(c.backend),
            shape_title(c.shape),
            count(l),
            count(p),
            l / p,
            if l / p <= TARGET { "met" } else { "**missed**" },
            count(n),
            l / n,
            count(l_sql),
            count(p_sql),
            (l - l_sql) / (p - p_sql)
        );
    }
    let _ = writeln!(
        s,
        "\nInstructions per page: the loop's inclusive count over {PAGES}; each side is \
         counted in a run of its own (`--toggle-collect=*measured_<side>*`). \"SQL text\" is \
         the part spent in Diesel's `construct_sql`. Diesel finds a cached statement by the \
         query's type when the type has a static query id, and otherwise by its SQL text, \
         which it then writes at every call just to look the statement up. A page in the \
         backend's default form (the first or a later page, either way; no `until`, total \
         count or `seek_per_level`; one statement; a cursor without NULLs; a query \
         whose own id is static, as an unboxed one) loads with a static id made of the \
         query's type, the keyset and the page's shape, so a cached page writes no SQL text \
         (0 in the table), except on PostgreSQL a page of up to 100 rows: its `LIMIT` is a \
         number in its text, so that PostgreSQL keeps one generic plan for it instead of \
         planning it at every page (server-side work these counts do not see; [the SQL guide](../keyset-diesel/src/guide/sql.md), \
         \"PostgreSQL: a page planned once\"), and it is found by its text, which the library \
         writes once per thread and query type, shape and page size and then pushes whole \
         (the library's SQL text in the PostgreSQL rows). Other pages (here MariaDB's \
         `.deferred_join(false)` and `.deferred_join(true)`, forms its keyset does not default \
         to, and its default page naming the index it learned, a name read at run time, which \
         the page's type cannot fix) are found by their text in the same way, written once \
         per thread; the hand-written statement pushes its stored pieces. Beyond the text, \
         Diesel asks a statement at every load for its binds, their count and whether it may \
         be cached, each a walk of it; the library keeps the count and the flag with the \
         text, and walks the page once, for its binds: through your query's select list and \
         `WHERE`, the seek predicate and `ORDER BY`, where the hand-written statement pushes \
         its stored text and binds."
    );
    if let (Some(lo), Some(hi)) = (
        sql_share.iter().copied().reduce(f64::min),
        sql_share.iter().copied().reduce(f64::max),
    ) {
        let _ = writeln!(
            s,
            "\nOf the library's extra instructions per page, where the library writes more SQL \
             text than the hand-written statement, {:.0}% to {:.0}% (by case) are that text.",
            lo * 100.0,
            hi * 100.0
        );
    }
    if !depths.is_empty() {
        let _ = writeln!(
            s,
            "\n### SQLite's deep page, counted\n\nSQLite runs inside this process, so \
             callgrind counts its own work as well: the descent of the index to the cursor, \
             the index entries and rows read (the ties before the cursor included), the \
             decoding. The library's page (`load_page`, {PAGE} rows and the look-ahead row) \
             of section 1's big tenant, on section 1's data file \
             (`<target>/keyset-bench/bench.sqlite3`), first page and after the row at depth \
             {}, checked against the OFFSET page and then read {PAGES} times after {WARM_UP} \
             uncounted reads. Unlike section 1's timings this ratio does not move with the \
             machine's load: where it stays near 1 the page does the same work at every \
             depth, and a deep / first timing ratio of section 1 above it is the machine (the \
             noise floor), not the query. Not counted: the kernel's work, such as reading a \
             database page that SQLite's own cache (`cache_size` -2000, about 2 MB) does not \
             hold; a repeated page finds its pages there.\n\nThe file was analyzed \
             (`ANALYZE`), which wrote histogram samples (`sqlite_stat4`): SQLite then plans a \
             statement for the values bound to bare parameters compared with indexed columns \
             (here your filter's `tenant = ?`; the crate writes its own cursor values and \
             `LIMIT` as `+?`, which SQLite does not read while planning) and plans it again \
             whenever they are bound anew, at every page ([the SQL guide](../keyset-diesel/src/guide/sql.md), \"SQLite: a \
             cached statement that is planned again\"); a later page's statement, with its \
             seek terms (and a union's second `SELECT`, which filters `tenant = ?` too), costs \
             more to plan than the first page's. The last three columns count the same pages on a copy of the file \
             without `sqlite_stat4` rows, where a cached page is planned once.\n",
            group(SQLITE_DEPTHS[1] as u64)
        );
        let _ = writeln!(
            s,
            "| shape | first page | page at depth {0} | deep / first | first page, no `sqlite_stat4` | page at depth {0}, no `sqlite_stat4` | deep / first, no `sqlite_stat4` |\n|---|---:|---:|---:|---:|---:|---:|",
            group(SQLITE_DEPTHS[1] as u64)
        );
        for d in depths {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {:.3} | {} | {} | {:.3} |",
                shape_title(d.shape),
                group(d.per_page[0].round() as u64),
                group(d.per_page[1].round() as u64),
                d.per_page[1] / d.per_page[0],
                group(d.without_stat4[0].round() as u64),
                group(d.without_stat4[1].round() as u64),
                d.without_stat4[1] / d.without_stat4[0]
            );
        }
    }
    let _ = writeln!(
        s,
        "\nThe callgrind output files stay in `<target>/keyset-bench/instructions/` for \
         `callgrind_annotate` (per-function profiles)."
    );
    let _ = write!(s, "{}", section::INSTRUCTIONS.end);
    s
}

/// How far the repeated counts of a case differ, at most.
fn spread(counted: &[Counted], runs: usize) -> String {
    if runs < 2 {
        return "run with `KEYSET_BENCH_INSTR_RUNS=2` to see it repeat".to_string();
    }
    let worst = counted
        .iter()
        .flat_map(|c| {
            (0..3).map(move |side| {
                let all: Vec<u64> = c.runs.iter().map(|r| r[side].total).collect();
                let (lo, hi) = (all.iter().min().unwrap(), all.iter().max().unwrap());
                (hi - lo) as f64 / *lo as f64
            })
        })
        .fold(0.0, f64::max);
    format!(
        "the counts of the same loop differed by at most {:.4}%",
        worst * 100.0
    )
}

fn drive() {
    let started = Instant::now();
    let valgrind = valgrind_version();
    let selected = std::env::var("KEYSET_BENCH_BACKENDS")
        .unwrap_or_else(|_| "postgres,sqlite,mysql".to_string());
    let runs: usize = std::env::var("KEYSET_BENCH_INSTR_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
        .max(1);
    let out_dir = dirs::bench_dir().join("instructions");
    std::fs::create_dir_all(&out_dir).expect("instructions directory");
    let exe = std::env::current_exe().expect("this binary");
    let mut counted = Vec::new();
    for backend in ["postgres", "sqlite", "mysql"] {
        if !selected.split(',').any(|b| b.trim() == backend) {
            continue;
        }
        match backend {
            "postgres" => prepare(backend, &mut postgres(), data::fill_postgres),
            "sqlite" => prepare(backend, &mut sqlite(), data::fill_sqlite),
            _ => prepare(backend, &mut mysql(), data::fill_mysql),
        }
        let forms: &[&'static str] = if backend == "mysql" {
            &["default", "direct", "deferred", "declared"]
        } else {
            &["default"]
        };
        for shape in ["asc", "desc", "mixed"] {
            for &form in forms {
                let mut case = Counted {
                    backend,
                    shape,
                    form,
                    runs: Vec::new(),
                };
                for run in 0..runs {
                    let case_started = Instant::now();
                    let counts = SIDES.map(|side| {
                        let out = out_dir
                            .join(format!("{backend}-{shape}-{form}-{side}-{run}.callgrind"));
                        let status = Command::new("valgrind")
                            .args(["--tool=callgrind", "--quiet"])
                            .arg(format!("--toggle-collect=*{side}*"))
                            .arg(format!("--callgrind-out-file={}", out.display()))
                            .arg(&exe)
                            .args(["case", backend, shape, form])
                            .status()
                            .expect("run valgrind");
                        assert!(
                            status.success(),
                            "{backend} {shape} {form}: the case failed"
                        );
                        read_count(&out, side)
                    });
                    eprintln!(
                        "[instructions] {backend} {shape} {form}: per page library {} (SQL text {}), prepared {} (SQL text {}), by name {} ({:.1?})",
                        counts[0].total / u64::from(PAGES),
                        counts[0].sql_text / u64::from(PAGES),
                        counts[1].total / u64::from(PAGES),
                        counts[1].sql_text / u64::from(PAGES),
                        counts[2].total / u64::from(PAGES),
                        case_started.elapsed()
                    );
                    case.runs.push(counts);
                }
                counted.push(case);
            }
        }
    }
    let mut depths = Vec::new();
    if selected.split(',').any(|b| b.trim() == "sqlite") {
        let mut conn = sqlite_big();
        if !data::is_complete(&mut conn) {
            eprintln!(
                "[instructions] sqlite: loading section 1's data set ({} rows)",
                data::ROWS
            );
            data::load_sqlite(&mut conn).expect("load the SQLite data set");
            assert!(data::is_complete(&mut conn));
        }
        drop(conn);
        let copy = sqlite_without_stat4();
        for shape in ["asc", "desc", "mixed", "long_ties", "long_ties_per_level"] {
            let count = |dir: Option<&Path>, depth: i64| {
                let name = if dir.is_some() { "-without-stat4" } else { "" };
                let out = out_dir.join(format!("sqlite-{shape}-depth-{depth}{name}.callgrind"));
                let mut command = Command::new("valgrind");
                command
                    .args(["--tool=callgrind", "--quiet"])
                    .arg(format!("--toggle-collect=*{}*", SIDES[0]))
                    .arg(format!("--callgrind-out-file={}", out.display()))
                    .arg(&exe)
                    .args(["depth", shape, &depth.to_string()]);
                if let Some(dir) = dir {
                    command.env("KEYSET_BENCH_DIR", dir);
                }
                let status = command.status().expect("run valgrind");
                assert!(
                    status.success(),
                    "sqlite {shape} at depth {depth}{name}: the case failed"
                );
                read_count(&out, SIDES[0]).total as f64 / f64::from(PAGES)
            };
            let per_page = SQLITE_DEPTHS.map(|depth| count(None, depth));
            let without_stat4 = SQLITE_DEPTHS.map(|depth| count(Some(&copy), depth));
            eprintln!(
                "[instructions] sqlite {shape}: per page at depth 0 {:.0}, at depth {} {:.0}; \
                 without sqlite_stat4 {:.0} and {:.0}",
                per_page[0], SQLITE_DEPTHS[1], per_page[1], without_stat4[0], without_stat4[1]
            );
            depths.push(DepthCount {
                shape,
                per_page,
                without_stat4,
            });
        }
        std::fs::remove_dir_all(&copy).expect("remove the copy");
    }
    let section = render(
        &counted,
        &depths,
        &valgrind,
        started.elapsed().as_secs_f64(),
        runs,
    );
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../reports/PERFORMANCE.md");
    let doc = std::fs::read_to_string(&path).unwrap_or_else(|_| "# Performance\n".to_string());
    std::fs::write(&path, section::INSTRUCTIONS.replace(&doc, &section))
        .expect("write reports/PERFORMANCE.md");
    eprintln!(
        "[instructions] wrote section 2a of {} in {:.1?}",
        path.display(),
        started.elapsed()
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("case") => run_case(&args[1], &args[2], &args[3]),
        Some("depth") => run_depth(&args[1], args[2].parse().expect("a depth")),
        _ => drive(),
    }
}
