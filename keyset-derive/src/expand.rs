//! Code generation: the impls for a checked [`Model`], or a stub when the model has errors.
//!
//! Spans matter here as much as tokens: every `where` predicate of a check function is spanned
//! on what the user must change (the field's type, its `#[keyset(..)]` attribute, the
//! `nulls_first` word), so the compiler reports the check's message there.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::{DeriveInput, Ident, Index};

use crate::model::{KeyField, Model, NullsOrder, SortDirection};

/// `::keyset_diesel::__private`, spanned.
fn private(span: Span) -> TokenStream {
    quote_spanned!(span=> ::keyset_diesel::__private)
}

/// `tokens` with every span set to `span`, groups included.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tt| {
            if let TokenTree::Group(g) = &tt {
                let mut group = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                tt = TokenTree::Group(group);
            } else {
                tt.set_span(span);
            }
            tt
        })
        .collect()
}

/// The span of the last token of `tokens` (the closing delimiter of a trailing group), or
/// `fallback` when empty. With the first token's own span, it lets a predicate cover the whole
/// of a multi-token type on stable Rust, where spans cannot be joined.
fn last_span(tokens: TokenStream, fallback: Span) -> Span {
    match tokens.into_iter().last() {
        Some(TokenTree::Group(g)) => g.span_close(),
        Some(tt) => tt.span(),
        None => fallback,
    }
}

/// `start` on the first token of `tokens` and `end` on all the rest: the compiler underlines
/// from `start` to `end`.
fn spanned_range(tokens: TokenStream, start: Span, end: Span) -> TokenStream {
    let mut out = TokenStream::new();
    for (i, tt) in respan(tokens, end).into_iter().enumerate() {
        let mut tt = tt;
        if i == 0 {
            if let TokenTree::Group(g) = &tt {
                let mut group = proc_macro2::Group::new(g.delimiter(), g.stream());
                group.set_span(start);
                tt = TokenTree::Group(group);
            } else {
                tt.set_span(start);
            }
        }
        out.extend([tt]);
    }
    out
}

/// The alias naming key column `i` inside the generated scope.
fn column_alias(i: usize) -> Ident {
    format_ident!("__KeysetColumn{}", i)
}

pub fn keyset(model: &Model) -> TokenStream {
    let ident = &model.ident;
    let table = &model.table;
    let table_name = table_name(model);
    let p = private(Span::call_site());
    let diesel = quote!(#p::diesel);

    // One alias per key column: a column the table does not have is reported once, on the
    // field (or on its `column_name` value), and every later use of the alias stays silent.
    // A field read through `select_expression` is keyed by that expression: its alias is the
    // expression's type (written, or inferred as Diesel's `Selectable` infers it).
    let aliases = model.keys.iter().enumerate().map(|(i, k)| {
        let alias = column_alias(i);
        let (path, errors) = match &k.field.expression {
            Some(e) => expression_type(e),
            None => (column_path(model, k), TokenStream::new()),
        };
        quote! {
            #errors
            #[allow(non_camel_case_types)]
            type #alias = #path;
        }
    });
    let columns: Vec<Ident> = (0..model.keys.len()).map(column_alias).collect();
    let key_types: Vec<&syn::Type> = model.keys.iter().map(|k| &k.field.ty).collect();
    let members: Vec<&TokenStream> = model.keys.iter().map(|k| &k.field.member).collect();
    let indexes: Vec<Index> = (0..model.keys.len()).map(Index::from).collect();
    let key_columns = model.keys.iter().zip(&columns).map(|(k, col)| {
        let field = &k.field.name;
        let direction = match k.direction.map(|d| d.value) {
            Some(SortDirection::Desc) => quote!(#p::SortDirection::Desc),
            _ => quote!(#p::SortDirection::Asc),
        };
        let nulls = match k.nulls.map(|n| n.value) {
            Some(NullsOrder::First) => quote!(::core::option::Option::Some(#p::NullsOrder::First)),
            Some(NullsOrder::Last) => quote!(::core::option::Option::Some(#p::NullsOrder::Last)),
            None => quote!(::core::option::Option::None),
        };
        let name = match &k.field.expression {
            Some(e) => {
                let text = expression_text(e.expr.to_token_stream());
                quote!(#text)
            }
            None => quote!(<#col as #diesel::Column>::NAME),
        };
        quote! {
            #p::KeyColumn {
                name: #name,
                field: #field,
                direction: #direction,
                nulls: #nulls,
            }
        }
    });

    let checks = checks(model);
    // Only when written: a model without the attribute keeps the trait's default (1), and so
    // the signature it always had.
    let version = model.version.map(|v| {
        let n = v.value;
        quote!(const VERSION: u32 = #n;)
    });

    let sql_bounds = model.keys.iter().zip(&columns).map(|(k, col)| {
        let ty = &k.field.ty;
        quote! {
            #col: #diesel::query_builder::QueryFragment<__DB>,
            #ty: #diesel::serialize::ToSql<#diesel::dsl::SqlTypeOf<#col>, __DB>,
            __DB: #diesel::sql_types::HasSqlType<#diesel::dsl::SqlTypeOf<#col>>,
        }
    });
    let walk_columns = columns.iter().zip(&indexes).zip(&model.keys).map(|((col, i), k)| {
        let n = i.index as usize;
        match &k.field.expression {
            // `walk_ast` needs the expression for as long as the pass's binds: built once, kept
            // in a static.
            Some(e) => {
                let expr = &e.expr;
                quote! {
                    #n => {
                        static EXPRESSION: ::std::sync::OnceLock<#col> = ::std::sync::OnceLock::new();
                        let expression: &'static #col = EXPRESSION.get_or_init(|| #expr);
                        #diesel::query_builder::QueryFragment::<__DB>::walk_ast(expression, out)
                    }
                }
            }
            // `&Column {}` is promoted to a `'static` constant, as `walk_ast` needs.
            None => quote! {
                #n => #diesel::query_builder::QueryFragment::<__DB>::walk_ast(&#col {}, out),
            },
        }
    });
    let walk_values = columns.iter().zip(&indexes).map(|(col, i)| {
        let n = i.index as usize;
        quote!(#n => out.push_bind_param::<#diesel::dsl::SqlTypeOf<#col>, _>(&key.#i),)
    });

    quote! {
        const _: () = {
            #(#aliases)*

            #checks

            impl #p::Keyset for #ident {
                type Table = #table::table;
                type Columns = (#(#columns,)*);
                type Key = (#(#key_types,)*);
                const COLUMNS: &'static [#p::KeyColumn] = &[#(#key_columns),*];
                const TABLE_NAME: &'static str = #table_name;
                #version

                fn key(&self) -> Self::Key {
                    (#(::core::clone::Clone::clone(&self.#members),)*)
                }

                // The SQL name Diesel writes (schema-qualified when the `table!` names a schema),
                // part of the sort signature.
                fn sql_table_component() -> ::std::string::String {
                    ::std::format!(
                        "{:?}",
                        <#table::table as #diesel::internal::table_macro::StaticQueryFragment>::STATIC_COMPONENT,
                    )
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

/// What a model with errors expands to, besides the errors: impls of `Keyset` and `KeysetSql`
/// that type-check at every use site (same table, a hidden placeholder key), so the user sees
/// only the real mistakes, not "`Event: Keyset` is not satisfied" wherever the model is used.
/// Nothing in it can run: the crate does not compile while the errors stand.
pub fn stub(input: &DeriveInput, model: &Model) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let p = private(Span::call_site());
    let diesel = quote!(#p::diesel);
    let table = &model.table;
    let table_name = table_name(model);
    let mut generics = input.generics.clone();
    generics.params.push(syn::parse_quote!(__DB));
    let (sql_impl_generics, _, _) = generics.split_for_impl();
    let where_preds = where_clause.map(|w| &w.predicates);
    quote! {
        const _: () = {
            impl #impl_generics #p::Keyset for #ident #ty_generics #where_clause {
                type Table = #table::table;
                type Columns = (#p::InvalidKeyset,);
                type Key = (#p::InvalidKeyset,);
                const COLUMNS: &'static [#p::KeyColumn] = &[];
                const TABLE_NAME: &'static str = #table_name;

                fn key(&self) -> Self::Key {
                    (#p::InvalidKeyset,)
                }
            }

            impl #sql_impl_generics #p::KeysetSql<__DB> for #ident #ty_generics
            where
                __DB: #diesel::backend::Backend,
                #where_preds
            {
                fn walk_column(
                    _index: usize,
                    _out: #diesel::query_builder::AstPass<'_, '_, __DB>,
                ) -> #diesel::QueryResult<()> {
                    ::core::result::Result::Err(#p::__invalid_keyset())
                }

                fn walk_value<'__b>(
                    _key: &'__b Self::Key,
                    _index: usize,
                    _out: #diesel::query_builder::AstPass<'_, '__b, __DB>,
                ) -> #diesel::QueryResult<()> {
                    ::core::result::Result::Err(#p::__invalid_keyset())
                }
            }
        };
    }
}

/// The table path as written in `#[diesel(table_name = ..)]` (`events`, `archive::events`):
/// two tables of the same name in different modules (schemas) get different sort signatures.
fn table_name(model: &Model) -> String {
    model
        .table
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}

/// The type of a key field's `select_expression`: `select_expression_type` when written, else
/// inferred from the expression as Diesel's `Selectable` derive infers it (so the two agree),
/// with the inference's errors as `compile_error!`s.
fn expression_type(e: &crate::model::SelectExpression) -> (TokenStream, TokenStream) {
    use dsl_auto_type::auto_type::expression_type_inference as inference;
    let settings = inference::InferrerSettings::builder()
        .dsl_path(syn::parse_quote!(::keyset_diesel::__private::diesel::dsl))
        .function_types_case(dsl_auto_type::Case::DoNotChange)
        .method_types_case(dsl_auto_type::Case::UpperCamel)
        .build();
    let (ty, errors) = inference::infer_expression_type(&e.expr, e.ty.as_ref(), &settings);
    let errors = errors.into_iter().map(|e| e.to_compile_error()).collect();
    (ty.to_token_stream(), errors)
}

/// A stable text of an expression's tokens, the key column's name in the sort signature and in
/// errors: no spaces except between two words (`lower(users::name)`, `coalesce(a,b)`), so it
/// does not depend on how the compiler prints tokens.
fn expression_text(tokens: TokenStream) -> String {
    fn write(tokens: TokenStream, out: &mut String, last_word: &mut bool) {
        for tt in tokens {
            match tt {
                TokenTree::Group(g) => {
                    let (open, close) = match g.delimiter() {
                        proc_macro2::Delimiter::Parenthesis => ("(", ")"),
                        proc_macro2::Delimiter::Brace => ("{", "}"),
                        proc_macro2::Delimiter::Bracket => ("[", "]"),
                        proc_macro2::Delimiter::None => ("", ""),
                    };
                    out.push_str(open);
                    *last_word = false;
                    write(g.stream(), out, last_word);
                    out.push_str(close);
                    *last_word = false;
                }
                TokenTree::Punct(p) => {
                    out.push(p.as_char());
                    *last_word = false;
                }
                TokenTree::Ident(i) => {
                    if *last_word {
                        out.push(' ');
                    }
                    out.push_str(&i.to_string());
                    *last_word = true;
                }
                TokenTree::Literal(l) => {
                    if *last_word {
                        out.push(' ');
                    }
                    out.push_str(&l.to_string());
                    *last_word = true;
                }
            }
        }
    }
    let mut out = String::new();
    write(tokens, &mut out, &mut false);
    out
}

/// `table::column` for a key field, spanned on the column's name as the user wrote it (the
/// `column_name` value, or the field), so a column the table lacks is reported there.
fn column_path(model: &Model, key: &KeyField) -> TokenStream {
    let table = &model.table;
    match &key.field.column {
        Some(col) => quote_spanned!(col.span()=> #table::#col),
        None => quote!(#table::__keyset_missing_column_name),
    }
}

/// Non-generic functions whose `where` clauses hold exactly when the model is right (the
/// technique of Diesel's `check_for_backend`): the compiler reports each failing predicate on
/// its span, with the message of the marker trait in `keyset_diesel::__private`.
fn checks(model: &Model) -> TokenStream {
    let diesel_at = |span: Span| {
        let p = private(span);
        quote_spanned!(span=> #p::diesel)
    };
    let table = &model.table;
    let mut preds = TokenStream::new();
    let last = model.keys.len().saturating_sub(1);
    for (i, k) in model.keys.iter().enumerate() {
        let col = column_alias(i);
        let ty = &k.field.ty;
        let ty_start = ty
            .to_token_stream()
            .into_iter()
            .next()
            .map_or(k.field.span, |t| t.span());
        let ty_end = last_span(ty.to_token_stream(), ty_start);

        // The field's type: a key value, bindable as the column's SQL type.
        let p = private(ty_end);
        let bounds = respan(
            quote! {
                #p::KeyValue
                + #p::KeyFieldMatchesColumn<#col, #p::diesel::dsl::SqlTypeOf<#col>>
                + #p::NullableColumnNeedsOptionField<
                    #col,
                    <#p::diesel::dsl::SqlTypeOf<#col> as #p::diesel::sql_types::SqlType>::IsNull,
                >
            },
            ty_end,
        );
        preds.extend(quote!(#ty: #bounds,));

        // Nullability: against the NULL placement word, or the whole attribute when it lacks one.
        let (start, end, check) = match k.nulls {
            Some(n) => (n.span, n.span, quote!(NullPlacementNeedsNullableColumn)),
            None if i == last => (
                k.attr_start(),
                k.attr_end(),
                quote!(TieBreakerMustBeNotNull),
            ),
            None => (
                k.attr_start(),
                k.attr_end(),
                quote!(NullableKeyColumnNeedsPlacement),
            ),
        };
        let d = diesel_at(end);
        let p = private(end);
        preds.extend(spanned_range(
            quote! {
                <#d::dsl::SqlTypeOf<#col> as #d::sql_types::SqlType>::IsNull: #p::#check<#col>,
            },
            start,
            end,
        ));
    }
    if let Some(key) = model.keys.last() {
        if key.unique.is_none() {
            let col = column_alias(last);
            let (start, end) = (key.attr_start(), key.attr_end());
            let d = diesel_at(end);
            let p = private(end);
            preds.extend(spanned_range(
                quote! {
                    <#table::table as #d::Table>::PrimaryKey: #p::TieBreakerIsPrimaryKey<#col>,
                },
                start,
                end,
            ));
        }
    }
    quote! {
        #[allow(dead_code, non_snake_case)]
        fn __keyset_checks()
        where
            #preds
        {
        }
    }
}

#[cfg(test)]
mod tests {
    use super::expression_text;

    /// The signature text of an expression: spaces only between two words, whatever the
    /// source's spacing.
    #[test]
    fn expression_text_is_compact_and_stable() {
        let text = |e: syn::Expr| expression_text(quote::ToTokens::to_token_stream(&e));
        assert_eq!(
            text(syn::parse_quote!(lower(users::name))),
            "lower(users::name)"
        );
        assert_eq!(
            text(syn::parse_quote!(coalesce(users::nick, users::name))),
            "coalesce(users::nick,users::name)"
        );
        assert_eq!(
            text(syn::parse_quote!(users::name.concat(" x"))),
            "users::name.concat(\" x\")"
        );
        assert_eq!(text(syn::parse_quote!(a as i64)), "a as i64");
        assert_eq!(text(syn::parse_quote!(authors::id)), "authors::id");
    }
}
