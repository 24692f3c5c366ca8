//! The rule behind caching a page by type: a static query id never names two SQL texts, for
//! every combination of a page's options, every keyset kind, every backend.

use std::collections::{HashMap, HashSet};

use super::*;

/// Every option of a page, named: a field added to [`Paginated`] stops this test from
/// compiling until [`every_option`] sets it too, so no option can change the SQL text unseen
/// by [`a_static_id_never_names_two_texts`].
#[allow(dead_code)]
fn options_are_all_covered<Q, K: Keyset>(paginated: &Paginated<Q, K>) {
    let Paginated {
        mode: _,
        query: _,
        cursor: _,
        until: _,
        walk: _,
        page_size: _,
        exact: _,
        deferred: _,
        per_level: _,
        expanded: _,
        budget: _,
        total: _,
        index: _,
        flags_only: _,
        inclusive: _,
    } = paginated;
}

/// Every combination of the page's options on `query` (`cursors` are the keys a page may
/// start after; `until` bounds are the same keys), as built pages.
fn every_option<Q: Clone, K: Keyset>(
    query: &Q,
    cursors: &[Option<K::Key>],
) -> Vec<Paginated<Q, K>> {
    // 3 and 7 are written with their limit as a number on PostgreSQL, the smallest size past
    // `MAX_LIMIT_IN_TEXT` with its limit bound.
    let past = u32::try_from(crate::query::statement::MAX_LIMIT_IN_TEXT).expect("a page size");
    let page_sizes = [(3, None), (7, Some(5)), (past, None)];
    let mut pages = Vec::new();
    for walk in [Direction::Forward, Direction::Backward] {
        for cursor in cursors {
            for until in cursors {
                for exact in [false, true] {
                    for deferred in [None, Some(false), Some(true)] {
                        for per_level in [false, true] {
                            for expanded in [false, true] {
                                for total in [false, true] {
                                    for index in [None, Some(Some("ix")), Some(None)] {
                                        for (page_size, budget) in page_sizes {
                                            let cursor = cursor.clone().map(|key| Cursor {
                                                key,
                                                direction: walk,
                                            });
                                            let mut p = Paginated::new(query.clone(), cursor, walk)
                                                .until(until.clone().map(|key| Cursor {
                                                    key,
                                                    direction: walk,
                                                }))
                                                .page_size(page_size)
                                                .exact_flags(exact)
                                                .seek_per_level(per_level)
                                                .expanded_seek(expanded);
                                            if let Some(deferred) = deferred {
                                                p = p.deferred_join(deferred);
                                            }
                                            if total {
                                                p = p.with_total_count();
                                            }
                                            if let Some(index) = index {
                                                p = p.force_index(index);
                                            }
                                            if let Some(max) = budget {
                                                p = p.max_bytes(max, |_| 1);
                                            }
                                            pages.push(p);
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    pages
}

/// A static query id names one SQL text: of every page of `query` (every option, every
/// cursor), those given the same static shape on `DB` have the same text, binds apart. Diesel
/// would otherwise run one text's prepared statement for another page: a wrong page. Returns
/// how many pages got a static shape, and the shapes they got.
fn static_shapes_name_one_text<DB, K, Q>(
    query: Q,
    cursors: &[Option<K::Key>],
) -> (usize, Vec<StaticShape>)
where
    DB: KeysetBackend + Default,
    K: KeysetSql<DB>,
    Q: PageSource<K> + SelectParts<DB> + Clone + std::fmt::Debug,
    PageQuery<Q, K>: diesel::query_builder::QueryFragment<DB>,
    PageStatement<Q, K>: diesel::query_builder::QueryFragment<DB>,
    UnionPage<Q, K>: diesel::query_builder::QueryFragment<DB>,
    DB::QueryBuilder: Default,
{
    let mut texts: HashMap<StaticShape, String> = HashMap::new();
    let mut keyed = 0;
    for paginated in every_option::<Q, K>(&query, cursors) {
        let (query, _) = shape::<DB, _, _, _>(paginated.clone()).expect("a page query");
        // The statement as Diesel writes it to run it (its `to_sql`, from the text kept for
        // its key on PostgreSQL, `query/text_memo.rs`) is the statement walked out: a kept
        // text never stands for another page's.
        let walked = diesel::debug_query::<DB, _>(&query).to_string();
        let written = match &query {
            PageQuery::Statement(statement) => diesel::debug_query::<DB, _>(statement).to_string(),
            PageQuery::Union(union) => diesel::debug_query::<DB, _>(union).to_string(),
        };
        assert_eq!(written, walked, "{paginated:?}");
        // The bind count and cache flag kept with the text (after `written` kept it) are
        // those of the statement walked out.
        use diesel::query_builder::QueryFragment;
        let backend = DB::default();
        let kept = match &query {
            PageQuery::Statement(statement) => (
                statement.count_binds(&backend).expect("binds"),
                statement
                    .is_safe_to_cache_prepared(&backend)
                    .expect("cache flag"),
            ),
            PageQuery::Union(union) => (
                union.count_binds(&backend).expect("binds"),
                union
                    .is_safe_to_cache_prepared(&backend)
                    .expect("cache flag"),
            ),
        };
        let walked_facts = (
            query.count_binds(&backend).expect("binds"),
            query
                .is_safe_to_cache_prepared(&backend)
                .expect("cache flag"),
        );
        assert_eq!(kept, walked_facts, "{paginated:?}");
        let shape = match &query {
            PageQuery::Statement(statement) => statement.static_shape::<DB>(),
            PageQuery::Union(union) => union.static_shape::<DB>(),
        };
        let Some(shape) = shape else {
            continue;
        };
        keyed += 1;
        let sql = diesel::debug_query::<DB, _>(&query).to_string();
        let text = sql
            .split(" -- binds:")
            .next()
            .unwrap_or_default()
            .to_string();
        match texts.get(&shape) {
            Some(first) => assert_eq!(first, &text, "{shape:?} for {paginated:?}"),
            None => {
                texts.insert(shape, text);
            }
        }
    }
    (keyed, texts.into_keys().collect())
}

/// The rule, on every backend, for keysets of every kind: one column, mixed directions, one
/// direction (a row value), a nullable leading column with a declared index, a nullable middle
/// column.
#[test]
fn a_static_id_never_names_two_texts() {
    fn on<DB>() -> (usize, HashSet<StaticShape>)
    where
        DB: KeysetBackend
            + Default
            + 'static
            + diesel::sql_types::HasSqlType<diesel::sql_types::BigInt>,
        i64: diesel::serialize::ToSql<diesel::sql_types::BigInt, DB>,
        DB::QueryBuilder: Default,
        Row: KeysetSql<DB>,
        Pair: KeysetSql<DB>,
        Ascending: KeysetSql<DB>,
        Maybe: KeysetSql<DB>,
        MaybeFirst: KeysetSql<DB>,
        Mid: KeysetSql<DB>,
        diesel::dsl::Select<rows::table, rows::id>: SelectParts<DB>,
        diesel::dsl::Select<pairs::table, pairs::id>: SelectParts<DB>,
        diesel::dsl::Select<maybes::table, maybes::id>: SelectParts<DB>,
        diesel::dsl::Select<mids::table, mids::id>: SelectParts<DB>,
        PageQuery<diesel::dsl::Select<rows::table, rows::id>, Row>:
            diesel::query_builder::QueryFragment<DB>,
        PageQuery<diesel::dsl::Select<pairs::table, pairs::id>, Pair>:
            diesel::query_builder::QueryFragment<DB>,
        PageQuery<diesel::dsl::Select<pairs::table, pairs::id>, Ascending>:
            diesel::query_builder::QueryFragment<DB>,
        PageQuery<diesel::dsl::Select<maybes::table, maybes::id>, Maybe>:
            diesel::query_builder::QueryFragment<DB>,
        PageQuery<diesel::dsl::Select<maybes::table, maybes::id>, MaybeFirst>:
            diesel::query_builder::QueryFragment<DB>,
        PageQuery<diesel::dsl::Select<mids::table, mids::id>, Mid>:
            diesel::query_builder::QueryFragment<DB>,
    {
        let runs = [
            static_shapes_name_one_text::<DB, Row, _>(
                rows::table.select(rows::id),
                &[None, Some((3,)), Some((8,))],
            ),
            static_shapes_name_one_text::<DB, Pair, _>(
                pairs::table.select(pairs::id),
                &[None, Some((5, 3))],
            ),
            static_shapes_name_one_text::<DB, Ascending, _>(
                pairs::table.select(pairs::id),
                &[None, Some((5, 3))],
            ),
            // Forward after a value, a NULL group follows (a split union, `SplitForward`).
            static_shapes_name_one_text::<DB, Maybe, _>(
                maybes::table.select(maybes::id),
                &[None, Some((Some(1), 2)), Some((None, 2))],
            ),
            // Backward after a value, the NULL group is beyond it (`SplitBackward`).
            static_shapes_name_one_text::<DB, MaybeFirst, _>(
                maybes::table.select(maybes::id),
                &[None, Some((Some(1), 2)), Some((None, 2))],
            ),
            static_shapes_name_one_text::<DB, Mid, _>(
                mids::table.select(mids::id),
                &[None, Some((3, Some(1), 2)), Some((3, None, 2))],
            ),
        ];
        let keyed = runs.iter().map(|(n, _)| n).sum();
        let shapes = runs.into_iter().flat_map(|(_, s)| s).collect();
        (keyed, shapes)
    }
    let mut results = Vec::new();
    #[cfg(feature = "postgres")]
    {
        results.push(on::<diesel::pg::Pg>());
        // Pages of 3 and 7 rows on PostgreSQL were written from kept texts (their limits are
        // numbers): the check of kept against walked texts above is not vacuous.
        assert!(crate::query::text_memo::kept_texts() > 10);
    }
    #[cfg(feature = "sqlite")]
    results.push(on::<diesel::sqlite::Sqlite>());
    #[cfg(feature = "mysql")]
    results.push(on::<diesel::mysql::Mysql>());
    // The rule keys many pages by type, of every shape on every backend (the split unions
    // included): the test is not vacuous.
    for (keyed, shapes) in results {
        assert!(keyed > 300, "{keyed}");
        assert_eq!(shapes.len(), 6, "{shapes:?}");
    }
}
