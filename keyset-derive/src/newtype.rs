//! `#[derive(KeyValue)]`: a newtype key value (`struct UserId(i64)`) that is exactly its one
//! field's key value: same token representation, type tag, NaN check and order.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields};

pub fn key_value(input: &DeriveInput) -> syn::Result<TokenStream> {
    let fields = match &input.data {
        Data::Struct(s) => &s.fields,
        _ => return Err(not_a_newtype(input)),
    };
    let field = match fields {
        Fields::Named(f) if f.named.len() == 1 => &f.named[0],
        Fields::Unnamed(f) if f.unnamed.len() == 1 => &f.unnamed[0],
        _ => return Err(not_a_newtype(input)),
    };
    let member = match &field.ident {
        Some(ident) => quote!(#ident),
        None => quote!(0),
    };
    let ident = &input.ident;
    let inner = &field.ty;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    // The bound is spanned on the field's type, so a field that is no key value is reported
    // there, with the trait's own message.
    let p = quote_spanned!(inner.span()=> ::keyset_diesel::__private);
    let construct = match &field.ident {
        Some(name) => quote!(#ident { #name: value }),
        None => quote!(#ident(value)),
    };
    let where_preds = where_clause.map(|w| &w.predicates);
    Ok(quote! {
        impl #impl_generics #p::KeyValue for #ident #ty_generics
        where
            #inner: #p::KeyValue,
            #where_preds
        {
            type Repr = <#inner as #p::KeyValue>::Repr;
            fn type_tag() -> ::std::borrow::Cow<'static, str> {
                <#inner as #p::KeyValue>::type_tag()
            }
            fn is_null(&self) -> bool {
                #p::KeyValue::is_null(&self.#member)
            }
            fn check_key(&self) -> ::core::result::Result<(), #p::InvalidKeyValue> {
                #p::KeyValue::check_key(&self.#member)
            }
            fn to_repr(&self) -> Self::Repr {
                #p::KeyValue::to_repr(&self.#member)
            }
            fn from_repr(repr: Self::Repr) -> ::core::result::Result<Self, #p::InvalidKeyValue> {
                <#inner as #p::KeyValue>::from_repr(repr).map(|value| #construct)
            }
            fn exact_cmp(&self, other: &Self) -> ::core::option::Option<::core::cmp::Ordering> {
                #p::KeyValue::exact_cmp(&self.#member, &other.#member)
            }
        }
    })
}

fn not_a_newtype(input: &DeriveInput) -> syn::Error {
    syn::Error::new_spanned(
        &input.ident,
        "#[derive(KeyValue)] is for a newtype: a struct with exactly one field, e.g. \
         `struct UserId(i64);`, whose value is the key value; for another shape, implement \
         `keyset_diesel::query::KeyValue` by hand",
    )
}
