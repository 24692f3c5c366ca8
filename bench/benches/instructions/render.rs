//! Section 2a of `reports/PERFORMANCE.md`: the counts as tables, with the text that says how
//! they were taken.

use std::fmt::Write as _;
use std::process::Command;

use crate::counts::{Counted, DepthCount};
use crate::numbers::group;
use crate::{section, DEPTH, PAGE, PAGES, ROWS, SQLITE_DEPTHS, WARM_UP};

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

/// The target of this section: the library within 3% of the same statement prepared by hand.
const TARGET: f64 = 1.03;

pub fn render(
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
