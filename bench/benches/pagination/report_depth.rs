//! Sections 1 and 1b of `reports/PERFORMANCE.md`: one page against depth (keyset, OFFSET and
//! MariaDB's other forms), then the deep page against the physical floor, with their
//! targets.

use std::fmt::Write as _;
use std::path::Path;

use crate::backends::{DEEP, PAGE};
use crate::data;
use crate::numbers::{group, ratio};
use crate::report_format::{backend_title, shape_title, time};
use crate::report_targets::Target;
use crate::report_why::Evidence;
use crate::results::{BackendRun, DepthRow, Measure};

/// Section 1, one page against depth, and its targets; returns what the reasons of this
/// and later sections' misses draw on (the run's noise floor, section 2a).
pub fn depth<'a>(
    output: &Path,
    runs: &[BackendRun],
    instructions: Option<&'a str>,
    body: &mut String,
    targets: &mut Vec<Target>,
) -> Evidence<'a> {
    let med = |m: &Measure| m.median_ns(output);
    let med_opt = |m: &Option<Measure>| m.as_ref().and_then(|m| m.median_ns(output));
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
    let floor: Vec<f64> = runs
        .iter()
        .flat_map(|run| run.depth.iter().filter(|r| r.depth == 0))
        .filter_map(|r| {
            med(&r.keyset)
                .zip(med_opt(&r.offset))
                .map(|(k, o)| (k / o).max(o / k))
        })
        .collect();
    let evidence = Evidence {
        noise: floor.iter().copied().reduce(f64::max),
        instructions,
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
    for run in runs {
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
                    // The goals: deep / first ≤ 1.2 on PostgreSQL and SQLite (as close as the
                    // physical floor allows), ≤ 1.3 on MariaDB and for long ties.
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
    evidence
}

/// Section 1b, the deep page against the physical floor, and its targets.
pub fn floor(
    output: &Path,
    runs: &[BackendRun],
    evidence: &Evidence<'_>,
    body: &mut String,
    targets: &mut Vec<Target>,
) {
    let med = |m: &Measure| m.median_ns(output);
    let med_opt = |m: &Option<Measure>| m.as_ref().and_then(|m| m.median_ns(output));
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
    for run in runs {
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
                        evidence,
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
}
