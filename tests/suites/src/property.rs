//! The oracle as a property test: random tables of 0-500 rows with heavy ties (values from
//! small domains) and NULLs at a density of 0%, 10%, 50% or 100%, and a random lookup table
//! joined to them; a random keyset of 1-4 columns in every direction combination and NULL
//! placement (one of [`TestDb::row_models`]: [`ROW_MODELS`](crate::models::ROW_MODELS), with MySQL's unsigned keys on
//! MySQL, PostgreSQL's UUID and native enum keys on PostgreSQL) over integers, text,
//! timestamps, booleans, doubles and floats (one ulp apart, both zeros, the extremes, the
//! infinities where stored), decimals, bytes, times of day, the `time` crate's timestamp and
//! nullable date, a newtype, expressions
//! (`lower(b)`, `coalesce(na, 1)`, `lower(nb)`) and the joined table's columns; a random page
//! size 1-50, a tenant filter, boxed or unboxed queries, exact flags or not, deferred join or
//! direct seek (or the backend's default), one seek or one union arm per key level
//! (`seek_per_level`), the seek as a row value or expanded (`expanded_seek`), with the total
//! count or without. For each case:
//!
//! 1. walking forward from the first page gives exactly the plain `ORDER BY` query's rows;
//! 2. walking backward from the last page (`paginate_before(None)`, then each page's
//!    `start_cursor`) gives the same pages in reverse: the exact reverse of the forward walk;
//! 3. a random walk mixing forward and backward steps gives, at every step, exactly the window
//!    of the ordered rows next to the cursor, with the flags the Relay contract promises.

use crate::db::{Group, OracleDb};
use crate::models::BackendRowModels;
use crate::typed::{
    byte_strings, decimals, f32s, f64s, primitive_datetimes, time_dates, times_of_day, u64s,
    user_ids, uuids,
};
use crate::{at, Row, TestDb};
pub use keyset_test_models::scenario::*;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::cell::RefCell;

/// Cases per backend per run: `KEYSET_ORACLE_CASES`, default 256.
pub fn oracle_cases() -> u32 {
    std::env::var("KEYSET_ORACLE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

const B_VALUES: &[&str] = &["", "a", "A", "ab", "b", "B", "é"];

fn c_values() -> Vec<chrono::NaiveDateTime> {
    vec![
        at(0, 0),
        at(0, 1),
        at(0, 500_000),
        at(1, 0),
        at(1, 1),
        at(59, 999_999),
        at(3600, 0),
    ]
}

/// Names of the joined groups: "y" and "Y" tie under a case-insensitive collation.
const GROUP_NAMES: &[&str] = &["x", "y", "Y"];

/// 0-500 rows over 3 tenants, ids a random permutation (so id order is not insert order),
/// `na`, `nb` and `nh` NULL with the case's density; `infinities`: whether `f` may hold them.
pub fn rows(infinities: bool) -> impl Strategy<Value = Vec<Row>> {
    let density = prop_oneof![Just(0u32), Just(10), Just(50), Just(100)];
    let fs = f64s(infinities);
    let frs = f32s(infinities);
    let row = (
        (
            0..3i32,
            0..4i32,
            0..B_VALUES.len(),
            0..7usize,
            any::<bool>(),
            -2i16..2,
        ),
        (0..100u32, 0..3i32),
        (0..100u32, 0..B_VALUES.len()),
        (
            0..fs.len(),
            0..byte_strings().len(),
            (0..100u32, 0..times_of_day().len()),
            0..user_ids().len(),
            0..u64s().len(),
        ),
        (
            0..frs.len(),
            0..decimals().len(),
            0..primitive_datetimes().len(),
            (0..100u32, 0..time_dates().len()),
            0..uuids().len(),
            0..3usize,
        ),
    );
    (density, prop::collection::vec(row, 0..=500))
        .prop_flat_map(|(density, values)| {
            let n = values.len();
            let ids: Vec<i64> = (0..n as i64).map(|i| i * 3 - 400).collect();
            (Just(density), Just(values), Just(ids).prop_shuffle())
        })
        .prop_map(move |(density, values, ids)| {
            let (cs, gs, hs, ks, us) = (
                c_values(),
                byte_strings(),
                times_of_day(),
                user_ids(),
                u64s(),
            );
            let (ns, tts, tds, uus) = (decimals(), primitive_datetimes(), time_dates(), uuids());
            values
                .into_iter()
                .zip(ids)
                .map(
                    |(
                        (
                            (tenant, a, b, c, d, e),
                            (pa, na),
                            (pb, nb),
                            (f, g, (ph, h), k, u),
                            (fr, n, tt, (pd, td), uu, st),
                        ),
                        id,
                    )| {
                        Row {
                            tenant,
                            a,
                            b: B_VALUES[b].to_string(),
                            c: cs[c],
                            d,
                            e,
                            na: (pa >= density).then_some(na),
                            nb: (pb >= density).then(|| B_VALUES[nb].to_string()),
                            f: fs[f],
                            g: gs[g].clone(),
                            nh: (ph >= density).then_some(hs[h]),
                            k: ks[k],
                            u: us[u],
                            fr: frs[fr],
                            n: ns[n].clone(),
                            tt: tts[tt],
                            ntd: (pd >= density).then_some(tds[td]),
                            uu: uus[uu],
                            st,
                            ..Row::new(id)
                        }
                    },
                )
                .collect()
        })
}

/// The 4 groups rows join to on `a` (`a` is 0-3, so every row has its group): names from
/// `GROUP_NAMES`, ranks 0-1 or NULL.
pub fn groups() -> impl Strategy<Value = Vec<Group>> {
    let group = (0..GROUP_NAMES.len(), prop::option::of(0..2i32));
    prop::collection::vec(group, 4).prop_map(|groups| {
        groups
            .into_iter()
            .zip(0..)
            .map(|((name, rank), group_id)| Group {
                group_id,
                group_name: GROUP_NAMES[name].to_string(),
                group_rank: rank,
            })
            .collect()
    })
}

/// The generator's seed: `KEYSET_ORACLE_SEED`, default a new one per run (printed, so a run
/// can be repeated).
pub fn oracle_seed() -> u64 {
    std::env::var("KEYSET_ORACLE_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
            now ^ u64::from(std::process::id()).rotate_left(32)
        })
}

/// Runs [`oracle_cases`] random cases on backend `C` from [`oracle_seed`]; panics with the
/// smallest failing case. With `KEYSET_RELIABILITY_DIR` set, appends the backend, seed,
/// cases and seconds to `oracle.tsv` there (scripts/reliability.sh).
pub fn oracle_property<C: TestDb + BackendRowModels>() {
    oracle_property_on(
        C::open(),
        oracle_cases(),
        "",
        &C::row_models(),
        |db, model, scenario| db.run_row_model(model, scenario),
    );
}

/// Runs `cases` random cases on `db` from [`oracle_seed`], each through `run` (index in
/// `models`, the row models' names, and scenario); `path` names the loading path in the
/// messages and the report line. Panics with the smallest failing case and the seed.
pub fn oracle_property_on<D: OracleDb>(
    db: D,
    cases: u32,
    path: &str,
    models: &[&str],
    run: impl Fn(&mut D, usize, &Scenario) -> Result<(), String>,
) {
    let db = RefCell::new(db);
    let seed = oracle_seed();
    eprintln!(
        "oracle property on {}{path}: KEYSET_ORACLE_SEED={seed}",
        D::Db::NAME
    );
    let started = std::time::Instant::now();
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(seed),
        ..Config::default()
    });
    let scenario = (
        0..3i32,
        1..=50u32,
        any::<bool>(),
        any::<bool>(),
        prop::option::of(any::<bool>()),
        prop::collection::vec(any::<bool>(), 0..8),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(tenant, page_size, boxed, exact, deferred, steps, per_level, total, expanded)| {
                Scenario {
                    tenant,
                    page_size,
                    boxed,
                    exact,
                    deferred,
                    per_level,
                    expanded,
                    total,
                    steps,
                }
            },
        );
    let strategy = (
        rows(D::Db::STORES_INFINITIES),
        groups(),
        0..models.len(),
        scenario,
    );
    let ran = std::cell::Cell::new(0u32);
    let result = runner.run(&strategy, |(rows, groups, model, scenario)| {
        let mut db = db.borrow_mut();
        db.db().clear(&["keyset_rows", "keyset_groups"]);
        db.db().insert_rows(&rows);
        db.db().insert_groups(&groups);
        ran.set(ran.get() + 1);
        // A panic (in a check or a page invariant) fails the case; proptest then shrinks it.
        let outcome = run(&mut db, model, &scenario);
        prop_assert!(
            outcome.is_ok(),
            "{}{path} model {}: {:?}: {}",
            D::Db::NAME,
            models[model],
            scenario,
            outcome.unwrap_err()
        );
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e} (KEYSET_ORACLE_SEED={seed})");
    }
    eprintln!(
        "oracle property on {}{path}: {} cases passed ({} runs including shrinking)",
        D::Db::NAME,
        cases,
        ran.get()
    );
    assert!(ran.get() >= cases, "fewer cases ran than configured");
    crate::report::append_report(
        "oracle.tsv",
        &format!(
            "{}{path}\t{seed}\t{cases}\t{:.1}",
            D::Db::NAME,
            started.elapsed().as_secs_f64()
        ),
    );
}
