//! The SQL of a union page on SQLite, as `into_query` gives it for `diesel::debug_query`, and
//! the page it loads: one branch per arm of the seek (a nullable leading column whose NULL
//! group lies beyond the cursor has two), the window's far bound on each arm only, the
//! exact-flags probe and the count row as branches of their own, the union ordered by the
//! branch marker and the key aliases in the walk's direction.
#![cfg(feature = "sqlite")]

use diesel::prelude::*;
use diesel::sqlite::Sqlite;
use keyset_diesel::prelude::*;

diesel::table! { scored (id) { id -> BigInt, score -> Nullable<Integer> } }

/// `score DESC NULLS LAST, id ASC`.
#[derive(Debug, Clone, PartialEq, Queryable, Selectable, Keyset)]
#[diesel(table_name = scored)]
struct Scored {
    #[keyset(desc, nulls_last)]
    score: Option<i32>,
    #[keyset(asc, unique)]
    id: i64,
}

/// The SQL text (with its binds) of a paginated query on SQLite; its `Debug` form names the
/// seek predicate.
macro_rules! sql {
    ($paginated:expr) => {{
        let query = $paginated.into_query::<Sqlite>().expect("a page query");
        let debug = format!("{query:?}");
        assert!(debug.contains("SeekPredicate { key: "), "{debug}");
        diesel::debug_query::<Sqlite, _>(&query).to_string()
    }};
}

/// The query paged: every row of `scored` (unboxed, so its `Debug` form is there too).
macro_rules! query {
    () => {
        scored::table.select((scored::score, scored::id))
    };
}

const UNTIL: &str =
    "(`scored`.`score` IS NOT NULL OR (`scored`.`score` IS NULL AND `scored`.`id` < +?))";

#[test]
fn a_union_page_writes_each_branch_once_and_orders_by_marker_then_keys() {
    let after = || Some(Cursor::<Scored>::after((Some(20), 2)));
    let until = || Some(Cursor::<Scored>::before((None, 4)));
    // Three arms (on SQLite the values after 20 one column at a time, `score < 20` and
    // `score = 20 AND id > 2`, then the NULL group), the probe, the count row.
    let text = sql!(query!()
        .paginate_after(after())
        .until(until())
        .page_size(2)
        .exact_flags(true)
        .with_total_count());
    assert_eq!(text.matches(" UNION ALL ").count(), 4, "{text}");
    for (i, marker) in [(0, "0"), (1, "0"), (2, "0"), (3, "1"), (4, "2")] {
        assert!(text.contains(&format!(") AS `__keyset_b{i}`")), "{text}");
        assert!(
            text.contains(&format!("{marker} AS `__keyset_kind`")),
            "{text}"
        );
    }
    assert_eq!(text.matches("0 AS `__keyset_kind`").count(), 3, "{text}");
    assert!(text.contains("WHERE (`scored`.`score` < +?) AND"), "{text}");
    assert!(
        text.contains("WHERE (`scored`.`score` = +? AND `scored`.`id` > +?) AND"),
        "{text}"
    );
    assert_eq!(
        text.matches(UNTIL).count(),
        3,
        "the bound on each arm only: {text}"
    );
    assert!(
        text.contains("`scored`.`score` IS NULL) AND"),
        "the NULL arm: {text}"
    );
    assert!(
        text.contains(
            " ORDER BY `__keyset_kind` DESC, `__keyset_k0` DESC NULLS LAST, `__keyset_k1` ASC LIMIT +?"
        ),
        "{text}"
    );
    // The probe alone also orders by the marker first; without probe or count, by the keys.
    let probe_only = sql!(query!().paginate_after(after()).exact_flags(true));
    assert!(
        probe_only.contains(" ORDER BY `__keyset_kind` DESC, "),
        "{probe_only}"
    );
    let arms_only = sql!(query!().paginate_after(after()));
    assert_eq!(arms_only.matches(" UNION ALL ").count(), 2, "{arms_only}");
    assert!(
        arms_only.ends_with(" ORDER BY `__keyset_k0` DESC NULLS LAST, `__keyset_k1` ASC LIMIT +? -- binds: [Some(20), Some(20), 2, 21]"),
        "{arms_only}"
    );
    // Arms alone are plain members of one compound on SQLite, ordered and limited once (each
    // member's own `ORDER BY` would be sorted again into a temporary B-tree before the merge).
    assert!(!arms_only.contains("SELECT * FROM ("), "{arms_only}");
    assert!(!arms_only.contains("__keyset_b"), "{arms_only}");
    assert_eq!(arms_only.matches(" ORDER BY ").count(), 1, "{arms_only}");
    assert_eq!(arms_only.matches(" LIMIT ").count(), 1, "{arms_only}");
    // Backward, the union is ordered in the walk's direction.
    let back = sql!(query!().paginate_before(Some(Cursor::<Scored>::before((None, 4)))));
    assert!(
        back.contains(" ORDER BY `__keyset_k0` ASC NULLS FIRST, `__keyset_k1` DESC LIMIT +?"),
        "{back}"
    );
}

#[test]
fn the_keyset_order_shows_its_walk() {
    use keyset_diesel::query::KeysetOrder;
    assert_eq!(
        format!("{:?}", KeysetOrder::<Scored>::new(Direction::Backward)),
        "KeysetOrder { walk: Backward }"
    );
}

#[test]
fn the_union_page_loads_the_window() {
    let conn = &mut SqliteConnection::establish(":memory:").unwrap();
    diesel::sql_query("CREATE TABLE scored (id BIGINT PRIMARY KEY NOT NULL, score INTEGER)")
        .execute(conn)
        .unwrap();
    diesel::sql_query(
        "INSERT INTO scored VALUES (1, 30), (2, 20), (3, 20), (4, NULL), (5, 10), (6, NULL)",
    )
    .execute(conn)
    .unwrap();
    // Display order 1, 2, 3, 5, 4, 6; the window after (20, 2) and before (NULL, 4).
    let page = scored::table
        .select(Scored::as_select())
        .paginate_after(Some(Cursor::after((Some(20), 2))))
        .until(Some(Cursor::before((None, 4))))
        .page_size(1)
        .exact_flags(true)
        .with_total_count()
        .load_page(conn)
        .unwrap();
    assert_eq!(
        page.items,
        [Scored {
            score: Some(20),
            id: 3
        }]
    );
    assert!(page.has_next_page && page.has_previous_page);
    assert_eq!(page.total_count, Some(6));
}
