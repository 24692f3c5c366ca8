//! Models the derive must accept, and queries `paginate_after` must accept; `main` checks the
//! ORDER BY each one writes.

use diesel::prelude::*;
use diesel::sqlite::Sqlite;
use keyset_diesel::prelude::*;

diesel::table! {
    events (event_id) {
        event_id -> Text,
        workspace_id -> Text,
        occurred_at -> Timestamp,
        score -> Integer,
        composer -> Nullable<Text>,
    }
}

diesel::table! {
    workspaces (workspace_id) {
        workspace_id -> Text,
        name -> Text,
    }
}

// A composite primary key, with a unique column as the explicit tie-breaker.
diesel::table! {
    line_items (order_id, line_no) {
        order_id -> BigInt,
        line_no -> Integer,
        sku -> Text,
        quantity -> SmallInt,
        shipped -> Bool,
    }
}

diesel::joinable!(events -> workspaces (workspace_id));
diesel::allow_tables_to_appear_in_same_query!(events, workspaces);

/// One column: the single-column primary key needs no `unique`.
#[derive(Queryable, Selectable, Keyset)]
#[diesel(table_name = events)]
struct ById {
    #[keyset(asc)]
    event_id: String,
}

/// An ordering version on the struct, next to Diesel's own attribute.
#[derive(Queryable, Selectable, Keyset)]
#[diesel(table_name = events)]
#[keyset(version = 2)]
struct ByIdV2 {
    #[keyset(asc)]
    event_id: String,
}

/// The index its pages read, in one attribute with the version; a named sort with its own.
#[derive(Queryable, Selectable, Keyset)]
#[diesel(table_name = events)]
#[keyset(version = 2, index = "events_by_id")]
#[keyset(sort(Oldest(event_id(asc), index = "events_pkey")))]
struct ByIdIndexed {
    #[keyset(asc)]
    event_id: String,
}

diesel::table! { slots (id) { id -> BigInt, index -> Integer } }

/// A field named `index` is a key column in a named sort (it has parentheses); `index = ..`
/// beside it is the sort's index.
#[derive(Queryable, Selectable, Keyset)]
#[diesel(table_name = slots)]
#[keyset(sort(Reverse(index(desc), id(desc), index = "slots_index_id")))]
struct Slot {
    #[keyset(asc)]
    index: i32,
    #[keyset(asc, unique)]
    id: i64,
}

/// Two columns, descending.
#[derive(Queryable, Selectable, Keyset)]
#[diesel(table_name = events)]
struct Newest {
    #[keyset(desc)]
    occurred_at: chrono::NaiveDateTime,
    #[keyset(desc, unique)]
    event_id: String,
}

/// Three columns in mixed directions, one of them nullable, renamed fields.
#[derive(Queryable, Selectable, Keyset)]
#[diesel(table_name = events)]
struct Ranked {
    #[keyset(desc)]
    score: i32,
    #[keyset(asc, nulls_last)]
    #[diesel(column_name = composer)]
    author: Option<String>,
    #[keyset(asc)]
    #[diesel(column_name = event_id)]
    id: String,
}

/// Four columns; a composite primary key, so the tie-breaker is marked `unique`.
#[derive(Queryable, Selectable, Keyset)]
#[diesel(table_name = line_items)]
struct LineItem {
    #[keyset(asc)]
    shipped: bool,
    #[keyset(desc)]
    quantity: i16,
    #[keyset(asc)]
    #[diesel(column_name = "order_id")]
    order: i64,
    #[keyset(asc, unique)]
    sku: String,
}

/// A composite primary key as the tie-breaker: the keyset ends with both of its columns, in
/// `table!`'s order, and no field is marked `unique`; a named sort ends the same way.
#[derive(Queryable, Selectable, Keyset)]
#[diesel(table_name = line_items)]
#[keyset(sort(Largest(quantity(desc), order_id(desc), line_no(asc))))]
struct LineByKey {
    #[keyset(desc)]
    quantity: i16,
    #[keyset(asc)]
    order_id: i64,
    #[keyset(asc)]
    line_no: i32,
}

/// A tuple struct names its columns.
#[derive(Queryable, Keyset)]
#[diesel(table_name = events)]
struct Pair(
    #[keyset(desc)]
    #[diesel(column_name = occurred_at)]
    chrono::NaiveDateTime,
    #[keyset(desc, unique)]
    #[diesel(column_name = event_id)]
    String,
);

fn sql<Q: diesel::query_builder::QueryFragment<Sqlite>>(query: Q) -> String {
    diesel::debug_query::<Sqlite, _>(&query).to_string()
}

fn main() {
    let by_id = events::table
        .select(ById::as_select())
        .paginate_after::<ById>(None)
        .into_query::<Sqlite>()
        .unwrap();
    assert!(sql(by_id).contains("ORDER BY `events`.`event_id` ASC LIMIT +?"));
    assert_eq!(
        ByIdV2::sort_signature(),
        format!("{};version=2", ById::sort_signature())
    );
    // The index is how pages are read, not which rows they hold: not in the signature.
    assert_eq!(ByIdIndexed::INDEX, Some("events_by_id"));
    assert_eq!(ByIdIndexedByOldest::INDEX, Some("events_pkey"));
    assert_eq!(ByIdV2::INDEX, None);
    assert_eq!(Slot::INDEX, None);
    assert_eq!(SlotByReverse::INDEX, Some("slots_index_id"));
    assert_eq!(SlotByReverse::COLUMNS[0].name, "index");
    assert_eq!(ByIdIndexed::sort_signature(), ByIdV2::sort_signature());
    let indexed = events::table
        .select(ByIdIndexed::as_select())
        .paginate_after::<ByIdIndexed>(None)
        .into_query::<Sqlite>()
        .unwrap();
    assert!(sql(indexed).contains("FROM `events` INDEXED BY `events_by_id` ORDER BY"));

    // Filters and joins stay the caller's; the keyset's table appears once in the join.
    let newest = events::table
        .inner_join(workspaces::table)
        .filter(workspaces::name.eq("W9"))
        .select(Newest::as_select())
        .paginate_after::<Newest>(None)
        .into_query::<Sqlite>()
        .unwrap();
    assert!(sql(newest)
        .contains("ORDER BY `events`.`occurred_at` DESC, `events`.`event_id` DESC LIMIT +?"));

    let ranked = events::table
        .select(Ranked::as_select())
        .into_boxed()
        .paginate_after::<Ranked>(None)
        .into_query::<Sqlite>()
        .unwrap();
    assert!(sql(ranked).contains(
        "ORDER BY `events`.`score` DESC, `events`.`composer` ASC NULLS LAST, `events`.`event_id` ASC"
    ));

    let items = line_items::table
        .select(LineItem::as_select())
        .paginate_after::<LineItem>(None)
        .into_query::<Sqlite>()
        .unwrap();
    assert!(sql(items).contains(
        "ORDER BY `line_items`.`shipped` ASC, `line_items`.`quantity` DESC, \
         `line_items`.`order_id` ASC, `line_items`.`sku` ASC"
    ));

    let pairs = events::table
        .select((events::occurred_at, events::event_id))
        .paginate_after::<Pair>(None)
        .into_query::<Sqlite>()
        .unwrap();
    assert!(sql(pairs).contains("ORDER BY `events`.`occurred_at` DESC, `events`.`event_id` DESC"));
}
