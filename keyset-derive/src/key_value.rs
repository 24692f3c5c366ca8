//! `#[derive(KeyValue)]`: a newtype key value (`struct UserId(i64)`) that is exactly its one
//! field's key value: same token representation, type tag, NaN check and order; or a fieldless
//! enum (a PostgreSQL native enum's Rust side), whose token holds the variant's name.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields};

pub fn key_value(input: &DeriveInput) -> syn::Result<TokenStream> {
    let fields = match &input.data {
        Data::Struct(s) => &s.fields,
        Data::Enum(e) => return fieldless_enum(input, e),
        Data::Union(_) => return Err(not_a_newtype(input)),
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
            fn check_bind(
                &self,
                backend: #p::BackendKind,
            ) -> ::core::result::Result<(), #p::InvalidKeyValue> {
                #p::KeyValue::check_bind(&self.#member, backend)
            }
            fn unrepresented_sql(backend: #p::BackendKind) -> ::core::option::Option<&'static str> {
                <#inner as #p::KeyValue>::unrepresented_sql(backend)
            }
            fn exact_order() -> bool {
                <#inner as #p::KeyValue>::exact_order()
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
            fn may_collate_equal(&self, other: &Self) -> bool {
                #p::KeyValue::may_collate_equal(&self.#member, &other.#member)
            }
        }
    })
}

fn not_a_newtype(input: &DeriveInput) -> syn::Error {
    syn::Error::new_spanned(
        &input.ident,
        "#[derive(KeyValue)] is for a newtype: a struct with exactly one field, e.g. \
         `struct UserId(i64);`, whose value is the key value, or for an enum without fields \
         (a PostgreSQL native enum); for another shape, implement \
         `keyset_diesel::query::KeyValue` by hand",
    )
}

/// A fieldless enum: the token holds the variant's name (so reordering or adding variants keeps
/// old tokens valid), the type tag `enum<Name>` (a token of another enum is refused), and
/// `exact_cmp` knows only equality: the order is the database's (a PostgreSQL enum sorts by its
/// `CREATE TYPE` order), which Rust cannot see, so the page check never assumes one.
fn fieldless_enum(input: &DeriveInput, data: &syn::DataEnum) -> syn::Result<TokenStream> {
    let ident = &input.ident;
    if data.variants.is_empty() {
        return Err(syn::Error::new_spanned(
            ident,
            "#[derive(KeyValue)] on an enum needs at least one variant: an enum without \
             variants has no value to page by",
        ));
    }
    let mut errors: Option<syn::Error> = None;
    for variant in &data.variants {
        if !matches!(variant.fields, Fields::Unit) {
            let e = syn::Error::new_spanned(
                variant,
                format!(
                    "#[derive(KeyValue)] on an enum is for fieldless enums (a PostgreSQL native \
                     enum): variant `{}` has fields, which a key value cannot hold; remove them, \
                     or implement `keyset_diesel::query::KeyValue` by hand",
                    variant.ident
                ),
            );
            match &mut errors {
                Some(all) => all.combine(e),
                None => errors = Some(e),
            }
        }
    }
    if let Some(e) = errors {
        return Err(e);
    }
    let names: Vec<&syn::Ident> = data.variants.iter().map(|v| &v.ident).collect();
    let labels: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    let tag = format!("enum<{ident}>");
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let p = quote!(::keyset_diesel::__private);
    Ok(quote! {
        impl #impl_generics #p::KeyValue for #ident #ty_generics #where_clause {
            type Repr = ::std::string::String;
            fn type_tag() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(#tag)
            }
            fn to_repr(&self) -> Self::Repr {
                ::std::string::String::from(match self {
                    #(Self::#names => #labels,)*
                })
            }
            fn from_repr(repr: Self::Repr) -> ::core::result::Result<Self, #p::InvalidKeyValue> {
                match repr.as_str() {
                    #(#labels => ::core::result::Result::Ok(Self::#names),)*
                    _ => ::core::result::Result::Err(#p::InvalidKeyValue(
                        "not a variant of this enum",
                    )),
                }
            }
            fn exact_cmp(&self, other: &Self) -> ::core::option::Option<::core::cmp::Ordering> {
                // Equality only: the database orders the values (a PostgreSQL enum by its
                // `CREATE TYPE` order), not the Rust declaration.
                (self == other).then_some(::core::cmp::Ordering::Equal)
            }
        }
    })
}
