//! Code generation: the impls for a checked [`Model`] (`keyset.rs`, its check functions in
//! `checks.rs`, named sorts in `sorts.rs`), or a stub when the model has errors
//! (`fallback.rs`).
//!
//! Spans matter here as much as tokens: every `where` predicate of a check function is spanned
//! on what the user must change (the field's type, its `#[keyset(..)]` attribute, the
//! `nulls_first` word), so the compiler reports the check's message there.

use proc_macro2::TokenStream;
use quote::quote;

use crate::model::Model;

mod checks;
mod fallback;
mod keyset;
mod sorts;
mod span;

pub use self::fallback::stub;

/// Everything a checked model expands to: its own keyset (when its fields mark key columns),
/// and for its named sorts their row types and the enum that chooses one.
pub fn model(model: &Model) -> TokenStream {
    let mut out = TokenStream::new();
    if !model.keys.is_empty() {
        let ident = &model.ident;
        out.extend(keyset::keyset(
            model,
            &quote!(#ident),
            &quote!(self),
            &model.keys,
            model.index.as_ref(),
        ));
    }
    for sort in &model.sorts {
        let row = model.sort_row(sort);
        out.extend(sorts::sort_row(model, sort));
        out.extend(keyset::keyset(
            model,
            &quote!(#row),
            &quote!(self.0),
            &sort.keys,
            sort.index.as_ref(),
        ));
    }
    out.extend(sorts::sort_enum(model));
    out
}
