//! Tie-breakers that are not unique in the query's rows: `unique` on a column with ties and a
//! join that repeats the tie-breaker are typed errors; `GROUP BY` keyed on the group key (one
//! row per group) is the control that pages.

use keyset_diesel::KeysetError;

use super::{create_loud_events, GroupQueries, LoudQueries};
use super::{walk, walk_model};
use super::{TeamMember, UniqueTimestamp};
use crate::models::{Read, Walk};
use crate::{at, Row, TestDb};

/// `unique` on a timestamp with ties (the new user's 1,879 of 2,000 rows): rows 1..5 at
/// t0, t1, t2, t2, t3. Each walk pages up to the tie and then fails with
/// `TieBreakerNotUnique` naming `c`, forward and backward, every page size; never a page
/// that skips one of the tied rows.
pub fn unique_column_with_ties_is_a_typed_error<C: TestDb>()
where
    UniqueTimestamp: Walk<C, Filter = ()>,
{
    let mut db = C::open();
    let rows: Vec<Row> = [(1, 0), (2, 1), (3, 2), (4, 2), (5, 3)]
        .into_iter()
        .map(|(id, secs)| Row {
            c: at(secs, 0),
            ..Row::new(id)
        })
        .collect();
    db.insert_rows(&rows);
    let err = Some(KeysetError::TieBreakerNotUnique { tie_breaker: "c" });
    let id = |r: &UniqueTimestamp| r.id;
    let cases: [(Read, Vec<Vec<i64>>); 5] = [
        (Read::forward(1), vec![vec![1], vec![2]]),
        (Read::forward(2), vec![vec![1, 2]]),
        (Read::forward(3), vec![]),
        (Read::backward(1), vec![vec![5]]),
        (Read::backward(2), vec![]),
    ];
    for (how, pages) in cases {
        assert_eq!(
            walk_model(&mut *db, how, id),
            (pages, err.clone()),
            "{how:?}"
        );
    }
    // Without the tie the same model walks every row.
    db.exec("DELETE FROM keyset_rows WHERE id = 4");
    assert_eq!(
        walk_model(&mut *db, Read::forward(1), id),
        (vec![vec![1], vec![2], vec![3], vec![5]], None)
    );
}

/// A join repeating the tie-breaker, without a joined key: `loud_teams.id` is the tie-breaker of a
/// model paged over a one-to-many join, so it repeats per member. Page sizes 1, 2 and 4, both ways:
/// the walk stops with `TieBreakerNotUnique` naming `id` where it meets the repeated team (today it
/// returned 4 of 6 rows without an error).
pub fn join_repeating_rows_is_a_typed_error<C: LoudQueries>() {
    let mut db = C::open();
    db.exec("CREATE TABLE loud_teams (id INTEGER NOT NULL PRIMARY KEY, name VARCHAR(16) NOT NULL)");
    db.exec(
        "CREATE TABLE loud_members (id INTEGER NOT NULL PRIMARY KEY, team_id INTEGER NOT NULL)",
    );
    db.exec("INSERT INTO loud_teams VALUES (1, 'Red'), (2, 'Blue'), (3, 'Gold')");
    db.exec("INSERT INTO loud_members VALUES (10, 1), (11, 1), (12, 2), (13, 3), (14, 3), (15, 3)");
    let err = Some(KeysetError::TieBreakerNotUnique { tie_breaker: "id" });
    let member = |r: &TeamMember| i64::from(r.member_id);
    let cases: [(Read, Vec<Vec<i64>>); 6] = [
        (Read::forward(1), vec![vec![12]]),
        (Read::forward(2), vec![]),
        (Read::forward(4), vec![]),
        (Read::backward(1), vec![]),
        (Read::backward(2), vec![]),
        (Read::backward(4), vec![]),
    ];
    for (how, pages) in cases {
        let walked = walk(|cursor| db.team_members(cursor, how), member);
        assert_eq!(walked, (pages, err.clone()), "{how:?}");
    }
    // Once no team has two members, the same keyset walks every joined row.
    db.exec("DELETE FROM loud_members WHERE id IN (11, 14, 15)");
    for page_size in [1, 2, 4] {
        let walked = walk(
            |cursor| db.team_members(cursor, Read::forward(page_size)),
            member,
        );
        let flat: Vec<i64> = walked.0.concat();
        assert_eq!(
            (flat, walked.1),
            (vec![12, 13, 10], None),
            "page size {page_size}"
        );
    }
}

/// The control of the `DISTINCT ON` case, on every backend: `GROUP BY device` with `count(*)`,
/// keyed on `device` (`unique`: one row per group), page size 1: [(d1,3)], [(d2,2)], [(d3,2)]; with
/// `HAVING count(*) >= 3`: [(d1,3)]. Boxed and unboxed alike.
pub fn group_by_pages_one_row_per_group<C: GroupQueries>() {
    let mut db = C::open();
    create_loud_events(&mut *db);
    for boxed in [false, true] {
        for (having, expected) in [
            (None, vec![("d1", 3), ("d2", 2), ("d3", 2)]),
            (Some(3), vec![("d1", 3)]),
        ] {
            let mut rows = Vec::new();
            let mut pages = 0;
            let mut cursor = None;
            loop {
                let page = db
                    .device_counts(having, cursor.take(), 1, boxed)
                    .expect("group page");
                pages += 1;
                rows.extend(page.items.iter().map(|r| (r.device.clone(), r.events)));
                match page.next_cursor() {
                    Some(next) => cursor = Some(next),
                    None => break,
                }
                assert!(pages < 10, "the walk ends");
            }
            let expected: Vec<(String, i64)> = expected
                .into_iter()
                .map(|(d, n)| (d.to_string(), n))
                .collect();
            assert_eq!(rows, expected, "having {having:?}, boxed {boxed}");
            assert_eq!(pages, rows.len(), "one group per page");
        }
    }
}
