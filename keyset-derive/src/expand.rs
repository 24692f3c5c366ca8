//! Code generation for a checked [`Model`].

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::Index;

use crate::model::{Direction, KeyField, Model, Nulls};

pub fn keyset(model: &Model) -> TokenStream {
    let ident = &model.ident;
    let table = &model.table;
    let table_name = table
        .segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default();
    let p = quote!(::keyset_diesel::__private);
    let diesel = quote!(#p::diesel);

    let columns: Vec<TokenStream> = model.keys.iter().map(|k| column_path(model, k)).collect();
    let key_types: Vec<TokenStream> = model
        .keys
        .iter()
        .map(|k| {
            let ty = &k.field.ty;
            quote_spanned!(k.field.span=> #ty)
        })
        .collect();
    let members: Vec<&TokenStream> = model.keys.iter().map(|k| &k.field.member).collect();
    let indexes: Vec<Index> = (0..model.keys.len()).map(Index::from).collect();
    let key_columns = model.keys.iter().zip(&columns).map(|(k, col)| {
        let field = &k.field.name;
        let direction = match k.direction.map(|d| d.value) {
            Some(Direction::Desc) => quote!(#p::SortDirection::Desc),
            _ => quote!(#p::SortDirection::Asc),
        };
        let nulls = match k.nulls.map(|n| n.value) {
            Some(Nulls::First) => quote!(::core::option::Option::Some(#p::NullsOrder::First)),
            Some(Nulls::Last) => quote!(::core::option::Option::Some(#p::NullsOrder::Last)),
            None => quote!(::core::option::Option::None),
        };
        quote! {
            #p::KeyColumn {
                name: <#col as #diesel::Column>::NAME,
                field: #field,
                direction: #direction,
                nulls: #nulls,
            }
        }
    });

    let checks = checks(model, &columns);

    let sql_bounds = model.keys.iter().zip(&columns).map(|(k, col)| {
        let ty = &k.field.ty;
        quote_spanned! {k.field.span=>
            #col: #diesel::query_builder::QueryFragment<__DB>,
            #ty: #diesel::serialize::ToSql<#diesel::dsl::SqlTypeOf<#col>, __DB>,
            __DB: #diesel::sql_types::HasSqlType<#diesel::dsl::SqlTypeOf<#col>>,
        }
    });
    let walk_columns = columns.iter().zip(&indexes).map(|(col, i)| {
        let n = i.index as usize;
        quote!(#n => #diesel::query_builder::QueryFragment::<__DB>::walk_ast(&#col, out),)
    });
    let walk_values = columns.iter().zip(&indexes).map(|(col, i)| {
        let n = i.index as usize;
        quote!(#n => out.push_bind_param::<#diesel::dsl::SqlTypeOf<#col>, _>(&key.#i),)
    });

    quote! {
        const _: () = {
            #checks

            impl #p::Keyset for #ident {
                type Table = #table::table;
                type Columns = (#(#columns,)*);
                type Key = (#(#key_types,)*);
                const COLUMNS: &'static [#p::KeyColumn] = &[#(#key_columns),*];
                const TABLE_NAME: &'static str = #table_name;

                fn key(&self) -> Self::Key {
                    (#(::core::clone::Clone::clone(&self.#members),)*)
                }

                fn sort_signature_digest() -> [u8; 16] {
                    static DIGEST: ::std::sync::OnceLock<[u8; 16]> = ::std::sync::OnceLock::new();
                    *DIGEST.get_or_init(|| #p::sort_signature_digest(
                        &<Self as #p::Keyset>::sort_signature(),
                    ))
                }
            }

            impl<__DB> #p::KeysetSql<__DB> for #ident
            where
                __DB: #diesel::backend::Backend,
                #(#sql_bounds)*
            {
                fn walk_column(
                    index: usize,
                    out: #diesel::query_builder::AstPass<'_, '_, __DB>,
                ) -> #diesel::QueryResult<()> {
                    match index {
                        #(#walk_columns)*
                        _ => ::core::result::Result::Err(#p::__index_error(index)),
                    }
                }

                fn walk_value<'__b>(
                    key: &'__b Self::Key,
                    index: usize,
                    mut out: #diesel::query_builder::AstPass<'_, '__b, __DB>,
                ) -> #diesel::QueryResult<()> {
                    match index {
                        #(#walk_values)*
                        _ => ::core::result::Result::Err(#p::__index_error(index)),
                    }
                }
            }
        };
    }
}

/// `table::column` for a key field, spanned on the field so a missing column is reported there.
fn column_path(model: &Model, key: &KeyField) -> TokenStream {
    let table = &model.table;
    match &key.field.column {
        Some(col) => {
            let col = syn::Ident::new(&col.to_string(), key.field.span);
            quote_spanned!(key.field.span=> #table::#col)
        }
        None => quote!(#table::__keyset_missing_column_name),
    }
}

/// Non-generic functions whose `where` clauses hold exactly when the model is right (the
/// technique of Diesel's `check_for_backend`): the compiler reports each failing one on the
/// span of the field it concerns, with the message of the marker trait in `keyset-diesel`.
fn checks(model: &Model, columns: &[TokenStream]) -> TokenStream {
    let p = quote!(::keyset_diesel::__private);
    let diesel = quote!(#p::diesel);
    let table = &model.table;
    let mut out = TokenStream::new();
    let last = model.keys.len().saturating_sub(1);
    for (i, (k, col)) in model.keys.iter().zip(columns).enumerate() {
        let ty = &k.field.ty;
        let nullability = match k.nulls {
            Some(n) => quote_spanned! {n.span=>
                <#diesel::dsl::SqlTypeOf<#col> as #diesel::sql_types::SqlType>::IsNull:
                    #p::NullPlacementNeedsNullableColumn<#col>,
            },
            None if i == last => quote_spanned! {k.attr_span=>
                <#diesel::dsl::SqlTypeOf<#col> as #diesel::sql_types::SqlType>::IsNull:
                    #p::TieBreakerMustBeNotNull<#col>,
            },
            None => quote_spanned! {k.attr_span=>
                <#diesel::dsl::SqlTypeOf<#col> as #diesel::sql_types::SqlType>::IsNull:
                    #p::NullableKeyColumnNeedsPlacement<#col>,
            },
        };
        // Each check in its own anonymous scope, so the function names do not collide.
        out.extend(quote_spanned! {k.field.span=>
            const _: () = {
                #[allow(dead_code)]
                fn __keyset_check_column()
                where
                    #ty: #p::KeyValue,
                    #ty: #p::KeyFieldMatchesColumn<#col>,
                    #nullability
                {
                }
            };
        });
    }
    if let Some(last) = model.keys.last() {
        if last.unique.is_none() {
            let col = columns.last().cloned().unwrap_or_default();
            out.extend(quote_spanned! {last.attr_span=>
                const _: () = {
                    #[allow(dead_code)]
                    fn __keyset_check_tie_breaker()
                    where
                        <#table::table as #diesel::Table>::PrimaryKey:
                            #p::TieBreakerIsPrimaryKey<#col>,
                    {
                    }
                };
            });
        }
    }
    out
}
