//! What a model with errors expands to besides the errors: a stub, so its use sites add no
//! errors of their own (thiserror's `fallback.rs` does the same).

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::DeriveInput;

use super::keyset::table_name;
use super::sorts::{sort_enum, sort_row};
use super::span::private;
use crate::model::Model;

/// What a model with errors expands to, besides the errors: impls of `Keyset` and `KeysetSql`
/// that type-check at every use site (same table, a hidden placeholder key), and the named
/// sorts' row types and enum, so the user sees only the real mistakes, not "`Event: Keyset` is
/// not satisfied" wherever the model is used. Nothing in it can run: the crate does not compile
/// while the errors stand.
pub fn stub(input: &DeriveInput, model: &Model) -> TokenStream {
    let ident = &input.ident;
    let mut out = TokenStream::new();
    if !model.keys.is_empty() || model.sorts.is_empty() {
        out.extend(stub_keyset(model, &input.generics, &quote!(#ident)));
    }
    if input.generics.params.is_empty() {
        for sort in &model.sorts {
            let row = model.sort_row(sort);
            out.extend(sort_row(model, sort));
            out.extend(stub_keyset(model, &syn::Generics::default(), &quote!(#row)));
        }
        out.extend(sort_enum(model));
    }
    out
}

/// The placeholder `Keyset` and `KeysetSql` impls of [`stub`] on type `ty`.
pub(super) fn stub_keyset(
    model: &Model,
    input_generics: &syn::Generics,
    ty: &TokenStream,
) -> TokenStream {
    let ident = ty;
    let (impl_generics, ty_generics, where_clause) = input_generics.split_for_impl();
    let p = private(Span::call_site());
    let diesel = quote!(#p::diesel);
    let table = &model.table;
    let table_name = table_name(model);
    let mut generics = input_generics.clone();
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
