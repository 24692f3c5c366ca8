//! A text tie-breaker whose column's collation calls two different strings equal (case,
//! accents, canonically equivalent Unicode, trailing spaces): a typed error before any row
//! repeats, and exact pages over tags no collation calls equal.

use keyset_diesel::KeysetError;

use super::walk_model;
use super::{TagAsc, TagDesc, TagExact};
use crate::models::{Read, Walk};
use crate::{OracleDb, TestDb};

/// One case of text a collation calls equal: the column's type (with its collation), the tags
/// stored (with their `grp`), and whether the collation calls two of them equal.
struct TagCase {
    column: String,
    tags: Vec<(&'static str, i32)>,
    collation_equal_pair: bool,
}

/// A text tie-breaker `unique` by convention whose column's collation calls
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
        for (page_size, backward, how) in super::every_read() {
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
    // that holds, `a` next to `a ` (or `A`) is no error, and no question is asked. (On the
    // cases above it does not hold, and the same declaration would lose a row: the word is the
    // user's claim.)
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
        // Without the word, the database is asked about `a` / `a ` and tells them apart.
        let (pages, error) = walk_model(&mut *db, Read::forward(page_size), |r: &TagAsc| {
            position(&r.tag)
        });
        assert_eq!(
            (pages.concat(), error),
            (vec![0, 1, 2], None),
            "asked, page size {page_size}"
        );
    }
}

/// A unique text tie-breaker under an exact collation (PostgreSQL's default, which is
/// deterministic; SQLite's default `BINARY`; MariaDB's `utf8mb4_nopad_bin`) holding values
/// that differ only by case, trailing spaces or Unicode normalization (`bob`, `Bob`, `BOB`,
/// `x`, `x  `, `é` / `e` + U+0301): every walk, `tag ASC` and `tag DESC`, forward and
/// backward, page sizes 1 to 3, delivers exactly the database's `ORDER BY` with no option
/// on the model (before: `CollationEqualKeys` at the first fold-equal pair). The database is
/// asked once per fold-equal pair a page reads (counted by statement), and a walk over
/// neighbours whose folds differ asks nothing.
pub fn exact_collation_text_pages_without_an_option<C: TestDb>()
where
    TagAsc: Walk<C, Filter = ()>,
    TagDesc: Walk<C, Filter = ()>,
{
    use diesel::connection::InstrumentationEvent;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    let column = exact_column(C::NAME);
    let distinct: &[(&str, i32)] = &[("a", 1), ("b", 1), ("c", 1), ("d", 2), ("e", 2), ("f", 2)];
    for (tags, questions_expected) in [(FOLDED, true), (distinct, false)] {
        let mut db = C::open();
        create_tags(&mut *db, column, tags);
        let questions = Arc::new(AtomicUsize::new(0));
        let pages_read = Arc::new(AtomicUsize::new(0));
        let (q, p) = (questions.clone(), pages_read.clone());
        db.set_instrumentation(move |event: InstrumentationEvent<'_>| {
            if let InstrumentationEvent::StartQuery { query, .. } = event {
                let sql = query.to_string();
                if sql.contains("keyset_collation_equal") {
                    q.fetch_add(1, Ordering::SeqCst);
                } else if sql.contains("loud_tags") && sql.contains("ORDER BY") {
                    p.fetch_add(1, Ordering::SeqCst);
                }
            }
        });
        let position = |tag: &str| -> i64 {
            tags.iter()
                .position(|(t, _)| *t == tag)
                .expect("a stored tag") as i64
        };
        let oracle_asc = db.ids("SELECT pos AS id FROM loud_tags ORDER BY grp ASC, tag ASC");
        let oracle_desc = db.ids("SELECT pos AS id FROM loud_tags ORDER BY grp ASC, tag DESC");
        assert_eq!(oracle_asc.len(), tags.len());
        for (page_size, backward, how) in super::every_read() {
            let walks = [
                (
                    "tag ASC",
                    &oracle_asc,
                    walk_model(&mut *db, how, |r: &TagAsc| position(&r.tag)),
                ),
                (
                    "tag DESC",
                    &oracle_desc,
                    walk_model(&mut *db, how, |r: &TagDesc| position(&r.tag)),
                ),
            ];
            for (name, oracle, (mut pages, error)) in walks {
                let label =
                    format!("{name} over {column}, page size {page_size}, backward {backward}");
                assert_eq!(error, None, "{label}: {pages:?}");
                if backward {
                    pages.reverse();
                }
                assert_eq!(&pages.concat(), oracle, "{label}");
            }
        }
        let (asked, pages) = (
            questions.load(Ordering::SeqCst),
            pages_read.load(Ordering::SeqCst),
        );
        // 12 walks (two keysets, two directions, three page sizes). The folded tags hold five
        // fold-equal neighbour pairs in either order of every collation here (`bob` / `Bob`,
        // `Bob` / `BOB`, `x` / `x  `, `Dora` / `dora`, `é` / `e` + U+0301): each walk asks about
        // each pair once, where a page reads both rows of it (against the cursor nothing is
        // asked). Distinct folds: no question at all, one statement per page.
        let expected = if questions_expected { 12 * 5 } else { 0 };
        assert_eq!(asked, expected, "questions on {pages} pages");
        assert!(pages >= 12 * tags.len() / 3, "{pages} pages read");
    }
}

/// Tags that differ only by case, trailing spaces or Unicode normalization, with their `grp`.
const FOLDED: &[(&str, i32)] = &[
    ("bob", 1),
    ("Bob", 1),
    ("BOB", 1),
    ("x", 1),
    ("x  ", 1),
    ("carl", 1),
    ("e\u{301}", 2),
    ("\u{e9}", 2),
    ("Dora", 2),
    ("dora", 2),
];

/// A unique text column under the backend's exact collation: PostgreSQL's default (the test
/// database's, deterministic), SQLite's default `BINARY`, MariaDB's `utf8mb4_nopad_bin`.
fn exact_column(backend: &str) -> &'static str {
    match backend {
        "SQLite" | "PostgreSQL" => "TEXT NOT NULL UNIQUE",
        _ => "VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL UNIQUE",
    }
}

/// `loud_tags` with `tag` of type `column`, holding `tags` (`pos`: the tag's position).
fn create_tags<C: TestDb>(db: &mut C, column: &str, tags: &[(&str, i32)]) {
    db.exec(&format!(
        "CREATE TABLE loud_tags (tag {column}, grp INTEGER NOT NULL, pos BIGINT NOT NULL)"
    ));
    let values: Vec<String> = tags
        .iter()
        .enumerate()
        .map(|(pos, (tag, grp))| format!("('{tag}', {grp}, {pos})"))
        .collect();
    db.exec(&format!(
        "INSERT INTO loud_tags VALUES {}",
        values.join(", ")
    ));
}

/// [`exact_collation_text_pages_without_an_option`]'s walks through diesel-async's connection
/// of the pair `db` (`tag ASC`, forward and backward, page sizes 1 to 3): the question runs on
/// the async path too, and the pages equal the database's `ORDER BY`.
pub fn exact_collation_text_pages_through_diesel_async<D>(mut db: D)
where
    D: OracleDb,
    TagAsc: Walk<D, Filter = ()>,
{
    let column = exact_column(<D::Db as TestDb>::NAME);
    create_tags(db.db(), column, FOLDED);
    let oracle = db
        .db()
        .ids("SELECT pos AS id FROM loud_tags ORDER BY grp ASC, tag ASC");
    let position = |tag: &str| -> i64 {
        FOLDED
            .iter()
            .position(|(t, _)| *t == tag)
            .expect("a stored tag") as i64
    };
    for (page_size, backward, how) in super::every_read() {
        let (mut pages, error) = walk_model(&mut db, how, |r: &TagAsc| position(&r.tag));
        let label = format!("async, page size {page_size}, backward {backward}");
        assert_eq!(error, None, "{label}: {pages:?}");
        if backward {
            pages.reverse();
        }
        assert_eq!(pages.concat(), oracle, "{label}");
    }
}
