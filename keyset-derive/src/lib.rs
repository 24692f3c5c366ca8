//! `#[derive(Keyset)]` and `#[derive(KeyValue)]` (newtype keys) for `keyset-diesel`. Use them
//! through `keyset_diesel::Keyset` and `keyset_diesel::query::KeyValue`.
//!
//! The derive is split the way serde's is: `attr/` reads the attributes into a `model`
//! (accumulating every mistake), `check` holds every rule across its parts, `expand/` writes
//! the code (a stub from `expand/fallback.rs` when the model has errors). Errors carry the
//! span of the offending field or option and say how to fix it, all of a model's at once.

use proc_macro::TokenStream;

mod attr;
mod case;
mod check;
mod errors;
mod expand;
mod key_value;
mod model;
#[cfg(test)]
mod snapshot_tests;

/// See `keyset_diesel::Keyset`.
///
/// `diesel` is a helper attribute here too, so a model may derive `Keyset` without any of
/// Diesel's derives and still name its table and columns.
#[proc_macro_derive(Keyset, attributes(keyset, diesel))]
pub fn derive_keyset(input: TokenStream) -> TokenStream {
    derive_keyset_inner(input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// See `keyset_diesel::query::KeyValue` (the derive of the same name).
#[proc_macro_derive(KeyValue)]
pub fn derive_key_value(input: TokenStream) -> TokenStream {
    syn::parse::<syn::DeriveInput>(input)
        .and_then(|input| key_value::key_value(&input))
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// The derive on token streams, so its expansion can be tested without a compiler.
///
/// A model with mistakes expands to all of them as `compile_error!`s, each on its own span,
/// plus a stub impl ([`expand::stub`]) so that the model's use sites add no errors of their
/// own. `Err` only for input that is not an item at all.
pub(crate) fn derive_keyset_inner(
    input: proc_macro2::TokenStream,
) -> syn::Result<proc_macro2::TokenStream> {
    let input: syn::DeriveInput = syn::parse2(input)?;
    let mut errors = errors::Errors::default();
    let mut model = attr::model(&input, &mut errors);
    if let Some(model) = &mut model {
        check::model(model, &mut errors);
    }
    Ok(match (&model, errors.into_error()) {
        (Some(model), None) => expand::model(model),
        (model, Some(e)) => {
            let mut out = e.into_compile_error();
            if let Some(model) = model {
                out.extend(expand::stub(&input, model));
            }
            out
        }
        (None, None) => syn::Error::new(
            proc_macro2::Span::call_site(),
            "#[derive(Keyset)] could not read this item",
        )
        .into_compile_error(),
    })
}
