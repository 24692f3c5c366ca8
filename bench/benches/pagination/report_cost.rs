//! Sections 2, 3 and 4 of `reports/PERFORMANCE.md`: the library against the same SQL written
//! by hand, token costs and full walks, with their targets.

use std::fmt::Write as _;
use std::path::Path;

use crate::backends::OVERHEAD_DEPTH;
use crate::numbers::{group, ratio};
use crate::report_format::{backend_title, bytes, per_page, shape_title, time, walk_form};
use crate::report_targets::Target;
use crate::report_why::Evidence;
use crate::results::{BackendRun, Measure, TokenRow};

/// Section 2, the library against the same SQL written by hand, and its targets.
pub fn overhead(
    output: &Path,
    runs: &[BackendRun],
    evidence: &Evidence<'_>,
    body: &mut String,
    targets: &mut Vec<Target>,
) {
    let med = |m: &Measure| m.median_ns(output);
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
    for run in runs {
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
                        evidence,
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
}

/// Section 3, token costs, and its targets.
pub fn tokens(output: &Path, tokens: &[TokenRow], body: &mut String, targets: &mut Vec<Target>) {
    let med = |m: &Measure| m.median_ns(output);
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
    for tk in tokens {
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
}

/// Section 4, full walks.
pub fn walks(runs: &[BackendRun], body: &mut String) {
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
    for run in runs {
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
}
