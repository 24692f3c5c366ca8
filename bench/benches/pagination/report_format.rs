//! How the report prints its figures and names: times, sizes, backend and shape titles, the
//! machine table and the word for a target's outcome.

use crate::results::WalkForm;

/// A time in nanoseconds, with a unit a reader takes in at a glance.
pub fn time(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.0} ns")
    } else if ns < 1e6 {
        format!("{:.1} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

pub fn bytes(b: u64) -> String {
    if b < 10 * 1024 {
        format!("{b} B")
    } else if b < 10 * 1024 * 1024 {
        format!("{:.0} KiB", b as f64 / 1024.0)
    } else {
        format!("{:.1} MiB", b as f64 / 1024.0 / 1024.0)
    }
}

pub fn walk_form(backend: &str, form: WalkForm) -> &'static str {
    match (backend, form) {
        ("mysql", WalkForm::Keyset) => "keyset (default: the index it learned)",
        (_, WalkForm::Keyset) => "keyset",
        (_, WalkForm::Direct) => "keyset, deferred join",
        (_, WalkForm::Forced) => "keyset, `.force_index(..)`",
        (_, WalkForm::Offset) => "OFFSET",
    }
}

/// A counter over the pages of a walk, one decimal.
pub fn per_page(count: Option<u64>, pages: u64) -> String {
    match count {
        Some(c) if pages > 0 => format!("{:.1}", c as f64 / pages as f64),
        _ => "—".to_string(),
    }
}

pub fn backend_title(name: &str) -> &'static str {
    match name {
        "postgres" => "PostgreSQL",
        "sqlite" => "SQLite",
        "mysql" => "MariaDB",
        _ => "?",
    }
}

pub fn shape_title(shape: &str) -> &'static str {
    match shape {
        "asc" => "ASC `at, id`",
        "desc" => "DESC `at DESC, id DESC`",
        "mixed" => "mixed `score DESC, id ASC`",
        "long_ties" => "mixed, long ties `grade DESC, id ASC`",
        "long_ties_per_level" => "mixed, long ties, `.seek_per_level(true)`",
        _ => "?",
    }
}

pub fn machine(load_at_start: &str) -> Vec<(String, String)> {
    let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
    let cpu = read("/proc/cpuinfo")
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name")
                .map(|r| r.trim_start_matches([' ', '\t', ':']).to_string())
        })
        .unwrap_or_else(|| "unknown".to_string());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let mem = read("/proc/meminfo")
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:").map(|r| r.trim().to_string()))
        .and_then(|r| r.trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or_else(
            || "unknown".to_string(),
            |kib| format!("{:.1} GiB", kib as f64 / 1024.0 / 1024.0),
        );
    let os = read("/etc/os-release")
        .lines()
        .find_map(|l| {
            l.strip_prefix("PRETTY_NAME=")
                .map(|r| r.trim_matches('"').to_string())
        })
        .unwrap_or_else(|| "unknown".to_string());
    let kernel = read("/proc/sys/kernel/osrelease").trim().to_string();
    let rustc =
        std::process::Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string()))
            .arg("-V")
            .output()
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_else(|| "unknown".to_string());
    let load = read("/proc/loadavg")
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ");
    vec![
        ("CPU".to_string(), format!("{cpu}, {cores} cores available")),
        ("memory".to_string(), mem),
        ("OS".to_string(), format!("{os}, Linux {kernel}")),
        ("rustc".to_string(), rustc),
        (
            "build".to_string(),
            "`cargo bench` (release profile), criterion 0.5".to_string(),
        ),
        (
            "load average (1, 5, 15 min)".to_string(),
            format!("{load_at_start} at the start, {load} at the end (other work on the machine adds noise)"),
        ),
    ]
}

pub fn met(m: Option<bool>) -> &'static str {
    match m {
        Some(true) => "met",
        Some(false) => "**missed**",
        None => "not measured",
    }
}
