//! `docs/PERFORMANCE.md`, written from this run's criterion estimates.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use crate::backends::{DEEP, OVERHEAD_DEPTH, PAGE};
use crate::data;
use crate::numbers::{group, ratio};
use crate::report_targets::Target;
use crate::results::{BackendRun, DepthRow, Measure, TokenRow, WalkForm};

pub struct Inputs<'a> {
    pub output: &'a Path,
    pub runs: &'a [BackendRun],
    pub tokens: &'a [TokenRow],
    pub selected: &'a [&'a str],
    pub started_at: chrono::DateTime<chrono::Utc>,
    pub load_at_start: String,
    pub took: Duration,
    /// Section 2a (instructions per page) as the file had it: kept, since only
    /// `bash scripts/bench.sh instructions` writes it.
    pub instructions: Option<&'a str>,
    /// Section 4a (concurrent walkers) as the file had it: kept, since only
    /// `bash scripts/bench.sh concurrency` writes it.
    pub concurrency: Option<&'a str>,
    /// Section 4b (ten million rows on one tenant) as the file had it: kept, since only
    /// `bash scripts/bench.sh scale` writes it.
    pub scale: Option<&'a str>,
    /// Section 4c (a table partitioned across servers) as the file had it: kept, since only
    /// `bash scripts/bench.sh shards` writes it.
    pub shards: Option<&'a str>,
    /// Section 2b (nullable keys) as the file had it: kept, since only
    /// `bash scripts/bench.sh nullable` writes it (the full run does, before this part).
    pub nullable: Option<&'a str>,
    /// Section 2c (peers) as the file had it: kept, since only `bash scripts/bench.sh peers`
    /// writes it (the full run does, after this part).
    pub peers: Option<&'a str>,
    /// Section 2d (sea-orm's cursor) as the file had it: kept, since only `bash scripts/bench.sh
    /// seaorm` (an opt-in crate) writes it.
    pub seaorm: Option<&'a str>,
    /// Section 4e (the HTTP path) as the file had it: kept, since only `bash scripts/bench.sh
    /// http` writes it (the full run does, after this part).
    pub http: Option<&'a str>,
    /// Section 4f (a table sharded across MariaDB servers) as the file had it: kept, since
    /// only `bash scripts/bench.sh spider` writes it.
    pub spider: Option<&'a str>,
    /// Section 5 (what the derive costs to compile) as the file had it: kept, since only
    /// `bash scripts/bench.sh compile` writes it.
    pub compile: Option<&'a str>,
    /// Section 4d (ten million rows in monthly partitions) as the file had it: kept, since
    /// only `bash scripts/bench.sh scale` writes it.
    pub partitioned: Option<&'a str>,
}

/// A time in nanoseconds, with a unit a reader takes in at a glance.
fn time(ns: f64) -> String {
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

fn bytes(b: u64) -> String {
    if b < 10 * 1024 {
        format!("{b} B")
    } else if b < 10 * 1024 * 1024 {
        format!("{:.0} KiB", b as f64 / 1024.0)
    } else {
        format!("{:.1} MiB", b as f64 / 1024.0 / 1024.0)
    }
}

fn walk_form(backend: &str, form: WalkForm) -> &'static str {
    match (backend, form) {
        ("mysql", WalkForm::Keyset) => "keyset (default: the index it learned)",
        (_, WalkForm::Keyset) => "keyset",
        (_, WalkForm::Direct) => "keyset, deferred join",
        (_, WalkForm::Forced) => "keyset, `.force_index(..)`",
        (_, WalkForm::Offset) => "OFFSET",
    }
}

/// A counter over the pages of a walk, one decimal.
fn per_page(count: Option<u64>, pages: u64) -> String {
    match count {
        Some(c) if pages > 0 => format!("{:.1}", c as f64 / pages as f64),
        _ => "—".to_string(),
    }
}

fn backend_title(name: &str) -> &'static str {
    match name {
        "postgres" => "PostgreSQL",
        "sqlite" => "SQLite",
        "mysql" => "MariaDB",
        _ => "?",
    }
}

fn shape_title(shape: &str) -> &'static str {
    match shape {
        "asc" => "ASC `at, id`",
        "desc" => "DESC `at DESC, id DESC`",
        "mixed" => "mixed `score DESC, id ASC`",
        "long_ties" => "mixed, long ties `grade DESC, id ASC`",
        "long_ties_per_level" => "mixed, long ties, `.seek_per_level(true)`",
        _ => "?",
    }
}

fn machine(load_at_start: &str) -> Vec<(String, String)> {
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

fn met(m: Option<bool>) -> &'static str {
    match m {
        Some(true) => "met",
        Some(false) => "**missed**",
        None => "not measured",
    }
}

pub fn render(i: &Inputs<'_>) -> String {
    let med = |m: &Measure| m.median_ns(i.output);
    let med_opt = |m: &Option<Measure>| m.as_ref().and_then(|m| m.median_ns(i.output));
    let mut targets: Vec<Target> = Vec::new();
    let mut body = String::new();

    // ---- 1. depth ---------------------------------------------------------------------
    let _ = writeln!(body, "## 1. One page ({PAGE} rows) against depth\n");
    let _ = writeln!(
        body,
        "The page after the row at each depth of the big tenant ({} rows), read with \
         `.paginate_after(Some(cursor)).page_size({PAGE}).load_page(conn)` (the cursor taken \
         beforehand, not timed); depth 0 is the first page (no cursor). OFFSET is the same \
         Diesel query with `.order(<keyset>).limit({}).offset(depth)` (21 rows, as the \
         keyset page reads: {PAGE} and the look-ahead row). \"vs first page\" is the keyset \
         page's median over the first page's. \"ties up to the cursor\" counts the rows that \
         share the cursor row's leading key value and sort before it (the cursor included): \
         a seek whose index condition bounds only the leading column filters them. A time \
         marked † took more than {} s in one run, too slow for criterion's minimum of 10 \
         samples: it is the median of {} runs timed by hand after one warm-up run.\n",
        group(data::BIG_TENANT_ROWS as u64),
        PAGE + 1,
        crate::backends::SINGLE_RUN_LIMIT.as_secs(),
        crate::backends::MANUAL_RUNS
    );
    // The noise floor: the first page read as a keyset page and as OFFSET 0 (the same rows,
    // nearly the same SQL), per backend and shape, in this run.
    let floor: Vec<f64> = i
        .runs
        .iter()
        .flat_map(|run| run.depth.iter().filter(|r| r.depth == 0))
        .filter_map(|r| {
            med(&r.keyset)
                .zip(med_opt(&r.offset))
                .map(|(k, o)| (k / o).max(o / k))
        })
        .collect();
    let evidence = crate::report_why::Evidence {
        noise: floor.iter().copied().reduce(f64::max),
        instructions: i.instructions,
    };
    if let Some(worst) = evidence.noise {
        let _ = writeln!(
            body,
            "Noise floor of this run: the first page, read once as a keyset page and once as \
             OFFSET 0 (the same rows, nearly the same SQL), differs by a factor of up to {} \
             between the two medians (over all backends and shapes). A ratio of two fast \
             cases closer to 1 than that is not a measured difference.\n",
            ratio(worst)
        );
    }
    for run in i.runs {
        let mysql = run.name == "mysql";
        let _ = writeln!(body, "### {}\n", backend_title(run.name));
        if mysql {
            let _ = writeln!(
                body,
                "`keyset` is the library's default here: a later page names the table's index that \
                 serves its seek, looked up once a minute ([the SQL guide](../keyset-diesel/src/guide/sql.md#the-index-a-page-names-by-itself)), \
                 `bench_rows_tenant_at_id` (`bench_rows_tenant_score_id` and \
                 `bench_rows_tenant_grade_id` for the `score` and `grade` shapes); `deferred` is \
                 `.deferred_join(true)`, the default before (and still when no index serves the \
                 seek); `forced` names the index itself (`.force_index(..)`, the statement of a \
                 model that declares its index). The first page is the same query in `keyset` and \
                 `deferred`; `forced` at depth 0 is the first page with the hint, and every \
                 \"vs first page\" divides by the default first page.\n"
            );
            let _ = writeln!(body, "| shape | depth | keyset | vs first page | deferred | vs first page | forced | vs first page | OFFSET | OFFSET / keyset | ties up to the cursor |");
            let _ = writeln!(
                body,
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
            );
        } else {
            let _ = writeln!(body, "| shape | depth | keyset | vs first page | OFFSET | OFFSET / keyset | ties up to the cursor |");
            let _ = writeln!(body, "|---|---:|---:|---:|---:|---:|---:|");
        }
        let shapes: Vec<&str> = {
            let mut s: Vec<&str> = run.depth.iter().map(|r| r.shape).collect();
            s.dedup();
            s
        };
        for shape in &shapes {
            let rows: Vec<&DepthRow> = run.depth.iter().filter(|r| r.shape == *shape).collect();
            let first = rows
                .iter()
                .find(|r| r.depth == 0)
                .and_then(|r| med(&r.keyset));
            for r in &rows {
                let k = med(&r.keyset);
                let vs_first = match (k, first) {
                    (Some(k), Some(f)) => ratio(k / f),
                    _ => "—".into(),
                };
                let off = med_opt(&r.offset);
                let off_ratio = match (off, k) {
                    (Some(o), Some(k)) => ratio(o / k),
                    _ => "—".into(),
                };
                let ties = r.ties_before.map_or("—".to_string(), |t| group(t as u64));
                let t = |v: Option<f64>| v.map_or("—".to_string(), time);
                let mark = |m: &Option<Measure>| {
                    if m.as_ref().is_some_and(|m| m.manual.is_some()) {
                        " †"
                    } else {
                        ""
                    }
                };
                let t_off = format!("{}{}", t(off), mark(&r.offset));
                if mysql {
                    let d = med_opt(&r.direct);
                    let t_direct = format!("{}{}", t(d), mark(&r.direct));
                    let d_first = match (d, first) {
                        (Some(d), Some(f)) => ratio(d / f),
                        _ => "—".into(),
                    };
                    let fo = med_opt(&r.forced);
                    let t_forced = format!("{}{}", t(fo), mark(&r.forced));
                    let fo_first = match (fo, first) {
                        (Some(x), Some(f)) => ratio(x / f),
                        _ => "—".into(),
                    };
                    let _ = writeln!(
                        body,
                        "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                        shape_title(shape),
                        group(r.depth),
                        t(k),
                        vs_first,
                        t_direct,
                        d_first,
                        t_forced,
                        fo_first,
                        t_off,
                        off_ratio,
                        ties
                    );
                } else {
                    let _ = writeln!(
                        body,
                        "| {} | {} | {} | {} | {} | {} | {} |",
                        shape_title(shape),
                        group(r.depth),
                        t(k),
                        vs_first,
                        t_off,
                        off_ratio,
                        ties
                    );
                }
                if r.depth == DEEP {
                    let long_ties = shape.starts_with("long_ties");
                    let per_level = *shape == "long_ties_per_level";
                    // Issue 35: deep / first ≤ 1.2 on PostgreSQL and SQLite (§3, the limit
                    // the physical floor allows), ≤ 1.3 on MariaDB (§1) and for long ties (§3).
                    let limit = if mysql || long_ties { 1.3 } else { 1.2 };
                    let deep_ratio = k.zip(first).map(|(k, f)| k / f);
                    let deep_plan = run.plans.iter().find(|p| {
                        p.shape == *shape && p.title.starts_with(&format!("keyset, depth {DEEP}"))
                    });
                    let counters = deep_plan.and_then(|p| p.counters.as_deref());
                    let why = |x: f64, deep: Option<f64>| {
                        (x > limit).then(|| {
                            let mut why = crate::report_why::deep_page(
                                &evidence,
                                x,
                                &t(deep),
                                &t(first),
                                r.ties_before,
                                (*shape == "mixed" || *shape == "long_ties" || mysql) && !per_level,
                                counters,
                            );
                            let more = match run.name {
                                "sqlite" => {
                                    crate::report_why::sqlite_counted(&evidence, shape_title(shape))
                                }
                                "postgres" if per_level => crate::report_why::pg_union(
                                    deep_plan.map(|p| p.plan.as_str()),
                                    &run.notes,
                                ),
                                "mysql" if per_level => crate::report_why::mysql_union(
                                    deep_plan.map(|p| p.plan.as_str()),
                                ),
                                _ => None,
                            };
                            if let Some(more) = more {
                                why.push(' ');
                                why.push_str(&more);
                            }
                            why
                        })
                    };
                    let what = if long_ties {
                        format!(
                            "deep page ({}) / first page ≤ {limit}, long ties",
                            group(DEEP)
                        )
                    } else {
                        format!("deep page ({}) / first page ≤ {limit}", group(DEEP))
                    };
                    targets.push(Target {
                        what: what.clone(),
                        backend: backend_title(run.name),
                        shape: shape_title(shape).to_string(),
                        measured: deep_ratio.map_or("—".into(), ratio),
                        met: deep_ratio.map(|x| x <= limit),
                        why: deep_ratio.and_then(|x| why(x, k)),
                    });
                    if let Some(fo) = med_opt(&r.forced) {
                        let forced_ratio = first.map(|f| fo / f);
                        targets.push(Target {
                            what: format!("{what}, index named (`.force_index(..)` or declared)"),
                            backend: backend_title(run.name),
                            shape: shape_title(shape).to_string(),
                            measured: forced_ratio.map_or("—".into(), ratio),
                            met: forced_ratio.map(|x| x <= limit),
                            why: forced_ratio.and_then(|x| why(x, Some(fo))),
                        });
                    }
                    // The long-tie shapes time no OFFSET page.
                    if !long_ties {
                        let off_k = off.zip(k).map(|(o, k)| o / k);
                        targets.push(Target {
                            what: format!("OFFSET / keyset at {} ≥ 100", group(DEEP)),
                            backend: backend_title(run.name),
                            shape: shape_title(shape).to_string(),
                            measured: off_k.map_or("—".into(), ratio),
                            met: off_k.map(|x| x >= 100.0),
                            why: None,
                        });
                    }
                }
            }
        }
        let _ = writeln!(body);
    }

    // ---- 1b. floor ---------------------------------------------------------------------
    let _ = writeln!(body, "## 1b. Against the physical floor\n");
    let _ = writeln!(
        body,
        "The cheapest way the database can return the deep page's rows: the same {} rows \
         (the page at depth {} and its look-ahead row) read by one range scan on the primary \
         key, `WHERE tenant = 1 AND id BETWEEN <lowest> AND <highest> ORDER BY id` (`DESC` \
         where the page runs down), through Diesel with the same select list; the run checks \
         it returns exactly the page's rows in the page's order. The range also holds the \
         other tenants' rows between them, which the scan reads and drops. In `score` order a \
         page's rows are scattered over the table, so the mixed shape has no such range and \
         no floor row.\n",
        PAGE + 1,
        group(DEEP)
    );
    let _ = writeln!(body, "| backend | shape | ids read | floor | keyset page | keyset / floor | deferred | deferred / floor | forced | forced / floor |");
    let _ = writeln!(body, "|---|---|---|---:|---:|---:|---:|---:|---:|---:|");
    for run in i.runs {
        for f in &run.floors {
            let deep = run
                .depth
                .iter()
                .find(|r| r.shape == f.shape && r.depth == DEEP);
            let k = deep.and_then(|r| med(&r.keyset));
            let d = deep.and_then(|r| med_opt(&r.direct));
            let fo = deep.and_then(|r| med_opt(&r.forced));
            let fl = med_opt(&f.floor);
            let t = |v: Option<f64>| v.map_or("—".to_string(), time);
            let r = |v: Option<f64>| match (v, fl) {
                (Some(v), Some(fl)) => ratio(v / fl),
                _ => "—".into(),
            };
            let ids = if f.floor.is_some() {
                format!(
                    "{}–{} ({} ids{})",
                    f.ids.0,
                    f.ids.1,
                    f.ids.1 - f.ids.0 + 1,
                    if f.descending { ", DESC" } else { "" }
                )
            } else {
                "not one range".to_string()
            };
            let _ = writeln!(
                body,
                "| {} | {} | {ids} | {} | {} | {} | {} | {} | {} | {} |",
                backend_title(run.name),
                shape_title(f.shape),
                t(fl),
                t(k),
                r(k),
                t(d),
                r(d),
                t(fo),
                r(fo)
            );
            let counters = run
                .plans
                .iter()
                .find(|p| {
                    p.shape == f.shape && p.title.starts_with(&format!("keyset, depth {DEEP}"))
                })
                .and_then(|p| p.counters.as_deref());
            let why = |x: f64, page: Option<f64>| {
                (x > 1.3).then(|| {
                    crate::report_why::floor(
                        &evidence,
                        run.name == "mysql",
                        (&t(page), &t(fl), x),
                        f.ids.1.abs_diff(f.ids.0) + 1,
                        counters,
                    )
                })
            };
            if f.floor.is_some() {
                let x = k.zip(fl).map(|(k, fl)| k / fl);
                targets.push(Target {
                    what: format!("deep page ({}) / physical floor ≤ 1.3", group(DEEP)),
                    backend: backend_title(run.name),
                    shape: shape_title(f.shape).to_string(),
                    measured: x.map_or("—".into(), ratio),
                    met: x.map(|x| x <= 1.3),
                    why: x.and_then(|x| why(x, k)),
                });
                if fo.is_some() {
                    let x = fo.zip(fl).map(|(k, fl)| k / fl);
                    targets.push(Target {
                        what: format!(
                            "deep page ({}) / physical floor ≤ 1.3, `.force_index(..)`",
                            group(DEEP)
                        ),
                        backend: backend_title(run.name),
                        shape: shape_title(f.shape).to_string(),
                        measured: x.map_or("—".into(), ratio),
                        met: x.map(|x| x <= 1.3),
                        why: x.and_then(|x| why(x, fo)),
                    });
                }
            }
        }
    }
    let _ = writeln!(body);

    // ---- 2. overhead ------------------------------------------------------------------
    let _ = writeln!(
        body,
        "## 2. The library against the same SQL written by hand\n"
    );
    let _ = writeln!(
        body,
        "The page at depth {} of each shape. `library` is `load_page`; `sql_query` runs the \
         SQL text the library generates (from `diesel::debug_query` of `into_query`) with \
         the same binds through `diesel::sql_query(..).into_boxed().bind(..)` into a \
         `QueryableByName` struct, which is how SQL is written by hand in Diesel. Diesel \
         never caches a `sql_query` as a prepared statement, while it caches the library's \
         page queries by their SQL text, so `sql_query` pays a statement preparation on every \
         call. `prepared` is the same text and binds as a query Diesel caches like the \
         library's (a small `QueryFragment` that writes the text and pushes the binds): it is \
         the fair measure of what the library itself costs. Before timing, the run checks \
         that both hand-written queries have exactly the library's SQL text and binds and \
         return the same rows.\n",
        group(OVERHEAD_DEPTH)
    );
    let _ = writeln!(body, "| backend | shape | form | library | sql_query | library / sql_query | prepared | library / prepared |");
    let _ = writeln!(body, "|---|---|---|---:|---:|---:|---:|---:|");
    for run in i.runs {
        for o in &run.overhead {
            let (l, s, p) = (med(&o.library), med(&o.sql_query), med(&o.prepared));
            let r_s = l.zip(s).map(|(l, s)| l / s);
            let r_p = l.zip(p).map(|(l, p)| l / p);
            let t = |v: Option<f64>| v.map_or("—".to_string(), time);
            let form = match (run.name, o.variant) {
                ("mysql", "default") => "default (the index it learned)",
                ("mysql", _) => "deferred join",
                _ => "default",
            };
            let _ = writeln!(
                body,
                "| {} | {} | {} | {} | {} | {} | {} | {} |",
                backend_title(run.name),
                shape_title(o.shape),
                form,
                t(l),
                t(s),
                r_s.map_or("—".into(), ratio),
                t(p),
                r_p.map_or("—".into(), ratio)
            );
            let why = |x: f64, against_prepared: bool| {
                (x > 1.05).then(|| {
                    crate::report_why::hand_written(
                        &evidence,
                        x,
                        backend_title(run.name),
                        shape_title(o.shape),
                        o.variant != "default",
                        against_prepared.then(|| r_p.map_or("—".into(), ratio)),
                    )
                })
            };
            targets.push(Target {
                what: "library / hand-written (`sql_query`) ≤ 1.05".to_string(),
                backend: backend_title(run.name),
                shape: format!("{} ({form})", shape_title(o.shape)),
                measured: r_s.map_or("—".into(), ratio),
                met: r_s.map(|x| x <= 1.05),
                why: r_s.and_then(|x| why(x, true)),
            });
            targets.push(Target {
                what: "library / hand-written (prepared) ≤ 1.05".to_string(),
                backend: backend_title(run.name),
                shape: format!("{} ({form})", shape_title(o.shape)),
                measured: r_p.map_or("—".into(), ratio),
                met: r_p.map(|x| x <= 1.05),
                why: r_p.and_then(|x| why(x, false)),
            });
        }
    }
    let _ = writeln!(body);
    if let Some(section) = i.instructions {
        let _ = writeln!(body, "{section}\n");
    }
    if let Some(section) = i.nullable {
        let _ = writeln!(body, "{section}\n");
    }
    if let Some(section) = i.peers {
        let _ = writeln!(body, "{section}\n");
    }
    if let Some(section) = i.seaorm {
        let _ = writeln!(body, "{section}\n");
    }

    // ---- 3. tokens --------------------------------------------------------------------
    let _ = writeln!(body, "## 3. Tokens\n");
    let _ = writeln!(
        body,
        "`CursorCodec` with one HMAC-SHA256 key, a one-hour time to live, scope \
         `(\"bench_rows\", \"tenant\", 1)`. Decode includes the signature check, expiry, \
         sort-signature and scope checks.\n"
    );
    let _ = writeln!(
        body,
        "| key | token length | encode | decode + verify | encode, then decode |"
    );
    let _ = writeln!(body, "|---|---:|---:|---:|---:|");
    for tk in i.tokens {
        let (e, d, b) = (med(&tk.encode), med(&tk.decode), med(&tk.both));
        let t = |v: Option<f64>| v.map_or("—".to_string(), time);
        let key = match tk.key {
            "timestamp_id" => "`(NaiveDateTime, i64)` (ASC/DESC models)",
            _ => "`(i32, i64)` (mixed model)",
        };
        let _ = writeln!(
            body,
            "| {key} | {} chars | {} | {} | {} |",
            tk.token_len,
            t(e),
            t(d),
            t(b)
        );
        targets.push(Target {
            what: "token encode + decode < 5 µs".to_string(),
            backend: "—",
            shape: key.to_string(),
            measured: t(b),
            met: b.map(|b| b < 5_000.0),
            why: None,
        });
    }
    let _ = writeln!(body);

    // ---- 4. walks ---------------------------------------------------------------------
    let _ = writeln!(body, "## 4. Full walks\n");
    let _ = writeln!(
        body,
        "Every page of one tenant in `at ASC, id ASC` order, each page from the previous \
         page's `next_cursor`, until `has_more` is false; one timed walk each (the walk \
         checks it saw every row once, in order). \"Rust heap peak\" is the highest growth \
         of the Rust heap during the walk (a counting global allocator, reset before the \
         walk): Diesel's rows, the page and the cursor. The database client libraries \
         allocate with C `malloc`, outside it; \"RSS peak\" is the growth of the process's \
         resident set high-water mark (`VmHWM`, reset through `/proc/self/clear_refs`), \
         which counts them too. A walk still running after {} s is stopped and marked \
         (so the run stays bounded); its rows per second are those of the part it walked. \
         On MariaDB, whose default names the index it learned, the big tenant is also walked at \
         page size 20 with the index named (`.force_index(..)`), as a deferred join \
         (`.deferred_join(true)`) and as OFFSET pages \
         (`ORDER BY at, id LIMIT 21 OFFSET <rows read so far>`), and every walk counts the \
         InnoDB buffer pool's pages read from storage (`Innodb_buffer_pool_reads`) and page \
         requests (`Innodb_buffer_pool_read_requests`), server-wide status counters read \
         before and after the walk (nothing else uses the server during the run), per page.\n",
        crate::backends::WALK_LIMIT.as_secs()
    );
    let _ = writeln!(body, "| backend | form | tenant (rows) | page size | pages | time | rows/s | page median | page p99 | slowest page (at depth) | Rust heap peak | RSS peak | storage reads / page | page requests / page |");
    let _ = writeln!(
        body,
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for run in i.runs {
        for w in &run.walks {
            let _ = writeln!(
                body,
                "| {} | {} | {} ({}) | {} | {} | {:.2} s{} | {} | {} | {} | {} ({}) | {} | {} | {} | {} |",
                backend_title(run.name),
                walk_form(run.name, w.form),
                w.tenant,
                group(w.tenant_rows as u64),
                w.page_size,
                group(w.pages),
                w.seconds,
                if w.stopped {
                    format!(", **stopped** after {} rows", group(w.rows))
                } else {
                    String::new()
                },
                group((w.rows as f64 / w.seconds) as u64),
                time(w.page_median),
                time(w.page_p99),
                time(w.page_max),
                group(w.page_max_depth),
                bytes(w.heap_peak),
                w.rss_peak.map_or("—".to_string(), bytes),
                per_page(w.storage_reads.map(|s| s.0), w.pages),
                per_page(w.storage_reads.map(|s| s.1), w.pages)
            );
        }
    }
    let _ = writeln!(body);

    if let Some(section) = i.concurrency {
        let _ = writeln!(body, "{section}\n");
    }
    if let Some(section) = i.scale {
        let _ = writeln!(body, "{section}\n");
    }
    if let Some(section) = i.shards {
        let _ = writeln!(body, "{section}\n");
    }
    if let Some(section) = i.partitioned {
        let _ = writeln!(body, "{section}\n");
    }
    if let Some(section) = i.http {
        let _ = writeln!(body, "{section}\n");
    }
    if let Some(section) = i.spider {
        let _ = writeln!(body, "{section}\n");
    }
    if let Some(section) = i.compile {
        let _ = writeln!(body, "{section}\n");
    }

    // ---- notes ------------------------------------------------------------------------
    let notes: Vec<(&BackendRun, &String)> = i
        .runs
        .iter()
        .flat_map(|r| r.notes.iter().map(move |n| (r, n)))
        .collect();
    if !notes.is_empty() {
        let _ = writeln!(body, "## Run notes\n");
        for (run, note) in notes {
            let _ = writeln!(body, "* {}: {note}", backend_title(run.name));
        }
        let _ = writeln!(body);
    }

    // ---- plans ------------------------------------------------------------------------
    let _ = writeln!(body, "## SQL and plans\n");
    let _ = writeln!(
        body,
        "For each shape: the first page, the page at depth {} (on MariaDB the default, \
         which names the index it learned, the deferred join and the direct form with no index named) and OFFSET {}, as `diesel::debug_query` prints them (the \
         SQL, then its binds), with the plan: PostgreSQL `EXPLAIN (ANALYZE, BUFFERS)`, SQLite \
         `EXPLAIN QUERY PLAN`, MariaDB `EXPLAIN` and the `Handler_*` counters of one run \
         of the statement (`FLUSH STATUS` first; counters that stayed 0 are left out).\n",
        group(DEEP),
        group(DEEP)
    );
    for run in i.runs {
        let _ = writeln!(body, "### {}\n", backend_title(run.name));
        let mut last_shape = "";
        for p in &run.plans {
            if p.shape != last_shape {
                let _ = writeln!(body, "#### {}\n", shape_title(p.shape));
                last_shape = p.shape;
            }
            let _ = writeln!(body, "{}:\n", p.title);
            let _ = writeln!(body, "```sql\n{}\n```\n", p.sql);
            let _ = writeln!(body, "```text\n{}\n```\n", p.plan);
            if let Some(c) = &p.counters {
                let _ = writeln!(body, "Counters: `{c}`\n");
            }
        }
    }

    // ---- head -------------------------------------------------------------------------
    let mut out = String::new();
    let _ = writeln!(out, "# Performance\n");
    let _ = writeln!(
        out,
        "<!-- Generated by `bash scripts/bench.sh` (`cargo bench -p keyset-bench`). Do not edit by hand: rerun the command. -->\n"
    );
    let _ = writeln!(
        out,
        "Generated by `bash scripts/bench.sh` (which runs `cargo bench -p keyset-bench`) on \
         {} UTC; the run took {:.1} minutes. Do not edit this file by hand: rerun the \
         command. Every figure is a criterion median of this run, and every ratio divides two \
         medians of this same run on the same machine, except section 2a (instruction \
         counts), which `bash scripts/bench.sh instructions` writes, and section 2b (nullable \
         keys, interleaved medians of its own), which `bash scripts/bench.sh nullable` writes \
         (the full run does both before this part, and the targets below include theirs), \
         section 2c (peers, interleaved medians of its own), which `bash scripts/bench.sh peers` writes, \
         section 4a (concurrent walkers), which `bash scripts/bench.sh concurrency` writes (the \
         full run does both, after this part), sections 4b and 4d (ten million rows, on one table and \
         in monthly partitions), which only `bash scripts/bench.sh scale` writes, and section 4c (a table partitioned across servers), \
         which only `bash scripts/bench.sh shards` writes, section 4e (the HTTP path), which \
         `bash scripts/bench.sh http` writes (the full run does, last), section 4f (a table sharded \
         across MariaDB servers), which only `bash scripts/bench.sh spider` writes, and section 5 (compile times), \
         which only `bash scripts/bench.sh compile` writes.\n",
        i.started_at.format("%Y-%m-%d %H:%M"),
        i.took.as_secs_f64() / 60.0
    );
    if crate::backends::quick() {
        let _ = writeln!(
            out,
            "**Smoke run** (`KEYSET_BENCH_QUICK=1`): measurement times were cut to a fraction \
             of a second; these figures are not to be used.\n"
        );
    }
    let all = ["postgres", "sqlite", "mysql"];
    if !all.iter().all(|b| i.selected.contains(b)) {
        let _ = writeln!(
            out,
            "**Partial run**: only {} (`KEYSET_BENCH_BACKENDS`).\n",
            i.selected.join(", ")
        );
    }
    targets.extend(crate::report_targets::from_sections(
        i.instructions,
        i.nullable,
    ));
    let _ = writeln!(out, "## Targets\n");
    let _ = writeln!(out, "| target | backend | shape | measured | |");
    let _ = writeln!(out, "|---|---|---|---:|---|");
    for t in &targets {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            t.what,
            t.backend,
            t.shape,
            t.measured,
            met(t.met)
        );
    }
    let missed = targets.iter().filter(|t| t.met == Some(false)).count();
    let _ = writeln!(
        out,
        "\n{} of {} targets met{}.\n",
        targets.iter().filter(|t| t.met == Some(true)).count(),
        targets.len(),
        if missed > 0 {
            format!(", {missed} missed (why: below)")
        } else {
            String::new()
        }
    );
    if missed > 0 {
        let _ = writeln!(
            out,
            "### Why each miss
"
        );
        for t in targets.iter().filter(|t| t.met == Some(false)) {
            let _ = writeln!(
                out,
                "* {} on {}, {} ({}): {}",
                t.what,
                t.backend,
                t.shape,
                t.measured,
                t.why
                    .as_deref()
                    .unwrap_or("no measurement in this run says why.")
            );
        }
        let _ = writeln!(out);
    }
    out.push_str(&crate::report_notes::text());
    let _ = writeln!(out, "## Machine\n");
    let _ = writeln!(out, "| | |\n|---|---|");
    for (k, v) in machine(&i.load_at_start) {
        let _ = writeln!(out, "| {k} | {v} |");
    }
    for run in i.runs {
        let mut settings = run
            .settings
            .iter()
            .map(|(k, v)| format!("`{k}` = {v}"))
            .collect::<Vec<_>>()
            .join(", ");
        if settings.is_empty() {
            settings = "—".into();
        }
        let _ = writeln!(
            out,
            "| {} | {}; {settings}; data set {} |",
            backend_title(run.name),
            run.version,
            run.load
        );
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "## Data set\n");
    let _ = writeln!(
        out,
        "One table per backend, `bench_rows (id BIGINT PRIMARY KEY, tenant INTEGER, at \
         TIMESTAMP (DATETIME(6) on MariaDB), score INTEGER, grade INTEGER, payload TEXT)`, \
         {} rows: of every 13 consecutive ids, 10 belong to tenant 1 and one each to tenants \
         2, 3 and 4 (so tenant 1 has {} rows and the others {} each, interleaved on disk). \
         Within a tenant, `at` advances one second every 10 rows (10 rows per timestamp), \
         `score` has about 10 rows per value and `grade` about 10,000 (long runs of ties), \
         both scattered over the ids; `payload` is about 80 characters that no index covers, \
         and every model selects it. Indexes: `(tenant, at, id)`, `(tenant, score DESC, id)`, \
         `(tenant, grade DESC, id)`. Loaded with set-based SQL (`generate_series`, MariaDB's \
         `seq_1_to_N`, a recursive CTE on SQLite), then analyzed. PostgreSQL schema and \
         MariaDB database `keyset_bench`; SQLite file `<target>/keyset-bench/bench.sqlite3`. \
         Warm cache: every benchmark runs its query repeatedly.\n",
        group(data::ROWS as u64),
        group(data::BIG_TENANT_ROWS as u64),
        group(data::SMALL_TENANT_ROWS as u64)
    );
    out.push_str(&body);
    out
}
