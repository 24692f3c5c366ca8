//! The run itself: each case and side started under `valgrind --tool=callgrind`, its
//! count read back with `callgrind_annotate`, then section 2a written in place.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::connect::{mysql, postgres, prepare, sqlite, sqlite_big, sqlite_without_stat4};
use crate::counts::{Count, Counted, DepthCount};
use crate::render::render;
use crate::{data, dirs, section, PAGES, SIDES, SQLITE_DEPTHS};

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

pub fn drive() {
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
