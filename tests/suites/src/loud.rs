//! Loud instead of wrong (issue 11, section 4): the page check turns a tie-breaker that is not
//! unique in the query's rows (docs/CASES.md C35 without a joined key; `unique` on a column
//! with ties) and a key value that does not survive the round trip to Rust and back (C31) into
//! a typed error on the page where the walk meets them, never a repeated, lost or endless page.

use crate::models::{Read, Walk};
use crate::NextToken as _;
use crate::{at, Row, TestDb};
use diesel::QueryResult;
use keyset_diesel::{Cursor, Keyset, KeysetError, Page};
pub use keyset_test_models::loud::*;

/// Reads pages with `read` until the end or the first error: the ids of each page in display
/// order, and the error (as a [`KeysetError`], which it must be) if the walk stopped on one.
/// The ids delivered before the error never repeat.
fn walk<K: Keyset>(
    mut read: impl FnMut(Option<Cursor<K>>) -> QueryResult<Page<K>>,
    id: impl Fn(&K) -> i64,
) -> (Vec<Vec<i64>>, Option<KeysetError>) {
    let mut pages = Vec::new();
    let mut cursor = None;
    for _ in 0..20 {
        match read(cursor.take()) {
            Ok(page) => {
                pages.push(page.items.iter().map(&id).collect::<Vec<_>>());
                match page.next_cursor() {
                    Some(next) => cursor = Some(next),
                    None => break,
                }
            }
            Err(e) => {
                assert!(
                    matches!(e, diesel::result::Error::DeserializationError(_)),
                    "the page check's errors come as DeserializationError: {e:?}"
                );
                let keyset = KeysetError::from_diesel(&e)
                    .unwrap_or_else(|| panic!("a KeysetError, not {e:?}"))
                    .clone();
                check_no_repeats(&pages);
                return (pages, Some(keyset));
            }
        }
    }
    check_no_repeats(&pages);
    (pages, None)
}

fn check_no_repeats(pages: &[Vec<i64>]) {
    let mut seen: Vec<i64> = pages.iter().flatten().copied().collect();
    let all = seen.len();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), all, "no row twice before the error: {pages:?}");
}

fn walk_model<M, C>(
    conn: &mut C,
    how: Read,
    id: impl Fn(&M) -> i64,
) -> (Vec<Vec<i64>>, Option<KeysetError>)
where
    M: Walk<C, Filter = ()>,
{
    walk(|cursor| M::read(conn, &(), cursor, how), id)
}

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

/// docs/CASES.md C35 without a joined key: `loud_teams.id` is the tie-breaker of a model paged
/// over a one-to-many join, so it repeats per member. Page sizes 1, 2 and 4, both ways: the
/// walk stops with `TieBreakerNotUnique` naming `id` where it meets the repeated team (today
/// it returned 4 of 6 rows without an error).
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

/// docs/CASES.md C31 (a), on SQLite (`BOOLEAN`) and MariaDB (`TINYINT(1)`): another writer
/// stored 2 in a column read as `bool`. `pinned ASC, id ASC` (database order 4,2,5,1,3) fails
/// with `KeyOutOfOrder` on `id` where the walk meets a 2 (reading 2 as `true` and binding
/// `true` back as 1 used to give `[4,2]`, `[5,1]`, `[2,5]`, `[1,3]`); so does `pinned DESC, id ASC`
/// at page size 2. (At page size 1 the descending walk cannot see the fault in the rows it
/// fetches: see the README's limits.)
pub fn bool_column_holding_2_is_a_typed_error<C: TestDb>()
where
    FlagAsc: Walk<C, Filter = ()>,
    FlagDesc: Walk<C, Filter = ()>,
{
    let mut db = C::open();
    let pinned = if C::NAME == "MySQL" {
        "TINYINT(1)"
    } else {
        "BOOLEAN"
    };
    db.exec(&format!(
        "CREATE TABLE loud_flags (id INTEGER NOT NULL PRIMARY KEY, pinned {pinned} NOT NULL)"
    ));
    db.exec("INSERT INTO loud_flags VALUES (1, 2), (2, 1), (3, 2), (4, 0), (5, 1)");
    assert_eq!(
        db.ids("SELECT CAST(id AS SIGNED) AS id FROM loud_flags ORDER BY pinned, id")
            .into_iter()
            .collect::<Vec<_>>(),
        vec![4, 2, 5, 1, 3],
        "the database's order"
    );
    let err = Some(KeysetError::KeyOutOfOrder { column: "id" });
    let asc = |r: &FlagAsc| i64::from(r.id);
    assert_eq!(
        walk_model(&mut *db, Read::forward(2), asc),
        (vec![vec![4, 2]], err.clone())
    );
    assert_eq!(
        walk_model(&mut *db, Read::forward(1), asc),
        (vec![vec![4], vec![2]], err.clone())
    );
    let desc = |r: &FlagDesc| i64::from(r.id);
    assert_eq!(
        walk_model(&mut *db, Read::forward(2), desc),
        (vec![], err.clone())
    );
    // With only 0 and 1 stored, both keysets walk every row.
    db.exec("UPDATE loud_flags SET pinned = 1 WHERE pinned = 2");
    assert_eq!(
        walk_model(&mut *db, Read::forward(2), asc),
        (vec![vec![4, 1], vec![2, 3], vec![5]], None)
    );
    assert_eq!(
        walk_model(&mut *db, Read::forward(1), desc),
        (vec![vec![1], vec![2], vec![3], vec![5], vec![4]], None)
    );
}

/// docs/CASES.md C31 (a) in every direction: `loud_flags` filled with every small mix of
/// stored values (SQLite and MariaDB: 0, 1, 2 and -1, which Diesel reads as `false`, `true`,
/// `true`, `true`; PostgreSQL: booleans), walked by `pinned ASC, id ASC` and `pinned DESC,
/// id ASC`, forward and backward, at page sizes 1, 2 and 3. Every walk either delivers
/// exactly the database's `ORDER BY` or stops on a page-check error before any row repeats;
/// never a walk that completes with a row missing. Without the seek's arm for unrepresented
/// values, `pinned DESC, id ASC` over `(1, 2), (2, 1), (3, 2), (4, 0), (5, 1)` at page size 1
/// gave `[1]`, `[2]`, `[5]`, `[4]`: row 3 lost, no error.
pub fn lossy_bool_is_loud_in_every_direction<C: TestDb>()
where
    FlagAsc: Walk<C, Filter = ()>,
    FlagDesc: Walk<C, Filter = ()>,
    FlagTitle: Walk<C, Filter = ()>,
{
    let mut db = C::open();
    let (column, values): (&str, &[&str]) = match C::NAME {
        "MySQL" => ("TINYINT(1)", &["0", "1", "2", "-1"]),
        "SQLite" => ("BOOLEAN", &["0", "1", "2", "-1"]),
        _ => ("BOOLEAN", &["false", "true"]),
    };
    db.exec(&format!(
        "CREATE TABLE loud_flags (id INTEGER NOT NULL PRIMARY KEY, pinned {column} NOT NULL)"
    ));
    // The mix first, then a deterministic spread of mixes of 5 rows.
    let mut mixes: Vec<Vec<usize>> = vec![vec![1, 2, 1, 0, 1]];
    let mut state = 0x9e37_79b9_u32;
    for _ in 0..40 {
        mixes.push(
            (0..5)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 17;
                    state ^= state << 5;
                    state as usize % values.len()
                })
                .collect(),
        );
    }
    if values.len() == 2 {
        mixes[0] = vec![1, 1, 1, 0, 1];
    }
    let mut loud = 0;
    for mix in &mixes {
        db.exec("DELETE FROM loud_flags");
        let rows: Vec<String> = mix
            .iter()
            .enumerate()
            .map(|(i, &v)| format!("({}, {})", i + 1, values[v]))
            .collect();
        db.exec(&format!(
            "INSERT INTO loud_flags VALUES {}",
            rows.join(", ")
        ));
        let id = if C::NAME == "MySQL" {
            "CAST(id AS SIGNED)"
        } else {
            "CAST(id AS BIGINT)"
        };
        let mut order = |dir: &str| {
            db.ids(&format!(
                "SELECT {id} AS id FROM loud_flags ORDER BY pinned {dir}, id"
            ))
        };
        let (asc, desc) = (order("ASC"), order("DESC"));
        for page_size in 1..=3 {
            for backward in [false, true] {
                let how = if backward {
                    Read::backward(page_size)
                } else {
                    Read::forward(page_size)
                };
                let walks = [
                    (
                        "pinned ASC",
                        &asc,
                        walk_model(&mut *db, how, |r: &FlagAsc| i64::from(r.id)),
                    ),
                    (
                        "pinned DESC",
                        &desc,
                        walk_model(&mut *db, how, |r: &FlagDesc| i64::from(r.id)),
                    ),
                ];
                for (name, expected, (mut pages, error)) in walks {
                    let label =
                        format!("{name}, {mix:?}, page size {page_size}, backward {backward}");
                    if backward {
                        pages.reverse();
                    }
                    let flat: Vec<i64> = pages.concat();
                    match error {
                        None => assert_eq!(&flat, expected, "{label}: a complete walk is exact"),
                        Some(
                            KeysetError::KeyOutOfOrder { .. }
                            | KeysetError::CursorRowReturned
                            | KeysetError::TieBreakerNotUnique { .. },
                        ) => {
                            loud += 1;
                            assert!(
                                flat.iter().all(|id| expected.contains(id)),
                                "{label}: {flat:?}"
                            );
                        }
                        Some(other) => panic!("{label}: {other:?}"),
                    }
                }
            }
        }
        if mix == &mixes[0] && values.len() > 2 {
            let (pages, error) =
                walk_model(&mut *db, Read::forward(1), |r: &FlagDesc| i64::from(r.id));
            assert!(error.is_some(), "the issue's walk is loud: {pages:?}");
        }
    }
    if values.len() == 2 {
        assert_eq!(loud, 0, "booleans that are booleans page without an error");
    } else {
        assert!(loud > 0, "the mixes hold unrepresented values");
    }

    // With a text column in the keyset the seek adds no arm: a re-read row whose title
    // differs from the cursor's would pass the page check, and the walk would loop (R1, R2
    // forever at page size 2). Forward, the walk now ends without a row twice; it can still
    // lose a row over a stored 2 (and read one twice backward): docs/LIMITS.md says so.
    // Over 0 and 1 alone every walk is the database's order.
    db.exec(&format!(
        "CREATE TABLE loud_flag_titles (id INTEGER NOT NULL PRIMARY KEY, pinned {column} NOT NULL, \
         title VARCHAR(8) NOT NULL)"
    ));
    let lossy = values.len() > 2;
    let (two, one) = if lossy { ("2", "1") } else { ("true", "true") };
    let zero = if lossy { "0" } else { "false" };
    db.exec(&format!(
        "INSERT INTO loud_flag_titles VALUES (1, {two}, 'b'), (2, {two}, 'm'), (3, {one}, 'a'), \
         (4, {one}, 'x'), (5, {zero}, 'c')"
    ));
    for page_size in 1..=3 {
        let reads = if lossy {
            vec![Read::forward(page_size)]
        } else {
            vec![Read::forward(page_size), Read::backward(page_size)]
        };
        for how in reads {
            let (pages, _) = walk_model(&mut *db, how, |r: &FlagTitle| i64::from(r.id));
            assert!(pages.len() <= 6, "the walk ends: {pages:?}");
            if !lossy {
                let mut flat: Vec<i64> = pages.concat();
                flat.sort_unstable();
                assert_eq!(flat, [1, 2, 3, 4, 5], "page size {page_size}");
            }
        }
    }
}

/// One case of C39: the column's type (with its collation), the tags stored (with their
/// `grp`), and whether the collation calls two of them equal.
struct TagCase {
    column: String,
    tags: Vec<(&'static str, i32)>,
    collation_equal_pair: bool,
}

/// docs/CASES.md C39: a text tie-breaker `unique` by convention whose column's collation calls
/// two different strings equal (case, accents, canonically equivalent Unicode, trailing
/// spaces under PAD SPACE). `grp ASC, tag ASC` and `grp ASC, tag DESC`, forward and backward,
/// at page sizes 1, 2 and 3: every walk over such a pair stops with
/// `CollationEqualKeys { column: "tag", .. }` before any row repeats (the strict seek from one
/// of the pair used to skip the other: a page size 1 walk lost a row with no error); every
/// walk over tags no collation here calls equal delivers exactly the database's `ORDER BY`.
/// The plan is untouched: the crate still writes the column's own comparison (no `COLLATE`).
pub fn collation_equal_text_tie_breaker_is_loud<C: TestDb>()
where
    TagAsc: Walk<C, Filter = ()>,
    TagDesc: Walk<C, Filter = ()>,
    TagExact: Walk<C, Filter = ()>,
{
    let case = |column: &str, tags: &[(&'static str, i32)], pair: bool| TagCase {
        column: column.to_string(),
        tags: tags.to_vec(),
        collation_equal_pair: pair,
    };
    let distinct = [("a", 1), ("b", 1), ("c", 1), ("d", 2), ("e", 2), ("f", 2)];
    let cases = match C::NAME {
        "SQLite" => vec![
            case(
                "TEXT NOT NULL COLLATE NOCASE",
                &[("a", 1), ("B", 1), ("A", 1), ("c", 1), ("b", 2), ("d", 2)],
                true,
            ),
            case(
                "TEXT NOT NULL COLLATE RTRIM",
                &[("x", 1), ("x  ", 1), ("y", 1), ("w", 1)],
                true,
            ),
            case("TEXT NOT NULL COLLATE NOCASE", &distinct, false),
        ],
        "PostgreSQL" => {
            // Case- and accent-insensitive (`keyset_ci_ai`), and canonical equivalence only
            // (`keyset_nd`): created in `public` below, which every test schema sees.
            vec![
                case(
                    "TEXT NOT NULL COLLATE public.keyset_ci_ai",
                    &[("a", 1), ("B", 1), ("A", 1), ("c", 1), ("b", 2), ("d", 2)],
                    true,
                ),
                case(
                    "TEXT NOT NULL COLLATE public.keyset_ci_ai",
                    &[("e", 1), ("\u{e9}", 1), ("f", 1), ("d", 1)],
                    true,
                ),
                case(
                    "TEXT NOT NULL COLLATE public.keyset_nd",
                    &[("\u{e9}", 1), ("e\u{301}", 1), ("f", 1), ("d", 1)],
                    true,
                ),
                case(
                    "TEXT NOT NULL COLLATE public.keyset_ci_ai",
                    &distinct,
                    false,
                ),
            ]
        }
        _ => vec![
            case(
                "VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NOT NULL",
                &[("a", 1), ("B", 1), ("A", 1), ("c", 1), ("b", 2), ("d", 2)],
                true,
            ),
            case(
                "VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NOT NULL",
                &[("e", 1), ("\u{e9}", 1), ("f", 1), ("d", 1)],
                true,
            ),
            // PAD SPACE even under a binary collation.
            case(
                "VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL",
                &[("x", 1), ("x  ", 1), ("y", 1), ("w", 1)],
                true,
            ),
            case(
                "VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NOT NULL",
                &distinct,
                false,
            ),
        ],
    };
    // `tag` is the row's id here: its position in the case's list.
    // A fresh database per case: the table is created again with another collation, and
    // PostgreSQL refuses a cached statement whose result type changed.
    for case in &cases {
        let mut db = C::open();
        if C::NAME == "PostgreSQL" {
            for (name, locale) in [("keyset_ci_ai", "und-u-ks-level1"), ("keyset_nd", "und")] {
                let sql = format!(
                    "CREATE COLLATION IF NOT EXISTS public.{name} \
                     (provider = icu, locale = '{locale}', deterministic = false)"
                );
                db.exec(&sql);
            }
        }
        db.exec(&format!(
            "CREATE TABLE loud_tags (tag {}, grp INTEGER NOT NULL)",
            case.column
        ));
        let values: Vec<String> = case
            .tags
            .iter()
            .map(|(tag, grp)| format!("('{tag}', {grp})"))
            .collect();
        db.exec(&format!(
            "INSERT INTO loud_tags VALUES {}",
            values.join(", ")
        ));
        let position = |tag: &str| -> i64 {
            case.tags
                .iter()
                .position(|(t, _)| *t == tag)
                .expect("a stored tag") as i64
        };
        let all: Vec<i64> = (0..case.tags.len() as i64).collect();
        for page_size in 1..=3 {
            for backward in [false, true] {
                let how = if backward {
                    Read::backward(page_size)
                } else {
                    Read::forward(page_size)
                };
                let walks = [
                    (
                        "tag ASC",
                        walk_model(&mut *db, how, |r: &TagAsc| position(&r.tag)),
                    ),
                    (
                        "tag DESC",
                        walk_model(&mut *db, how, |r: &TagDesc| position(&r.tag)),
                    ),
                ];
                for (name, (pages, error)) in walks {
                    let label = format!(
                        "{name} over {}, {:?}, page size {page_size}, backward {backward}",
                        case.column, case.tags
                    );
                    if case.collation_equal_pair {
                        // The page check's own refusal; on MariaDB the deferred join may meet
                        // the pair first (joining back on `tag` matches both rows of it), and
                        // the page check sees a row twice or out of order instead.
                        assert!(
                            matches!(
                                error,
                                Some(
                                    KeysetError::CollationEqualKeys {
                                        column: "tag",
                                        tie_breaker: "tag"
                                    } | KeysetError::TieBreakerNotUnique { tie_breaker: "tag" }
                                        | KeysetError::CursorRowReturned
                                        | KeysetError::KeyOutOfOrder { column: "grp" }
                                )
                            ),
                            "{label}: {pages:?} {error:?}"
                        );
                    } else {
                        assert_eq!(error, None, "{label}");
                        let mut flat: Vec<i64> = pages.concat();
                        flat.sort_unstable();
                        assert_eq!(flat, all, "{label}: every row once");
                    }
                }
            }
        }
        if !case.collation_equal_pair {
            // The same pages as the database's ORDER BY, in order.
            let mut expected: Vec<(i32, &str)> = case.tags.iter().map(|&(t, g)| (g, t)).collect();
            expected.sort_unstable();
            let (pages, error) =
                walk_model(&mut *db, Read::forward(2), |r: &TagAsc| position(&r.tag));
            assert_eq!(error, None);
            let ids: Vec<i64> = expected.iter().map(|(_, t)| position(t)).collect();
            assert_eq!(pages.concat(), ids, "ASCII tags in any collation's order");
        }
    }
    // `exact_text` says the collation calls only the same strings equal: on a column where
    // that holds, `a` next to `a ` (or `A`) is no error. (On the cases above it does not hold,
    // and the same declaration would lose a row: the word is the user's claim.)
    let (column, tags) = match C::NAME {
        "SQLite" => ("TEXT NOT NULL", [("a", 1), ("a ", 1), ("b", 1)]),
        "PostgreSQL" => (
            "TEXT NOT NULL COLLATE \"C\"",
            [("a", 1), ("a ", 1), ("b", 1)],
        ),
        _ => ("VARBINARY(32) NOT NULL", [("a", 1), ("a ", 1), ("b", 1)]),
    };
    let mut db = C::open();
    db.exec(&format!(
        "CREATE TABLE loud_tags (tag {column}, grp INTEGER NOT NULL)"
    ));
    let values: Vec<String> = tags.iter().map(|(t, g)| format!("('{t}', {g})")).collect();
    db.exec(&format!(
        "INSERT INTO loud_tags VALUES {}",
        values.join(", ")
    ));
    let position =
        |tag: &str| -> i64 { tags.iter().position(|(t, _)| *t == tag).expect("tag") as i64 };
    for page_size in 1..=3 {
        let (pages, error) = walk_model(&mut *db, Read::forward(page_size), |r: &TagExact| {
            position(&r.tag)
        });
        assert_eq!(
            (pages.concat(), error),
            (vec![0, 1, 2], None),
            "exact_text, page size {page_size}"
        );
        let (_, error) = walk_model(&mut *db, Read::forward(page_size), |r: &TagAsc| {
            position(&r.tag)
        });
        assert!(
            matches!(error, Some(KeysetError::CollationEqualKeys { .. })),
            "without exact_text the page check cannot tell: {error:?}"
        );
    }
}

/// docs/CASES.md C31 (b), SQLite: a REAL 2.5 in an INTEGER column read as `i32` (as 2).
/// `score ASC, id ASC`, page size 1, used to loop (`[1]`, `[2]`, `[2]`, `[2]`, ...); now the page after
/// row 2 fails with `CursorRowReturned` (the cursor's own row came back). Page size 2 fails
/// the same way; the backward walk never meets the fault and is exact: `[3]`, `[2]`, `[1]`.
pub fn real_in_integer_column_is_a_typed_error<C: TestDb>()
where
    ScoreAsc: Walk<C, Filter = ()>,
{
    let mut db = C::open();
    db.exec("CREATE TABLE loud_scores (id INTEGER NOT NULL PRIMARY KEY, score INTEGER NOT NULL)");
    db.exec("INSERT INTO loud_scores VALUES (1, 2), (2, 2.5), (3, 3)");
    let id = |r: &ScoreAsc| i64::from(r.id);
    let err = Some(KeysetError::CursorRowReturned);
    assert_eq!(
        walk_model(&mut *db, Read::forward(1), id),
        (vec![vec![1], vec![2]], err.clone())
    );
    assert_eq!(
        walk_model(&mut *db, Read::forward(2), id),
        (vec![vec![1, 2]], err)
    );
    assert_eq!(
        walk_model(&mut *db, Read::backward(1), id),
        (vec![vec![3], vec![2], vec![1]], None)
    );
}

/// docs/CASES.md C33's control, on every backend: `GROUP BY device` with `count(*)`, keyed on
/// `device` (`unique`: one row per group), page size 1: [(d1,3)], [(d2,2)], [(d3,2)]; with
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

/// docs/CASES.md C32: long and escape-heavy text keys walk through signed tokens with the
/// default maximum token length. `title VARCHAR(500)`: (1,'a'), (2,'a' + 499 ×
/// '語'), (3,'b'), then row 2 as 'a' + 254 × U+0001 (a 6-byte JSON escape each). Page size 1,
/// every page's cursor passed as a token: the walk equals the database's `ORDER BY title, id`
/// (the collation decides where the U+0001 title sorts) and every token fits.
pub fn long_and_escape_heavy_text_keys_walk_through_tokens<C: TestDb>()
where
    DocByTitle: Walk<C, Filter = ()>,
{
    use keyset_diesel::token::{SecretKey, DEFAULT_MAX_TOKEN_LEN};
    use keyset_diesel::CursorCodec;
    let mut db = C::open();
    db.exec("CREATE TABLE loud_docs (id BIGINT NOT NULL PRIMARY KEY, title VARCHAR(500) NOT NULL)");
    let long = format!("a{}", "語".repeat(499));
    let escapes = format!("a{}", "\u{1}".repeat(254));
    let key = || SecretKey::new(1, b"keyset tests: not a real secret!").expect("key");
    // Signed tokens (the encrypted form, feature `encrypted-tokens`, is not enabled in this
    // test crate).
    let codecs = [(
        "signed",
        CursorCodec::builder()
            .signing_key(key())
            .build()
            .expect("codec"),
    )];
    for title in [long, escapes] {
        db.exec("DELETE FROM loud_docs");
        // Neither title holds a quote; U+0001 is a plain character in every backend's literal.
        db.exec(&format!(
            "INSERT INTO loud_docs VALUES (1, 'a'), (2, '{title}'), (3, 'b')"
        ));
        let oracle = db.ids("SELECT id FROM loud_docs ORDER BY title, id");
        assert_eq!(oracle.len(), 3);
        for (name, codec) in &codecs {
            let mut walked = Vec::new();
            let mut longest = 0;
            let mut token: Option<String> = None;
            for _ in 0..10 {
                let cursor = token.as_deref().map(|t| {
                    codec
                        .decode::<DocByTitle>(t, &"docs")
                        .expect("token decodes")
                });
                let page = DocByTitle::page(&mut *db, &(), cursor, 1, false).expect("page");
                walked.extend(page.items.iter().map(|d| d.id));
                token = codec.next_token(&page, &"docs").expect("token fits");
                match &token {
                    Some(t) => longest = longest.max(t.chars().count()),
                    None => break,
                }
            }
            assert_eq!(
                walked,
                oracle,
                "{name}, title of {} chars",
                title.chars().count()
            );
            assert!(
                longest > 0 && longest <= DEFAULT_MAX_TOKEN_LEN,
                "{name}: {longest}"
            );
        }
    }
}
