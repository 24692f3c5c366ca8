//! The `Keyset` and `KeysetSql` impls of one keyset of a model.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned, ToTokens};
use syn::{Ident, Index};

use super::checks::checks;
use super::span::{column_alias, private, respan, spanned_range};
use crate::model::{KeyField, Model, NullsOrder, SortDirection, Spanned};

/// The `Keyset` and `KeysetSql` impls of one keyset of `model` on type `ty` (the model, or a
/// named sort's row type), its key columns `keys` read from `access` (`self`, `self.0`), the
/// pages naming `index` when it is declared.
pub(super) fn keyset(
    model: &Model,
    ty: &TokenStream,
    access: &TokenStream,
    keys: &[KeyField],
    index: Option<&Spanned<String>>,
) -> TokenStream {
    let ident = ty;
    let table = &model.table;
    let table_name = table_name(model);
    let p = private(Span::call_site());
    let diesel = quote!(#p::diesel);

    // One alias per key column: a column the table does not have is reported once, on the
    // field (or on its `column_name` value), and every later use of the alias stays silent.
    // A field read through `select_expression` is keyed by that expression: its alias is the
    // expression's type (written, or inferred as Diesel's `Selectable` infers it).
    let aliases = keys.iter().enumerate().map(|(i, k)| {
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
    let columns: Vec<Ident> = (0..keys.len()).map(column_alias).collect();
    let key_types: Vec<&syn::Type> = keys.iter().map(|k| &k.field.ty).collect();
    let members: Vec<&TokenStream> = keys.iter().map(|k| &k.field.member).collect();
    let indexes: Vec<Index> = (0..keys.len()).map(Index::from).collect();
    let key_columns = keys.iter().zip(&columns).map(|(k, col)| {
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
        // A key on a column path (`authors::name`, a joined table's column) is a column; any
        // other select expression (`lower(users::name)`) is an SQL expression.
        let expression = k
            .field
            .expression
            .as_ref()
            .is_some_and(|e| !matches!(e.expr, syn::Expr::Path(_)));
        let exact_text = k.exact_text.is_some();
        quote! {
            #p::KeyColumn {
                name: #name,
                field: #field,
                direction: #direction,
                nulls: #nulls,
                expression: #expression,
                exact_text: #exact_text,
            }
        }
    });

    let checks = checks(keys);
    // Only when written: a model without the attribute keeps the trait's default (1), and so
    // the signature it always had.
    let version = model.version.map(|v| {
        let n = v.value;
        quote!(const VERSION: u32 = #n;)
    });
    // A key whose last column is not marked `unique` ends with the table's primary key: how
    // many of its last columns name one row together (the key's width when it is composite).
    // The bound is the check too: a key that does not end with the primary key fails it here,
    // on the last key column's attribute, with the marker trait's message.
    let tie_breaker = keys.last().filter(|k| k.unique.is_none()).map(|key| {
        let (start, end) = (key.attr_start(), key.attr_end());
        let p = private(end);
        // The key's type spans the attribute (its first token `start`, its last `end`): the
        // compiler reports the bound on it.
        let key = spanned_range(quote!(#p::KeyColumns<(#(#columns,)*)>), start, end);
        let pk = respan(
            quote!(<#table::table as #p::diesel::Table>::PrimaryKey),
            end,
        );
        quote!(const TIE_BREAKER_COLUMNS: usize = #p::tie_breaker_columns::<#key, #pk>();)
    });
    // Only when declared: the trait's default is no index.
    let index = index.map(|i| {
        let name = &i.value;
        quote!(const INDEX: ::core::option::Option<&'static str> = ::core::option::Option::Some(#name);)
    });

    let sql_bounds = keys.iter().zip(&columns).map(|(k, col)| {
        let ty = &k.field.ty;
        quote! {
            #col: #diesel::query_builder::QueryFragment<__DB>,
            #ty: #diesel::serialize::ToSql<#diesel::dsl::SqlTypeOf<#col>, __DB>,
            __DB: #diesel::sql_types::HasSqlType<#diesel::dsl::SqlTypeOf<#col>>,
        }
    });
    let walk_columns = columns.iter().zip(&indexes).zip(keys).map(|((col, i), k)| {
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
                #index
                #tie_breaker

                fn key(&self) -> Self::Key {
                    (#(::core::clone::Clone::clone(&#access.#members),)*)
                }

                // The SQL name Diesel writes (schema-qualified when the `table!` names a schema),
                // part of the sort signature.
                fn sql_table_name() -> ::std::string::String {
                    #p::sql_table_name::<#table::table>()
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

/// The table path as written in `#[diesel(table_name = ..)]` (`events`, `archive::events`):
/// two tables of the same name in different modules (schemas) get different sort signatures.
pub(super) fn table_name(model: &Model) -> String {
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
pub(super) fn expression_type(e: &crate::model::SelectExpression) -> (TokenStream, TokenStream) {
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
pub(super) fn expression_text(tokens: TokenStream) -> String {
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
pub(super) fn column_path(model: &Model, key: &KeyField) -> TokenStream {
    let table = &model.table;
    match &key.field.column {
        Some(col) => quote_spanned!(col.span()=> #table::#col),
        None => quote!(#table::__keyset_missing_column_name),
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
