//! Behaviour that mutation testing (cargo-mutants, reports/RELIABILITY.md) found no test pinning
//! down: cursor equality and the `Debug` output of cursors, pages and page queries (which the
//! crate implements by hand, since the row type need not be `Debug`). Backend-independent;
//! run in the SQLite suite.

use diesel::prelude::*;
use keyset_diesel::query::PageQuery;
use keyset_diesel::{Cursor, Direction, PaginateDsl};

use crate::at;
use crate::read_contracts::Ev;
use crate::schema::events;

fn key(n: u32) -> (chrono::NaiveDateTime, String) {
    (at(i64::from(n), 0), format!("e{n}"))
}

/// Two cursors are equal when both the key and the direction are.
pub fn cursor_equality_compares_key_and_direction() {
    let after = Cursor::<Ev>::after(key(1));
    assert_eq!(after, Cursor::<Ev>::after(key(1)));
    assert_ne!(
        after,
        Cursor::<Ev>::before(key(1)),
        "same key, other direction"
    );
    assert_ne!(
        after,
        Cursor::<Ev>::after(key(2)),
        "same direction, other key"
    );
    assert_ne!(
        after,
        Cursor::<Ev>::before(key(2)),
        "other key and direction"
    );
    assert_eq!(after.clone(), after);
}

/// `Debug` names the cursor's key values and direction, a page's fields, and a page query's
/// parts with the cursor's key in its seek predicate.
pub fn debug_output_names_every_part<DB: keyset_diesel::KeysetBackend + std::fmt::Debug>() {
    let cursor = Cursor::<Ev>::before(key(7));
    let text = format!("{cursor:?}");
    assert!(text.starts_with("Cursor {"), "{text}");
    assert!(text.contains("direction: Backward"), "{text}");
    assert!(text.contains("\"e7\""), "{text}");

    let row = Ev {
        occurred_at: at(3, 0),
        event_id: "e3".into(),
        workspace_id: "W".into(),
        message: "m".into(),
    };
    let page = keyset_diesel::Page {
        items: vec![row.clone()],
        page_size: 5,
        direction: Direction::Forward,
        has_previous_page: false,
        has_next_page: true,
        start_cursor: None,
        end_cursor: Some(Cursor::after_row(&row)),
        total_count: Some(9),
    };
    let text = format!("{page:?}");
    for part in [
        "Page {",
        "items: [Ev {",
        "has_more: true",
        "next_cursor: Some(Cursor {",
        "page_size: 5",
        "direction: Forward",
        "has_previous_page: false",
        "has_next_page: true",
        "start_cursor: None",
        "end_cursor: Some(Cursor {",
        "total_count: Some(9)",
    ] {
        assert!(text.contains(part), "`{part}` in {text}");
    }

    let query = || {
        events::table
            .filter(events::workspace_id.eq("W"))
            .select(<Ev as SelectableHelper<DB>>::as_select())
    };
    let direct = query()
        .paginate_after(Some(Cursor::<Ev>::after(key(7))))
        .page_size(4)
        .deferred_join(false)
        .into_query::<DB>()
        .expect("page query");
    let text = format!("{direct:?}");
    assert!(matches!(direct, PageQuery::Statement(_)), "{text}");
    for part in [
        "PageStatement {",
        "seek: Some(SeekPredicate {",
        "\"e7\"",
        "order: KeysetOrder { walk: Forward }",
        "limit: 5",
    ] {
        assert!(text.contains(part), "`{part}` in {text}");
    }

    let union = query()
        .paginate_before(Some(Cursor::<Ev>::before(key(7))))
        .page_size(4)
        .exact_flags(true)
        .into_query::<DB>()
        .expect("page query");
    let text = format!("{union:?}");
    assert!(matches!(union, PageQuery::Union(_)), "{text}");
    for part in [
        "UnionPage {",
        "seek: SeekPredicate {",
        "\"e7\"",
        "walk: Backward",
    ] {
        assert!(text.contains(part), "`{part}` in {text}");
    }
}

/// On SQLite each arm of a union page is a derived table with its own name (`AS
/// \`__keyset_b0\``, ...): SQLite cannot parenthesize a compound select's arms, so each arm is
/// `SELECT * FROM (arm) AS name` (PostgreSQL and MySQL parenthesize the arms instead).
#[cfg(feature = "sqlite")]
pub fn sqlite_union_page_names_each_arm() {
    use diesel::sqlite::Sqlite;
    let union = events::table
        .filter(events::workspace_id.eq("W"))
        .select(<Ev as SelectableHelper<Sqlite>>::as_select())
        .paginate_after(Some(Cursor::<Ev>::after(key(7))))
        .page_size(4)
        .exact_flags(true)
        .into_query::<Sqlite>()
        .expect("page query");
    let sql = diesel::debug_query::<Sqlite, _>(&union).to_string();
    assert!(matches!(union, PageQuery::Union(_)), "{sql}");
    assert!(sql.contains(") AS `__keyset_b0`"), "{sql}");
    assert!(sql.contains(") AS `__keyset_b1`"), "{sql}");
    assert!(!sql.contains("UNION ALL ("), "{sql}");
}
