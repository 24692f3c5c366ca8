//! Unit tests of the learned index: the catalog's rows, the index choice, refusals and the memo.
use super::*;

fn part(index: &str, column: Option<&str>, collation: &str) -> IndexPart {
    IndexPart {
        index_name: index.into(),
        column_name: column.map(Into::into),
        collation: Some(collation.into()),
        engine: Some("InnoDB".into()),
    }
}

const fn col(name: &'static str, direction: SortDirection) -> KeyColumn {
    KeyColumn {
        name,
        field: name,
        direction,
        nulls: None,
        expression: false,
        exact_text: false,
    }
}

const ASC: &[KeyColumn] = &[col("at", SortDirection::Asc), col("id", SortDirection::Asc)];
const DESC: &[KeyColumn] = &[
    col("at", SortDirection::Desc),
    col("id", SortDirection::Desc),
];
const MIXED: &[KeyColumn] = &[
    col("score", SortDirection::Desc),
    col("id", SortDirection::Asc),
];

fn indexes(parts: Vec<IndexPart>) -> Vec<LearnedIndex> {
    learned_indexes(&mut HashSet::new(), parts)
}

fn choose(indexes: &[LearnedIndex], key: &[KeyColumn], equality: &[&str]) -> Option<&'static str> {
    let equality: Vec<String> = equality.iter().map(|s| s.to_string()).collect();
    serving_index(indexes.iter(), key, &equality)
}

fn bench_table() -> Vec<LearnedIndex> {
    indexes(vec![
        part("PRIMARY", Some("id"), "A"),
        part("by_at", Some("at"), "A"),
        part("by_tenant_at_id", Some("tenant"), "A"),
        part("by_tenant_at_id", Some("at"), "A"),
        part("by_tenant_at_id", Some("id"), "A"),
        part("by_tenant_score", Some("tenant"), "A"),
        part("by_tenant_score", Some("score"), "D"),
    ])
}

#[test]
fn secondary_indexes_end_with_the_primary_key_and_stop_at_a_prefix_part() {
    let learned = indexes(vec![
        part("PRIMARY", Some("id"), "A"),
        part("by_name", None, "A"),
        part("by_name", Some("id"), "A"),
        part("by_tenant", Some("tenant"), "A"),
    ]);
    let columns = |i: usize| {
        learned[i]
            .columns
            .iter()
            .map(|(c, _)| c.as_str())
            .collect::<Vec<_>>()
    };
    assert_eq!(learned.len(), 3);
    assert_eq!(columns(0), ["id"]);
    assert!(
        columns(1).is_empty(),
        "a prefix part ends what the index can order"
    );
    assert_eq!(columns(2), ["tenant", "id"]);
    // A descending primary key is appended descending (MySQL 8).
    let learned = indexes(vec![
        part("PRIMARY", Some("id"), "D"),
        part("by_at", Some("at"), "D"),
    ]);
    assert_eq!(
        learned[1].columns,
        [("at".to_string(), true), ("id".to_string(), true)]
    );
    // Only InnoDB appends the primary key.
    let myisam = |index: &str, column: &str| IndexPart {
        engine: Some("MyISAM".into()),
        ..part(index, Some(column), "A")
    };
    let learned = indexes(vec![myisam("PRIMARY", "id"), myisam("by_at", "at")]);
    assert_eq!(learned[1].columns, [("at".to_string(), false)]);
    assert_eq!(choose(&learned, ASC, &[]), None);
}

#[test]
fn the_index_with_the_pinned_columns_then_the_key_is_named() {
    let learned = bench_table();
    assert_eq!(choose(&learned, ASC, &["tenant"]), Some("by_tenant_at_id"));
    // Read backward for a keyset in the other direction.
    assert_eq!(choose(&learned, DESC, &["tenant"]), Some("by_tenant_at_id"));
    // Without the tenant filter, `(at)` + the primary key serves the keyset.
    assert_eq!(choose(&learned, ASC, &[]), Some("by_at"));
    // Mixed directions need an index whose directions match (score DESC + id ASC).
    assert_eq!(
        choose(&learned, MIXED, &["tenant"]),
        Some("by_tenant_score")
    );
    // A column before the key that no filter pins: not served.
    let learned = indexes(vec![
        part("PRIMARY", Some("id"), "A"),
        part("by_tenant_at", Some("tenant"), "A"),
        part("by_tenant_at", Some("at"), "A"),
        part("by_kind_tenant_at", Some("kind"), "A"),
        part("by_kind_tenant_at", Some("tenant"), "A"),
        part("by_kind_tenant_at", Some("at"), "A"),
    ]);
    assert_eq!(choose(&learned, ASC, &["kind"]), None);
    // Every pinned column before the key, in any order.
    assert_eq!(
        choose(&learned, ASC, &["tenant", "kind"]),
        Some("by_kind_tenant_at")
    );
    // A pinned column the index leaves out: the server may read that filter's rows
    // through another index, so none is named (hostile review: 199,000 reads against 22).
    let id: &[KeyColumn] = &[col("id", SortDirection::Asc)];
    let learned = indexes(vec![
        part("PRIMARY", Some("id"), "A"),
        part("by_kind", Some("kind"), "A"),
    ]);
    assert_eq!(choose(&learned, id, &["tenant"]), None);
    assert_eq!(choose(&learned, id, &[]), Some("PRIMARY"));
    // `(tenant)` + the primary key is `(tenant, id)`: it serves.
    let learned = indexes(vec![
        part("PRIMARY", Some("id"), "A"),
        part("by_tenant", Some("tenant"), "A"),
    ]);
    assert_eq!(choose(&learned, id, &["tenant"]), Some("by_tenant"));
}

#[test]
fn an_index_whose_directions_disagree_with_the_keyset_is_not_named() {
    let learned = indexes(vec![
        part("PRIMARY", Some("id"), "A"),
        part("by_score", Some("tenant"), "A"),
        part("by_score", Some("score"), "A"),
    ]);
    // score ASC + id ASC (the primary key appended) cannot give score DESC, id ASC.
    assert_eq!(choose(&learned, MIXED, &["tenant"]), None);
    // A key column missing from the index.
    assert_eq!(
        choose(
            &learned,
            &[
                col("grade", SortDirection::Asc),
                col("id", SortDirection::Asc)
            ],
            &["tenant"]
        ),
        None
    );
}

fn lookup_of(table: &str) -> Lookup {
    Lookup(Arc::new(LookupParts {
        table: table.into(),
        schema: catalog_schema(&[table.into()]).expect("plain"),
        equality: vec!["tenant".into()],
        key: ASC,
        chosen: Mutex::default(),
    }))
}

/// A query type with a static id is parsed once per process: later pages read the memo.
/// A list filter (`IN (..)`, whose text changes with the list) is never kept there.
#[cfg(feature = "mysql")]
#[test]
fn a_static_query_type_is_parsed_once_and_a_list_filter_never_kept() {
    use crate::fixtures::{feed, ById};
    use crate::query::shape::decide;
    use crate::{Cursor, PaginateDsl};
    use diesel::prelude::*;
    type My = diesel::mysql::Mysql;
    let pinned = decide::<My, _, _, _>(
        feed::table
            .filter(feed::name.eq("a"))
            .select(feed::id)
            .paginate_after(Some(Cursor::<ById>::after((5,)))),
    )
    .expect("a page");
    let listed = decide::<My, _, _, _>(
        feed::table
            .filter(feed::name.eq_any(vec!["a", "b"]))
            .select(feed::id)
            .paginate_after(Some(Cursor::<ById>::after((5,)))),
    )
    .expect("a page");
    let kept = || STATE.memo().len();
    let before = kept();
    let first = lookup_cached::<My, _, _>(&pinned).expect("a pinned filter");
    assert_eq!(first.equality, ["name"]);
    assert_eq!(
        first.equality,
        lookup::<My, _, _>(&pinned).expect("the same").equality
    );
    assert_eq!(kept(), before + 1);
    let again = lookup_cached::<My, _, _>(&pinned).expect("a pinned filter");
    assert!(Arc::ptr_eq(&first.0, &again.0), "read from the memo");
    assert!(lookup_cached::<My, _, _>(&listed).is_none(), "IN is no pin");
    assert_eq!(kept(), before + 1, "a list filter is not kept");
}

#[test]
fn the_catalog_statement_takes_only_plain_names() {
    let sql = catalog_sql(&catalog_schema(&["events".into()]).expect("plain"), "");
    assert!(
        sql.contains("s.TABLE_SCHEMA = DATABASE() AND s.TABLE_NAME = 'events'"),
        "{sql}"
    );
    // Only B-tree indexes keep their rows in key order (not FULLTEXT, SPATIAL or HASH).
    assert!(sql.contains("AND s.INDEX_TYPE = 'BTREE'"), "{sql}");
    let schema = catalog_schema(&["archive".into(), "events".into()]).expect("plain");
    assert!(
        catalog_sql(&schema, "").contains("s.TABLE_SCHEMA = 'archive' AND s.TABLE_NAME = 'events'"),
    );
    assert_eq!(catalog_schema(&["ev'ents".into()]), None);
    assert_eq!(catalog_schema(&["a".into(), "b".into(), "c".into()]), None);
    // Ignored (MariaDB) and invisible (MySQL 8) indexes are left out, by the first form
    // the server accepts.
    let forms: Vec<String> = lookup_of("events")
        .catalog_statements()
        .map(|(_, s)| s)
        .collect();
    assert_eq!(
        forms.len(),
        USABLE.len() - STATE.usable_form.load(Ordering::Relaxed)
    );
    assert!(forms
        .last()
        .is_some_and(|s| !s.contains("IGNORED") && !s.contains("IS_VISIBLE")));
    assert!(USABLE[0].contains("s.IGNORED = 'NO'") && USABLE[1].contains("s.IS_VISIBLE = 'YES'"));
}

#[test]
fn a_refused_index_is_not_named_again() {
    let lookup = lookup_of("refusal_test");
    let index_parts = || {
        vec![
            part("PRIMARY", Some("id"), "A"),
            part("by_tenant_at_id", Some("tenant"), "A"),
            part("by_tenant_at_id", Some("at"), "A"),
        ]
    };
    let chosen = lookup.learn(0, Ok(index_parts()));
    assert_eq!(chosen, Some("by_tenant_at_id"));
    assert_eq!(lookup.known(true), Some(Some("by_tenant_at_id")));
    let named = (lookup, "by_tenant_at_id");
    // Another error leaves it.
    let _ = refused(Some(&named), diesel::result::Error::NotFound);
    assert_eq!(named.0.known(true), Some(Some("by_tenant_at_id")));
    // The server's refusal, in German (`lc_messages = de_DE`): both names in quotes.
    let error = diesel::result::Error::DatabaseError(
        diesel::result::DatabaseErrorKind::Unknown,
        Box::new(
            "Schl\u{fc}ssel 'by_tenant_at_id' existiert in der Tabelle 'refusal_test' nicht"
                .to_string(),
        ),
    );
    let _ = refused(Some(&named), error);
    // The table is looked up again, and the refused index is not named even if listed.
    assert_eq!(named.0.known(true), None);
    assert_eq!(named.0.learn(0, Ok(index_parts())), None);
    // The choice kept from before the refusal is not the answer now.
    assert_eq!(named.0.known(true), Some(None));
    // A failed look-up names nothing.
    let failed = lookup_of("failed_lookup_test");
    assert_eq!(failed.learn(2, Err(diesel::result::Error::NotFound)), None);
    assert_eq!(failed.known(true), Some(None));
}

#[test]
fn a_kept_choice_follows_the_indexes_learned_again() {
    let lookup = lookup_of("relisted_test");
    let serving = vec![
        part("PRIMARY", Some("id"), "A"),
        part("by_tenant_at_id", Some("tenant"), "A"),
        part("by_tenant_at_id", Some("at"), "A"),
    ];
    assert_eq!(lookup.learn(0, Ok(serving)), Some("by_tenant_at_id"));
    // Kept, and still the answer after another table's indexes change the catalog.
    assert_eq!(lookup.known(true), Some(Some("by_tenant_at_id")));
    assert_eq!(
        lookup_of("another_table_test").learn(0, Ok(Vec::new())),
        None
    );
    assert_eq!(lookup.known(true), Some(Some("by_tenant_at_id")));
    // The index dropped since: the table listed again without it names nothing.
    assert_eq!(
        lookup.learn(0, Ok(vec![part("PRIMARY", Some("id"), "A")])),
        None
    );
    assert_eq!(lookup.known(true), Some(None));
}
