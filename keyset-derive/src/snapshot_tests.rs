//! Snapshots of the expansion of representative models (`src/snapshots/`). Review a change
//! with `cargo insta review`, or accept it with `INSTA_UPDATE=always cargo test -p
//! keyset-derive`; the UI tests in `ui-tests/tests/ui` check what the compiler makes of it.

fn expand(input: proc_macro2::TokenStream) -> String {
    let output = super::derive_keyset_inner(input).expect("an item");
    let file: syn::File = syn::parse2(output).expect("the expansion parses as items");
    prettyplease::unparse(&file)
}

/// Two columns, mixed directions, an explicit `unique` tie-breaker.
#[test]
fn two_columns_with_unique_tie_breaker() {
    insta::assert_snapshot!(expand(quote::quote! {
        #[derive(Keyset)]
        #[diesel(table_name = events)]
        struct Event {
            workspace_id: String,
            #[keyset(desc)]
            occurred_at: chrono::NaiveDateTime,
            #[keyset(asc, unique)]
            event_id: String,
            message: String,
        }
    }));
}

/// A nullable column with its placement, a renamed column, the primary key as the
/// tie-breaker without `unique` (so the primary-key check is written), a table path.
#[test]
fn nullable_renamed_and_primary_key_tie_breaker() {
    insta::assert_snapshot!(expand(quote::quote! {
        #[derive(Keyset)]
        #[diesel(table_name = crate::schema::tracks)]
        struct Track {
            #[keyset(asc, nulls_last)]
            composer: Option<String>,
            #[keyset(asc)]
            #[diesel(column_name = track_id)]
            id: i64,
        }
    }));
}

/// Keys read through `select_expression`: a function of a column (type inferred), a
/// column of a joined table (type written), then the model table's primary key.
#[test]
fn expression_and_joined_keys() {
    insta::assert_snapshot!(expand(quote::quote! {
        #[derive(Keyset)]
        #[diesel(table_name = books)]
        struct Book {
            #[keyset(asc)]
            #[diesel(select_expression = lower(authors::name))]
            author: String,
            #[keyset(desc)]
            #[diesel(select_expression = authors::id, select_expression_type = authors::id)]
            author_id: i64,
            #[keyset(asc)]
            id: i64,
        }
    }));
}

/// Named sorts beside the model's own keyset: each sort's row type with its keyset, and the
/// enum of the sorts.
#[test]
fn named_sorts() {
    insta::assert_snapshot!(expand(quote::quote! {
        #[derive(Keyset)]
        #[diesel(table_name = posts)]
        #[keyset(sort(Newest(created_at(desc), id(desc))))]
        #[keyset(sort(MostLiked(likes(desc), title(asc, nulls_last), id(asc))))]
        pub struct Post {
            #[keyset(asc)]
            id: i64,
            likes: i32,
            title: Option<String>,
            created_at: chrono::NaiveDateTime,
        }
    }));
}

/// A model with mistakes: every error, and a stub `Keyset` / `KeysetSql` so the model's
/// use sites add none of their own.
#[test]
fn model_with_errors_gets_errors_and_a_stub() {
    insta::assert_snapshot!(expand(quote::quote! {
        #[derive(Keyset)]
        struct Event {
            #[keyset(asc, uniqe)]
            occurred_at: chrono::NaiveDateTime,
            #[keyset(asc, unique)]
            #[keyset(desc)]
            event_id: String,
        }
    }));
}

/// `graphql_sort`: the sorts' enum also derives async-graphql's `Enum` (and only then); on a
/// model without named sorts it is an error naming the fix.
#[test]
fn graphql_sort_derives_the_graphql_enum() {
    let model = |graphql: proc_macro2::TokenStream| {
        expand(quote::quote! {
            #[derive(Keyset)]
            #[diesel(table_name = posts)]
            #[keyset(sort(Newest(created_at(desc), id(desc))) #graphql)]
            pub struct Post {
                id: i64,
                created_at: chrono::NaiveDateTime,
            }
        })
    };
    let with = model(quote::quote!(, graphql_sort));
    assert!(
        with.contains("#[derive(::async_graphql::Enum)]\n"),
        "{with}"
    );
    assert!(with.contains("pub enum PostSort"), "{with}");
    let without = model(quote::quote!());
    assert!(!without.contains("async_graphql"), "{without}");
    let no_sorts = expand(quote::quote! {
        #[derive(Keyset)]
        #[keyset(graphql_sort)]
        struct Post {
            #[keyset(asc)]
            id: i64,
        }
    });
    assert!(
        no_sorts.contains("this model has no named sort"),
        "{no_sorts}"
    );
    assert!(!no_sorts.contains("async_graphql"), "{no_sorts}");
}
