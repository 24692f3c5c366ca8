//! `reports/PERFORMANCE.md`, written from this run's criterion estimates: the head (targets,
//! machine, data set) and the order of the sections; sections 1 to 4 are written by
//! `report_depth.rs` and `report_cost.rs`, the run notes and plans here.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use crate::backends::DEEP;
use crate::data;
use crate::numbers::group;
use crate::report_format::{backend_title, machine, met, shape_title};
use crate::report_targets::Target;
use crate::results::{BackendRun, TokenRow};

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

pub fn render(i: &Inputs<'_>) -> String {
    let mut targets: Vec<Target> = Vec::new();
    let mut body = String::new();

    let evidence =
        crate::report_depth::depth(i.output, i.runs, i.instructions, &mut body, &mut targets);
    crate::report_depth::floor(i.output, i.runs, &evidence, &mut body, &mut targets);
    crate::report_cost::overhead(i.output, i.runs, &evidence, &mut body, &mut targets);
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
    crate::report_cost::tokens(i.output, i.tokens, &mut body, &mut targets);
    crate::report_cost::walks(i.runs, &mut body);

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
