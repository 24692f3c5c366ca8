//! The page's shape from its options, without a database: one statement or a union, which
//! pages Diesel may cache by type, and the rule behind it (a static id never names two texts).

use diesel::QueryDsl;

use super::shape::shape;
use super::*;
use crate::backend::KeysetBackend;
use crate::cursor::{Cursor, Direction};
use crate::error::KeysetError;
use crate::paginate::{PaginateDsl, Paginated};

diesel::table! { rows (id) { id -> BigInt } }
diesel::table! { pairs (id) { id -> BigInt, score -> Integer } }
diesel::table! { maybes (id) { id -> BigInt, m -> Nullable<Integer> } }
diesel::table! { mids (id) { id -> BigInt, a -> Integer, m -> Nullable<Integer> } }
diesel::table! { flags (id) { id -> BigInt, m -> Nullable<Integer>, f -> Bool } }

/// `id ASC`.
#[derive(Debug, Clone, PartialEq, diesel::Queryable, keyset_derive::Keyset)]
#[diesel(table_name = rows)]
struct Row {
    #[keyset(asc, unique)]
    id: i64,
}

/// `score DESC, id ASC`: two key levels, directions mixed.
#[derive(Debug, Clone, PartialEq, diesel::Queryable, keyset_derive::Keyset)]
#[diesel(table_name = pairs)]
struct Pair {
    #[keyset(desc)]
    score: i32,
    #[keyset(asc, unique)]
    id: i64,
}

/// `score ASC, id ASC`: two key levels in one direction (a row value where the backend has
/// one).
#[derive(Debug, Clone, PartialEq, diesel::Queryable, keyset_derive::Keyset)]
#[diesel(table_name = pairs)]
struct Ascending {
    #[keyset(asc)]
    score: i32,
    #[keyset(asc, unique)]
    id: i64,
}

/// `m ASC NULLS LAST, id ASC` with its index declared: a nullable leading key column.
#[derive(Debug, Clone, PartialEq, diesel::Queryable, keyset_derive::Keyset)]
#[diesel(table_name = maybes)]
#[keyset(index = "maybes_m_id")]
struct Maybe {
    #[keyset(asc, nulls_last)]
    m: Option<i32>,
    #[keyset(asc, unique)]
    id: i64,
}

/// `m ASC NULLS FIRST, id ASC`: MySQL's own placement of NULLs (below every value).
#[derive(Debug, Clone, PartialEq, diesel::Queryable, keyset_derive::Keyset)]
#[diesel(table_name = maybes)]
struct MaybeNullsFirstAsc {
    #[keyset(asc, nulls_first)]
    m: Option<i32>,
    #[keyset(asc, unique)]
    id: i64,
}

/// `m DESC NULLS FIRST, id DESC`: a nullable leading column whose NULLs come first, so a page
/// backward after a value has the NULL group on the far side (a split union).
#[derive(Debug, Clone, PartialEq, diesel::Queryable, keyset_derive::Keyset)]
#[diesel(table_name = maybes)]
struct MaybeFirst {
    #[keyset(desc, nulls_first)]
    m: Option<i32>,
    #[keyset(desc, unique)]
    id: i64,
}

/// `m ASC NULLS LAST, f ASC, id ASC`: a nullable leading column and a `bool` key, whose
/// seek admits the values `bool` does not represent on MySQL and SQLite (lossy reads).
#[derive(Debug, Clone, PartialEq, diesel::Queryable, keyset_derive::Keyset)]
#[diesel(table_name = flags)]
struct Flag {
    #[keyset(asc, nulls_last)]
    m: Option<i32>,
    #[keyset(asc)]
    f: bool,
    #[keyset(asc, unique)]
    id: i64,
}

/// `a ASC, m ASC NULLS FIRST, id ASC`: a nullable column after the leading one.
#[derive(Debug, Clone, PartialEq, diesel::Queryable, keyset_derive::Keyset)]
#[diesel(table_name = mids)]
struct Mid {
    #[keyset(asc)]
    a: i32,
    #[keyset(asc, nulls_first)]
    m: Option<i32>,
    #[keyset(asc, unique)]
    id: i64,
}

/// The page query `paginated` builds on `DB`: one statement or a union, and whether the other
/// side is probed.
fn built<DB, K, Q>(paginated: Paginated<Q, K>) -> (&'static str, String, bool)
where
    DB: KeysetBackend,
    K: Keyset + std::fmt::Debug,
    Q: PageSource<K> + std::fmt::Debug,
{
    let (query, assembly) = shape::<DB, _, _, _>(paginated).expect("a page query");
    let kind = match &query {
        PageQuery::Statement(_) => "statement",
        PageQuery::Union(_) => "union",
    };
    (kind, format!("{query:?}"), assembly.probed)
}

/// The static shape the page gets on `DB`, if any.
fn fixed<DB, K, Q>(paginated: Paginated<Q, K>) -> Option<StaticShape>
where
    DB: KeysetBackend,
    K: Keyset,
    Q: PageSource<K>,
{
    match shape::<DB, _, _, _>(paginated).expect("a page query").0 {
        PageQuery::Statement(s) => s.static_shape::<DB>(),
        PageQuery::Union(u) => u.static_shape::<DB>(),
    }
}

#[cfg(feature = "postgres")]
#[test]
fn a_page_is_one_statement_unless_it_needs_a_union() {
    use diesel::pg::Pg;
    let rows = || rows::table.select(rows::id);
    let after = || Some(Cursor::<Row>::after((3,)));
    // Page size 0 is refused before anything is built; 1 is a page.
    assert!(matches!(
        shape::<Pg, _, _, _>(rows().paginate_after(after()).page_size(0)),
        Err(KeysetError::InvalidPageSize(0))
    ));
    assert!(shape::<Pg, _, _, _>(rows().paginate_after(after()).page_size(1)).is_ok());
    // A later page: one statement, `LIMIT page_size + 1`.
    let (kind, text, probed) = built::<Pg, _, _>(rows().paginate_after(after()).page_size(3));
    assert_eq!((kind, probed), ("statement", false));
    assert!(text.contains("limit: 4"), "{text}");
    // Exact flags probe only when there is a cursor (a first page has no other side).
    let (kind, _, probed) = built::<Pg, _, _>(rows().paginate_after::<Row>(None).exact_flags(true));
    assert_eq!((kind, probed), ("statement", false));
    let (kind, _, probed) = built::<Pg, _, _>(rows().paginate_after(after()).exact_flags(true));
    assert_eq!((kind, probed), ("union", true));
    // The total count on a later page is a union (its count row).
    let (kind, text, _) = built::<Pg, _, _>(rows().paginate_after(after()).with_total_count());
    assert_eq!(kind, "union", "{text}");
    assert!(text.contains("count: true"), "{text}");
    // A seek of one arm is one statement; per level, two levels are two arms.
    let pairs = || pairs::table.select(pairs::id);
    let pair = || Some(Cursor::<Pair>::after((5, 3)));
    assert_eq!(
        built::<Pg, _, _>(pairs().paginate_after(pair())).0,
        "statement"
    );
    assert_eq!(
        built::<Pg, _, _>(pairs().paginate_after(pair()).seek_per_level(true)).0,
        "union"
    );
}

#[cfg(feature = "sqlite")]
#[test]
fn pages_in_the_default_form_have_a_static_shape_and_every_other_page_none() {
    use diesel::sqlite::Sqlite;
    let rows = || rows::table.select(rows::id);
    let after = || Some(Cursor::<Row>::after((3,)));
    let shape = |p: Paginated<_, Row>| fixed::<Sqlite, Row, _>(p);
    // The four shapes: first and later pages, either way.
    assert_eq!(
        shape(rows().paginate_after(None).page_size(7)),
        Some(StaticShape::FirstForward)
    );
    assert_eq!(
        shape(rows().paginate_before(None)),
        Some(StaticShape::FirstBackward)
    );
    assert_eq!(
        shape(rows().paginate_after(after()).exact_flags(false)),
        Some(StaticShape::AfterForward)
    );
    assert_eq!(
        shape(rows().paginate_before(Some(Cursor::before((3,))))),
        Some(StaticShape::AfterBackward)
    );
    // Options that do not change the SQL keep the shape: a byte budget, exact flags and a
    // deferred join on a first page, one seek per level of a keyset of one level.
    assert_eq!(
        shape(
            rows()
                .paginate_after(None)
                .max_bytes(10, |_| 1)
                .exact_flags(true)
                .deferred_join(true)
        ),
        Some(StaticShape::FirstForward)
    );
    assert_eq!(
        shape(rows().paginate_after(after()).seek_per_level(true)),
        Some(StaticShape::AfterForward)
    );
    // Options that change the SQL, or a page that is a union: no static shape.
    assert_eq!(shape(rows().paginate_after(after()).until(after())), None);
    assert_eq!(shape(rows().paginate_after(None).with_total_count()), None);
    assert_eq!(
        shape(rows().paginate_after(after()).exact_flags(true)),
        None
    );
    assert_eq!(
        shape(rows().paginate_after(after()).deferred_join(true)),
        None
    );
    assert_eq!(
        shape(rows().paginate_after(after()).force_index("ix")),
        None
    );
    assert_eq!(shape(rows().paginate_after(None).force_index("ix")), None);
    let pairs = || pairs::table.select(pairs::id);
    let pair = || Some(Cursor::<Pair>::after((5, 3)));
    assert_eq!(
        fixed::<Sqlite, Pair, _>(pairs().paginate_after(pair())),
        Some(StaticShape::AfterForward)
    );
    assert_eq!(
        fixed::<Sqlite, Pair, _>(pairs().paginate_after(pair()).seek_per_level(true)),
        None
    );
    // Choosing what the default already is keeps the shape.
    assert_eq!(
        shape(
            rows()
                .paginate_after(after())
                .deferred_join(false)
                .force_index(None)
        ),
        Some(StaticShape::AfterForward)
    );
    // A nullable leading column: the first page is fixed; a later page after a value is a
    // union around the NULL group whose text the types fix too (cached by type, as a
    // one-statement page is); a NULL cursor (NULLs last) writes `IS NULL` arms.
    let maybes = || maybes::table.select(maybes::id);
    let maybe = |p: Paginated<_, Maybe>| fixed::<Sqlite, Maybe, _>(p);
    let value = || Some(Cursor::<Maybe>::after((Some(1), 2)));
    assert_eq!(
        maybe(maybes().paginate_after(None)),
        Some(StaticShape::FirstForward)
    );
    assert_eq!(
        maybe(maybes().paginate_after(value())),
        Some(StaticShape::SplitForward)
    );
    // Backward from a NULL (the reversed order has NULLs first): a split after a NULL key,
    // whose text has one bind fewer.
    assert_eq!(
        maybe(maybes().paginate_before(Some(Cursor::before((None, 2))))),
        None
    );
    // The split union with anything that changes its text is found by its text.
    assert_eq!(
        maybe(maybes().paginate_after(value()).expanded_seek(true)),
        None
    );
    assert_eq!(
        maybe(maybes().paginate_after(value()).exact_flags(true)),
        None
    );
    assert_eq!(
        maybe(maybes().paginate_after(value()).with_total_count()),
        None
    );
    assert_eq!(
        maybe(maybes().paginate_after(value()).force_index(None)),
        None
    );
    assert_eq!(
        maybe(
            maybes()
                .paginate_after(value())
                .until(Some(Cursor::after((Some(9), 9))))
        ),
        None
    );
    assert_eq!(
        maybe(maybes().paginate_after(Some(Cursor::after((None, 2))))),
        None
    );
    // A nullable column after the first: fixed after a cursor without NULL, not after one
    // with a NULL (one bind fewer, other text).
    let mids = || mids::table.select(mids::id);
    let mid = |p: Paginated<_, Mid>| fixed::<Sqlite, Mid, _>(p);
    assert_eq!(
        mid(mids().paginate_after(Some(Cursor::after((3, Some(1), 2))))),
        Some(StaticShape::AfterForward)
    );
    assert_eq!(
        mid(mids().paginate_after(Some(Cursor::after((3, None, 2))))),
        None
    );
    assert_eq!(
        mid(mids().paginate_before(Some(Cursor::before((3, None, 2))))),
        None
    );
    // The declared index: naming it is the default; another name or none is not.
    assert_eq!(
        maybe(maybes().paginate_after(None).force_index("maybes_m_id")),
        Some(StaticShape::FirstForward)
    );
    assert_eq!(
        maybe(maybes().paginate_after(None).force_index("other")),
        None
    );
    assert_eq!(maybe(maybes().paginate_after(None).force_index(None)), None);
}

/// On PostgreSQL a page of up to 100 rows writes its `LIMIT` as a number, so PostgreSQL can
/// keep one generic plan for it (`statement::limit_is_text`); its text then depends on the
/// page size, so it has no static shape. A larger page binds its limit and keeps the shape.
#[cfg(feature = "postgres")]
#[test]
fn on_postgres_a_page_of_up_to_100_rows_has_its_limit_in_the_text_and_no_static_shape() {
    use diesel::pg::Pg;
    let rows = || rows::table.select(rows::id);
    let after = || Some(Cursor::<Row>::after((3,)));
    let text = |p: Paginated<_, Row>| {
        let query = shape::<Pg, _, _, _>(p).expect("a page query").0;
        diesel::debug_query::<Pg, _>(&query).to_string()
    };
    for page_size in [1, 20, 100] {
        let sql = text(rows().paginate_after(after()).page_size(page_size));
        assert!(
            sql.contains(&format!(" LIMIT {} -- binds: [3]", page_size + 1)),
            "{sql}"
        );
        assert_eq!(
            fixed::<Pg, Row, _>(rows().paginate_after(after()).page_size(page_size)),
            None
        );
        assert_eq!(
            fixed::<Pg, Row, _>(rows().paginate_before(None).page_size(page_size)),
            None
        );
    }
    let sql = text(rows().paginate_after(after()).page_size(101));
    assert!(sql.contains(" LIMIT $2 -- binds: [3, 102]"), "{sql}");
    assert_eq!(
        fixed::<Pg, Row, _>(rows().paginate_after(after()).page_size(101)),
        Some(StaticShape::AfterForward)
    );
    // A union's limits follow the same rule: numbers, with the probe's `LIMIT 1`.
    let sql = text(rows().paginate_after(after()).exact_flags(true));
    assert!(
        sql.contains(" LIMIT 21)") && sql.contains(" LIMIT 1)"),
        "{sql}"
    );
    assert!(sql.ends_with(" LIMIT 22 -- binds: [3, 3]"), "{sql}");
}

/// A union's key aliases: the first eight are kept strings, the rest formatted, all
/// `__keyset_k<i>`.
#[test]
fn key_aliases_are_numbered_alike_kept_or_formatted() {
    for i in 0..12 {
        assert_eq!(super::statement::key_alias(i), format!("__keyset_k{i}"));
    }
}

/// `expanded_seek(true)` writes the expanded form (with the leading bound) for the seek and the
/// `until` bound where the backend would write a row value, and only a later page whose text
/// changes loses its static shape.
#[cfg(feature = "sqlite")]
#[test]
fn expanded_seek_writes_the_expanded_form_instead_of_a_row_value() {
    use diesel::sqlite::Sqlite;
    let page = |expanded: bool, until: bool| {
        let p = pairs::table
            .select(pairs::id)
            .paginate_after(Some(Cursor::<Ascending>::after((5, 3))))
            .expanded_seek(expanded);
        let p = if until {
            p.until(Some(Cursor::before((9, 1))))
        } else {
            p
        };
        let q = p.into_query::<Sqlite>().expect("a page query");
        diesel::debug_query::<Sqlite, _>(&q).to_string()
    };
    let row_value = page(false, false);
    assert!(
        row_value.contains("(`pairs`.`score`, `pairs`.`id`) > (+?, +?)"),
        "{row_value}"
    );
    let expanded = page(true, false);
    assert!(
        expanded.contains(
            "`pairs`.`score` >= +? AND (`pairs`.`score` > +? OR (`pairs`.`score` = +? AND `pairs`.`id` > +?))"
        ),
        "{expanded}"
    );
    assert!(!expanded.contains(") > ("), "{expanded}");
    // The far bound too: no row value left anywhere.
    let window = page(true, true);
    assert!(
        !window.contains(") > (") && !window.contains(") < ("),
        "{window}"
    );
    assert!(window.contains("`pairs`.`score` <= +?"), "{window}");

    let ascending = || pairs::table.select(pairs::id);
    let shape = |p: Paginated<_, Ascending>| fixed::<Sqlite, Ascending, _>(p);
    assert_eq!(
        shape(
            ascending()
                .paginate_after(Some(Cursor::after((5, 3))))
                .expanded_seek(true)
        ),
        None
    );
    assert_eq!(
        shape(ascending().paginate_after(None).expanded_seek(true)),
        Some(StaticShape::FirstForward)
    );
    // Directions that alternate: SQLite's default negates the second level, the option
    // writes the expanded `OR` (what `postgres_fdw` and partition pruning read), so it is
    // not the default text.
    let pair = |expanded: bool| {
        pairs::table
            .select(pairs::id)
            .paginate_after(Some(Cursor::<Pair>::after((5, 3))))
            .expanded_seek(expanded)
    };
    assert_eq!(fixed::<Sqlite, Pair, _>(pair(true)), None);
    assert_eq!(
        fixed::<Sqlite, Pair, _>(pair(false)),
        Some(StaticShape::AfterForward)
    );
    let text = |expanded: bool| {
        let q = pair(expanded).into_query::<Sqlite>().expect("a page query");
        diesel::debug_query::<Sqlite, _>(&q).to_string()
    };
    assert!(
        text(false).contains(
            "`pairs`.`score` <= +? AND NOT (`pairs`.`score` = +? AND `pairs`.`id` <= +?)"
        ),
        "{}",
        text(false)
    );
    assert!(
        text(true).contains(
            "`pairs`.`score` <= +? AND (`pairs`.`score` < +? OR (`pairs`.`score` = +? AND `pairs`.`id` > +?))"
        ),
        "{}",
        text(true)
    );
}

#[cfg(feature = "mysql")]
#[test]
fn on_mysql_the_deferred_join_is_the_default_form_with_a_static_shape() {
    use diesel::mysql::Mysql;
    let rows = || rows::table.select(rows::id);
    let after = || Some(Cursor::<Row>::after((3,)));
    let shape = |p: Paginated<_, Row>| fixed::<Mysql, Row, _>(p);
    assert_eq!(
        shape(rows().paginate_after(after())),
        Some(StaticShape::AfterForward)
    );
    assert_eq!(
        shape(rows().paginate_after(after()).deferred_join(true)),
        Some(StaticShape::AfterForward)
    );
    // The direct form, chosen or by naming an index: not the default, no static shape.
    assert_eq!(
        shape(rows().paginate_after(after()).deferred_join(false)),
        None
    );
    assert_eq!(
        shape(rows().paginate_after(after()).force_index("ix")),
        None
    );
    // A declared index: the direct form naming it is the default; the deferred join is not.
    let maybes = || maybes::table.select(maybes::id);
    let maybe = |p: Paginated<_, Maybe>| fixed::<Mysql, Maybe, _>(p);
    let later = || Some(Cursor::<Maybe>::after((None, 2)));
    assert_eq!(maybe(maybes().paginate_before(later())), None);
    // The first page of `m ASC NULLS LAST` is a union split around the NULL group on MySQL
    // (no index serves a `m IS NULL` sort term): no static shape, cached as text.
    assert_eq!(maybe(maybes().paginate_after(None)), None);
    let (query, _) =
        super::shape::shape::<Mysql, _, _, _>(maybes().paginate_after(None::<Cursor<Maybe>>))
            .expect("shape");
    let sql = diesel::debug_query::<Mysql, _>(&query).to_string();
    assert!(
        sql.contains("`maybes`.`m` IS NOT NULL")
            && sql.contains("`maybes`.`m` IS NULL)")
            && sql.contains("ORDER BY `maybes`.`m` ASC, `maybes`.`id` ASC LIMIT")
            && sql.contains("ORDER BY `maybes`.`id` ASC LIMIT")
            && sql.contains("ORDER BY `__keyset_k0` IS NULL ASC, `__keyset_k0` ASC"),
        "{sql}"
    );
    // A first page of a keyset MySQL orders without the term (`m ASC NULLS FIRST` is its
    // own placement) keeps one statement and its static shape.
    let first = |p: Paginated<_, MaybeNullsFirstAsc>| fixed::<Mysql, MaybeNullsFirstAsc, _>(p);
    assert_eq!(
        first(maybes().paginate_after(None)),
        Some(StaticShape::FirstForward)
    );
    let (query, _) = super::shape::shape::<Mysql, _, _, _>(
        maybes()
            .paginate_after(None::<Cursor<MaybeNullsFirstAsc>>)
            .page_size(5),
    )
    .expect("shape");
    let sql = diesel::debug_query::<Mysql, _>(&query).to_string();
    assert!(
        sql.contains("ORDER BY `maybes`.`m` ASC, `maybes`.`id` ASC LIMIT")
            && !sql.contains("IS NULL"),
        "{sql}"
    );
}

#[test]
fn a_static_page_id_names_the_query_the_keyset_and_the_shape() {
    use diesel::query_builder::QueryId;
    use typing::{TypeKeyed, AFTER_BACKWARD, AFTER_FORWARD, FIRST_BACKWARD, FIRST_FORWARD};
    type Rows = diesel::dsl::Select<rows::table, rows::id>;
    type Id<Q, K, const S: u8> = TypeKeyed<PageStatement<Q, K>, S>;
    let ids = [
        <Id<Rows, Row, FIRST_FORWARD> as QueryId>::query_id(),
        <Id<Rows, Row, FIRST_BACKWARD> as QueryId>::query_id(),
        <Id<Rows, Row, AFTER_FORWARD> as QueryId>::query_id(),
        <Id<Rows, Row, AFTER_BACKWARD> as QueryId>::query_id(),
        // The same query and shape, another keyset: another statement.
        <Id<Rows, Maybe, AFTER_FORWARD> as QueryId>::query_id(),
        // Another query.
        <Id<diesel::dsl::Filter<Rows, diesel::dsl::Eq<rows::id, i64>>, Row, AFTER_FORWARD>
            as QueryId>::query_id(),
    ];
    for (i, id) in ids.iter().enumerate() {
        assert!(id.is_some(), "{i}");
        for (j, other) in ids.iter().enumerate().skip(i + 1) {
            assert_ne!(id, other, "{i} and {j}");
        }
    }
    // A boxed query has no static id, nor has the page loaded from it.
    #[cfg(feature = "sqlite")]
    assert_eq!(
        <Id<
            rows::BoxedQuery<'static, diesel::sqlite::Sqlite, diesel::sql_types::BigInt>,
            Row,
            AFTER_FORWARD,
        > as QueryId>::query_id(),
        None
    );
}

#[cfg(feature = "sqlite")]
#[test]
fn boxed_queries_with_order_limit_or_offset_are_refused() {
    use diesel::sqlite::Sqlite;
    let boxed = || rows::table.select(rows::id).into_boxed::<Sqlite>();
    let check = |q: &rows::BoxedQuery<'_, Sqlite, diesel::sql_types::BigInt>| {
        PageSource::<Row>::check_clauses(q)
    };
    assert!(check(&boxed()).is_ok());
    assert!(check(&boxed().filter(diesel::dsl::sql::<diesel::sql_types::Bool>("1 = 1"))).is_ok());
    assert!(matches!(
        check(&boxed().order(rows::id)),
        Err(KeysetError::AlreadyOrdered)
    ));
    assert!(matches!(
        check(&boxed().limit(3)),
        Err(KeysetError::AlreadyLimited)
    ));
    assert!(matches!(
        check(&boxed().offset(3)),
        Err(KeysetError::AlreadyLimited)
    ));
}

/// On MySQL the arms of a leading NULL split order their rows as the index holds them (no
/// `m IS NULL` term: MariaDB filesorted the arm with it), except where an arm admits the rows
/// a key type does not represent (lossy reads): those come from anywhere, NULL group included, and the
/// placement term sorts them after the arm's own rows.
#[cfg(feature = "mysql")]
#[test]
fn split_arms_on_mysql_keep_the_placement_only_where_they_admit_unrepresented_values() {
    use diesel::mysql::Mysql;
    fn text<K: KeysetSql<Mysql>, Q>(paginated: Paginated<Q, K>) -> String
    where
        Q: PageSource<K> + SelectParts<Mysql>,
        PageQuery<Q, K>: diesel::query_builder::QueryFragment<Mysql>,
    {
        let (query, _) = shape::<Mysql, _, _, _>(paginated).expect("a page query");
        diesel::debug_query::<Mysql, _>(&query).to_string()
    }
    let plain = text(
        maybes::table
            .select(maybes::id)
            .paginate_after(Some(Cursor::<Maybe>::after((Some(1), 2)))),
    );
    assert_eq!(
        plain.matches("IS NULL ASC").count(),
        1,
        "the outer order only: {plain}"
    );
    let admitting = text(
        flags::table
            .select(flags::id)
            .paginate_after(Some(Cursor::<Flag>::after((Some(1), true, 2)))),
    );
    assert!(admitting.contains("NOT IN (0, 1)"), "{admitting}");
    // Each arm orders twice (the deferred join's key read and its rows), then the union.
    assert_eq!(
        admitting.matches("IS NULL ASC").count(),
        5,
        "every arm: {admitting}"
    );
}

mod static_ids;
