//! `#[derive(Keyset)]` for `keyset-diesel`. Use it through `keyset_diesel::Keyset`.
//!
//! The derive is split the way serde's is: `parse` reads the attributes into a `model`
//! (accumulating every mistake), `check` validates it, `expand` writes the code. Errors carry
//! the span of the offending field or option and say how to fix it.

use proc_macro::TokenStream;

mod check;
mod errors;
mod expand;
mod model;
mod parse;

/// See `keyset_diesel::Keyset`.
#[proc_macro_derive(Keyset, attributes(keyset))]
pub fn derive_keyset(input: TokenStream) -> TokenStream {
    derive_keyset_inner(input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// The derive on token streams, so its expansion can be tested without a compiler.
fn derive_keyset_inner(input: proc_macro2::TokenStream) -> syn::Result<proc_macro2::TokenStream> {
    let input: syn::DeriveInput = syn::parse2(input)?;
    let mut errors = errors::Errors::default();
    let model = parse::model(&input, &mut errors);
    if let Some(model) = &model {
        check::model(model, &mut errors);
    }
    match (model, errors.into_error()) {
        (Some(model), None) => Ok(expand::keyset(&model)),
        (_, Some(e)) => Err(e),
        (None, None) => Err(syn::Error::new(
            proc_macro2::Span::call_site(),
            "#[derive(Keyset)] could not read this item",
        )),
    }
}
