//! Section 2b of `reports/PERFORMANCE.md`: a nullable key column paged deep against its first
//! page, on PostgreSQL, SQLite and MariaDB.
//!
//! One table per backend, `nullable_rows (id, score NULL, payload)`, 200,000 rows: `score` is
//! NULL on every tenth row and otherwise `id * 7919 % 200` (900 rows per value), indexed
//! `(score, id)`. The keyset is `score ASC NULLS LAST, id ASC`. The deep page follows the row
//! at depth 90,450, half-way into the tie group of its score (450 rows of the group before the
//! cursor), so a seek that bounds only `score` reads and drops those 450 rows. Three reads are
//! timed, interleaved (one of each per round, 300 rounds after 20 uncounted ones), medians:
//! the first page, the deep page in the default form, and the deep page with
//! `.expanded_seek(true)`, which writes the values arm column by column as the crate did before
//! (`score >= $1 AND (score > $1 OR (score = $1 AND id > $2))`; on SQLite the default's arms,
//! one per column, already compare column by column). Every page is checked equal to
//! the rows `ORDER BY .. LIMIT 20 OFFSET ..` reads first. SQLite reads two files, `id INTEGER
//! PRIMARY KEY` (the rowid) and `id BIGINT PRIMARY KEY`, each analyzed and then again without
//! its `sqlite_stat4` rows.
//!
//! `cargo bench -p keyset-bench --bench nullable` (or `bash scripts/bench.sh nullable`;
//! `KEYSET_BENCH_BACKENDS=postgres,sqlite` for a subset). Rewrites section 2b in place.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use keyset_diesel::{Cursor, PaginateDsl};

#[path = "pagination/section.rs"]
mod section;

const ROWS: i64 = 200_000;
const PAGE: u32 = 20;
const DEPTH: i64 = 90_450;
const ROUNDS: usize = 300;
const WARM_UP: usize = 20;
/// The goal for a nullable key: deep page / first page at most this.
const TARGET: f64 = 1.2;

diesel::table! {
    nullable_rows (id) {
        id -> BigInt,
        score -> Nullable<Integer>,
        payload -> Text,
    }
}

#[derive(Debug, Clone, Queryable, Selectable, keyset_diesel::Keyset)]
#[diesel(table_name = nullable_rows)]
struct Nullable {
    #[keyset(asc, nulls_last)]
    score: Option<i32>,
    #[keyset(asc, unique)]
    id: i64,
    #[allow(dead_code)] // read, as a page's rows are
    payload: String,
}

fn wanted(backend: &str) -> bool {
    std::env::var("KEYSET_BENCH_BACKENDS").map_or(true, |v| v.split(',').any(|b| b == backend))
}

/// `CREATE TABLE`, the rows and the index, as one script for `batch_execute`.
fn load_script(bigint: &str, analyze: &str) -> String {
    let mut sql = format!(
        "DROP TABLE IF EXISTS nullable_rows; \
         CREATE TABLE nullable_rows (id {bigint} PRIMARY KEY, score INTEGER NULL, payload TEXT NOT NULL);"
    );
    for chunk in (1..=ROWS).collect::<Vec<_>>().chunks(2_000) {
        sql.push_str("INSERT INTO nullable_rows (id, score, payload) VALUES ");
        let values: Vec<String> = chunk
            .iter()
            .map(|id| {
                let score = if id % 10 == 0 {
                    "NULL".to_string()
                } else {
                    ((id * 7919) % 200).to_string()
                };
                format!("({id}, {score}, 'row {id} of the nullable benchmark, about eighty characters long')")
            })
            .collect();
        sql.push_str(&values.join(", "));
        sql.push(';');
    }
    sql.push_str("CREATE INDEX nullable_rows_score_id ON nullable_rows (score, id);");
    sql.push_str(analyze);
    sql
}

/// The row label of a SQLite file whose `id` is declared `id_type PRIMARY KEY`.
fn sqlite_label(id_type: &str, rest: &str) -> String {
    format!("SQLite, `id {id_type} PRIMARY KEY`{rest}")
}

/// Medians of one backend's three reads, in seconds.
struct Measured {
    backend: String,
    first: f64,
    deep: f64,
    deep_expanded: f64,
    /// The deep page's rows read as one index range (`score = ? AND id > ?`), no union.
    range: f64,
}

fn median(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v[v.len() / 2].as_secs_f64()
}

macro_rules! measure {
    ($backend:expr, $conn:expr, $order_sql:expr) => {{
        let conn = $conn;
        let ids = |conn: &mut _, offset: i64| -> Vec<i64> {
            #[derive(QueryableByName)]
            struct Id {
                #[diesel(sql_type = diesel::sql_types::BigInt)]
                id: i64,
            }
            diesel::sql_query(format!(
                "SELECT id FROM nullable_rows ORDER BY {} LIMIT {PAGE} OFFSET {offset}",
                $order_sql
            ))
            .load::<Id>(conn)
            .expect("oracle")
            .into_iter()
            .map(|r| r.id)
            .collect()
        };
        let cursor_id = ids(conn, DEPTH)[0];
        let row: Nullable = nullable_rows::table
            .find(cursor_id)
            .select(Nullable::as_select())
            .first(conn)
            .expect("cursor row");
        assert!(row.score.is_some(), "a value cursor");
        let cursor = Cursor::after_row(&row);
        let query = || nullable_rows::table.select(Nullable::as_select());
        let first = |conn: &mut _| query().paginate_after(None).page_size(PAGE).load_page(conn);
        let deep = |conn: &mut _| {
            query()
                .paginate_after(Some(cursor.clone()))
                .page_size(PAGE)
                .load_page(conn)
        };
        let deep_expanded = |conn: &mut _| {
            query()
                .paginate_after(Some(cursor.clone()))
                .page_size(PAGE)
                .expanded_seek(true)
                .load_page(conn)
        };
        // The deep page's rows as one index range: the cursor's tie group after the cursor
        // holds more than a page here, so this is the page without a union (the floor).
        let (score, id) = (row.score.expect("a value cursor"), row.id);
        let range = |conn: &mut _| {
            query()
                .filter(nullable_rows::score.eq(score).and(nullable_rows::id.gt(id)))
                .order((nullable_rows::score.asc(), nullable_rows::id.asc()))
                .limit(i64::from(PAGE) + 1)
                .load::<Nullable>(conn)
        };
        let range_ids = range(conn).expect("range").iter().map(|r| r.id).collect::<Vec<_>>();
        assert_eq!(range_ids[..PAGE as usize], ids(conn, DEPTH + 1)[..], "one range");
        let got = |page: diesel::QueryResult<keyset_diesel::Page<Nullable>>| -> Vec<i64> {
            page.expect("page").items.iter().map(|r| r.id).collect()
        };
        assert_eq!(got(first(conn)), ids(conn, 0), "first page");
        assert_eq!(got(deep(conn)), ids(conn, DEPTH + 1), "deep page");
        assert_eq!(
            got(deep_expanded(conn)),
            ids(conn, DEPTH + 1),
            "deep page, expanded"
        );
        let (mut t_first, mut t_deep, mut t_expanded) = (Vec::new(), Vec::new(), Vec::new());
        let mut t_range = Vec::new();
        for round in 0..WARM_UP + ROUNDS {
            let t = Instant::now();
            std::hint::black_box(first(conn).expect("first"));
            let a = t.elapsed();
            let t = Instant::now();
            std::hint::black_box(deep(conn).expect("deep"));
            let b = t.elapsed();
            let t = Instant::now();
            std::hint::black_box(deep_expanded(conn).expect("deep expanded"));
            let c = t.elapsed();
            let t = Instant::now();
            std::hint::black_box(range(conn).expect("range"));
            let d = t.elapsed();
            if round >= WARM_UP {
                t_first.push(a);
                t_deep.push(b);
                t_expanded.push(c);
                t_range.push(d);
            }
        }
        let m = Measured {
            backend: $backend.to_string(),
            first: median(t_first),
            deep: median(t_deep),
            deep_expanded: median(t_expanded),
            range: median(t_range),
        };
        eprintln!(
            "[nullable] {}: first {:.3} ms, deep {:.3} ms ({:.2}), deep expanded {:.3} ms ({:.2}), one range {:.3} ms (deep / range {:.2})",
            m.backend,
            m.first * 1e3,
            m.deep * 1e3,
            m.deep / m.first,
            m.deep_expanded * 1e3,
            m.deep_expanded / m.first,
            m.range * 1e3,
            m.deep / m.range
        );
        m
    }};
}

fn render(rows: &[Measured], took: Duration) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{}", section::NULLABLE.start);
    let _ = writeln!(s, "## 2b. Nullable keys: deep page against first page\n");
    let _ = writeln!(
        s,
        "Written by `bash scripts/bench.sh nullable` (`cargo bench -p keyset-bench --bench \
         nullable`) on {} UTC in {:.1} minutes. One table per backend (two SQLite files), `nullable_rows (id, score, \
         payload)`, {ROWS} rows: `score` is NULL on every tenth row and otherwise `id * 7919 % 200` \
         (900 rows per value), indexed `(score, id)`; keyset `score ASC NULLS LAST, id ASC`, pages \
         of {PAGE}. The deep page follows the row at depth {DEPTH}, a value half-way into its tie \
         group (450 rows of the group before it). A page after a value is two arms in one \
         statement, the values after the cursor and the NULL group ([the SQL guide](../keyset-diesel/src/guide/sql.md), \"Nullable \
         key columns\"). \"default\" writes the values arm as one row value on PostgreSQL, \
         `(score, id) > ($1, $2)`, an index range from the cursor, and on SQLite as one arm per \
         column, `score > ?` and `score = ? AND id > ?`, each an index range from the cursor \
         whether `id` is the rowid or not (see below); \"column by column\" is the same page \
         with `.expanded_seek(true)`: on PostgreSQL `score >= $1 AND (score > $1 OR (score = $1 \
         AND id > $2))`, the form every backend had before, whose index range starts at the \
         cursor's score and filters the 450 rows of its group before the cursor (MariaDB writes \
         that form either way: it has no row-value seek); on SQLite the same arms as the \
         default, which compare column by column already. Medians of {ROUNDS} interleaved rounds \
         (one read of each per round, after {WARM_UP} uncounted rounds); every page was first \
         checked equal to `ORDER BY .. LIMIT {PAGE} OFFSET ..`. Target: deep / first ≤ {TARGET} \
         in the default form. \"The deep page's rows as one range\" reads them with one \
         statement and no union, `score = ? AND id > ? ORDER BY score, id LIMIT {}` through \
         Diesel (the cursor's group holds more than a page after it, so these are the page's \
         rows, checked): the floor of a page after a value cursor, and \"deep / one range\" \
         what the union of arms costs above it.\n",
        chrono::Utc::now().format("%Y-%m-%d %H:%M"),
        took.as_secs_f64() / 60.0,
        PAGE + 1
    );
    let _ = writeln!(
        s,
        "| backend | first page | deep page, default | deep / first | | deep page, column by column | deep / first | the deep page's rows as one range | deep / one range |"
    );
    let _ = writeln!(s, "|---|---:|---:|---:|---|---:|---:|---:|---:|");
    for m in rows {
        let ratio = m.deep / m.first;
        let _ = writeln!(
            s,
            "| {} | {:.3} ms | {:.3} ms | {ratio:.2} | {} | {:.3} ms | {:.2} | {:.3} ms | {:.2} |",
            m.backend,
            m.first * 1e3,
            m.deep * 1e3,
            if ratio <= TARGET { "met" } else { "**missed**" },
            m.deep_expanded * 1e3,
            m.deep_expanded / m.first,
            m.range * 1e3,
            m.deep / m.range
        );
    }
    let _ = writeln!(
        s,
        "\nReading the table: on MariaDB the first page of a `NULLS LAST` keyset is the same \
         two arms as a later page, the values and the NULL group, each read in index order \
         through the index the page names ([the SQL guide](../keyset-diesel/src/guide/sql.md), \"Nullable key columns\"): one \
         statement ordered by the placement term `score IS NULL`, which no index serves, \
         sorted every row of the table before its `LIMIT`. On PostgreSQL the later page reads \
         the values arm's rows and one index entry of the NULL arm (`Merge Append`), and loads \
         its key columns twice (the union's aliases). On SQLite the four rows are two files, \
         each read with and without `sqlite_stat4` rows: the cursor's values are written `+?`, \
         which SQLite does not read while planning, so a cached later page is planned once \
         either way ([the SQL guide](../keyset-diesel/src/guide/sql.md), \"SQLite: a cached statement that is planned again\"). \
         The arms are members of one compound that SQLite merges in index order, with no \
         temporary B-tree ([the SQL guide](../keyset-diesel/src/guide/sql.md), \"SQLite: a union merged in index order\"). \
         SQLite's row-value range does not reach a rowid in an index: with `id INTEGER PRIMARY \
         KEY` a values arm `(score, id) > (?, ?)` would start at the cursor's score and read the \
         rows of its group before the cursor, so SQLite's values are an arm per column, \
         `score = ? AND id > ?` ranged from the cursor on either table. What the later page \
         does beyond the first page is the seeks of three arms (the values after the cursor in \
         its group, the values after its score, the NULL group) and their merge: SQLite runs \
         each member of a compound as a co-routine and compares every row it merges, while \
         the first page is one scan of the index. \"deep / one range\" measures that merge \
         against the same rows read by one range; no single statement reads a value cursor's \
         rest and the NULL group in order (the NULL group is at the far end of the order and \
         at the near end of SQLite's index), so a later page of a `NULLS LAST` key keeps that \
         cost on SQLite."
    );
    let _ = write!(s, "\n{}", section::NULLABLE.end);
    s
}

fn main() {
    // `cargo bench` passes `--bench`; nothing here takes arguments.
    let started = Instant::now();
    let mut rows = Vec::new();
    if wanted("postgres") {
        let url = std::env::var("KEYSET_PG_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_string());
        let mut conn = PgConnection::establish(&url).expect("PostgreSQL");
        conn.batch_execute(&load_script("BIGINT", ""))
            .expect("load");
        // Not inside the implicit transaction of a multi-statement batch.
        conn.batch_execute("VACUUM ANALYZE nullable_rows")
            .expect("analyze");
        rows.push(measure!(
            "PostgreSQL",
            &mut conn,
            "score ASC NULLS LAST, id ASC"
        ));
        conn.batch_execute("DROP TABLE nullable_rows")
            .expect("drop");
    }
    if wanted("sqlite") {
        // `INTEGER PRIMARY KEY` makes `id` the rowid, which SQLite's row-value range does not
        // reach (the page's arms compare it column by column); `BIGINT PRIMARY KEY` is an
        // ordinary column of the index.
        for id_type in ["INTEGER", "BIGINT"] {
            let path = std::env::temp_dir().join(format!(
                "keyset_nullable_bench_{}_{id_type}.sqlite",
                std::process::id()
            ));
            let _ = std::fs::remove_file(&path);
            let mut conn =
                SqliteConnection::establish(&path.display().to_string()).expect("SQLite");
            conn.batch_execute(&load_script(id_type, "ANALYZE;"))
                .expect("load");
            rows.push(measure!(
                sqlite_label(id_type, ""),
                &mut conn,
                "score ASC NULLS LAST, id ASC"
            ));
            // The same file without `sqlite_stat4` rows, read on a new connection: SQLite then
            // plans a cached statement once, not again at every bind of a compared value.
            conn.batch_execute("DELETE FROM sqlite_stat4")
                .expect("drop sqlite_stat4 rows");
            drop(conn);
            let mut conn =
                SqliteConnection::establish(&path.display().to_string()).expect("SQLite");
            rows.push(measure!(
                sqlite_label(id_type, ", no `sqlite_stat4`"),
                &mut conn,
                "score ASC NULLS LAST, id ASC"
            ));
            drop(conn);
            let _ = std::fs::remove_file(path);
        }
    }
    if wanted("mysql") {
        let url = std::env::var("KEYSET_MYSQL_URL")
            .map(|u| format!("{}/test", u.trim_end_matches('/')))
            .unwrap_or_else(|_| "mysql://root@127.0.0.1:3306/test".to_string());
        let mut conn = MysqlConnection::establish(&url).expect("MariaDB");
        conn.batch_execute(&load_script("BIGINT", "ANALYZE TABLE nullable_rows;"))
            .expect("load");
        rows.push(measure!(
            "MariaDB",
            &mut conn,
            "score IS NULL, score ASC, id ASC"
        ));
        conn.batch_execute("DROP TABLE nullable_rows")
            .expect("drop");
    }
    let text = render(&rows, started.elapsed());
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../reports/PERFORMANCE.md");
    let doc = std::fs::read_to_string(&path).unwrap_or_default();
    std::fs::write(&path, section::NULLABLE.replace(&doc, &text))
        .expect("write reports/PERFORMANCE.md");
    eprintln!("[nullable] wrote section 2b of {}", path.display());
}
