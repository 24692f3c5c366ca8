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
//!
//! The files: `cases.rs` (what runs under callgrind: the counted loops and the cases),
//! `drive.rs` (the run that starts valgrind for each case and reads its counts, kept as
//! `counts.rs` says), `render.rs`
//! (section 2a), `connect.rs` (connections and the small table), `declared.rs` (models that
//! declare their index).

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

mod cases;
mod connect;
mod counts;
mod declared;
mod drive;
mod render;

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

/// The depths of SQLite's counted deep page: the first page and section 1's deepest page.
const SQLITE_DEPTHS: [i64; 2] = [0, 1_000_000];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("case") => cases::run_case(&args[1], &args[2], &args[3]),
        Some("depth") => cases::run_depth(&args[1], args[2].parse().expect("a depth")),
        _ => drive::drive(),
    }
}
