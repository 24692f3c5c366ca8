//! The oracle as a property test: random tables of 0-500 rows with heavy ties (values from
//! small domains), a random keyset of 1-4 columns in every direction combination (one of
//! [`ROW_MODELS`]), a random page size 1-50, a random tenant filter, boxed or unboxed query.
//! Walking all pages must equal the plain `ORDER BY` query.

use std::cell::RefCell;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

use crate::models::ROW_MODELS;
use crate::oracle::assert_matches;
use crate::{at, Row, TestDb};

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

/// 0-500 rows over 3 tenants, ids a random permutation (so id order is not insert order).
pub fn rows() -> impl Strategy<Value = Vec<Row>> {
    let row = (
        0..3i32,
        0..4i32,
        0..B_VALUES.len(),
        0..7usize,
        any::<bool>(),
        -2i16..2,
    );
    prop::collection::vec(row, 0..=500)
        .prop_flat_map(|values| {
            let n = values.len();
            let ids: Vec<i64> = (0..n as i64).map(|i| i * 3 - 400).collect();
            (Just(values), Just(ids).prop_shuffle())
        })
        .prop_map(|(values, ids)| {
            let cs = c_values();
            values
                .into_iter()
                .zip(ids)
                .map(|((tenant, a, b, c, d, e), id)| Row {
                    tenant,
                    a,
                    b: B_VALUES[b].to_string(),
                    c: cs[c],
                    d,
                    e,
                    ..Row::new(id)
                })
                .collect()
        })
}

/// Runs [`oracle_cases`] random cases on backend `C`; panics with the smallest failing case.
pub fn oracle_property<C: TestDb>() {
    let db = RefCell::new(C::open());
    let cases = oracle_cases();
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (
        rows(),
        0..ROW_MODELS.len(),
        1..=50u32,
        0..3i32,
        any::<bool>(),
    );
    let ran = std::cell::Cell::new(0u32);
    let result = runner.run(&strategy, |(rows, model, page_size, tenant, boxed)| {
        let mut db = db.borrow_mut();
        db.exec("DELETE FROM keyset_rows");
        db.insert_rows(&rows);
        let compared = db.walk_row_model(model, tenant, page_size, boxed);
        let context = format!(
            "{} model {} page size {page_size} tenant {tenant} boxed {boxed}",
            C::NAME,
            ROW_MODELS[model]
        );
        ran.set(ran.get() + 1);
        // A panic (here or in a page invariant) fails the case; proptest then shrinks it.
        assert_matches(&compared, &context);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    eprintln!(
        "oracle property on {}: {} cases passed ({} runs including shrinking)",
        C::NAME,
        cases,
        ran.get()
    );
    assert!(ran.get() >= cases, "fewer cases ran than configured");
}
