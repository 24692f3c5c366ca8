//! Names and spans of generated code: every predicate of a check function is spanned on what
//! the user must change, so the compiler reports the check's message there.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{format_ident, quote_spanned};
use syn::Ident;

/// The alias naming key column `i` inside the generated scope.
pub(super) fn column_alias(i: usize) -> Ident {
    format_ident!("__KeysetColumn{}", i)
}

/// `::keyset_diesel::__private`, spanned.
pub(super) fn private(span: Span) -> TokenStream {
    quote_spanned!(span=> ::keyset_diesel::__private)
}

/// `tokens` with every span set to `span`, groups included.
pub(super) fn respan(tokens: TokenStream, span: Span) -> TokenStream {
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
pub(super) fn last_span(tokens: TokenStream, fallback: Span) -> Span {
    match tokens.into_iter().last() {
        Some(TokenTree::Group(g)) => g.span_close(),
        Some(tt) => tt.span(),
        None => fallback,
    }
}

/// `start` on the first token of `tokens` and `end` on all the rest: the compiler underlines
/// from `start` to `end`.
pub(super) fn spanned_range(tokens: TokenStream, start: Span, end: Span) -> TokenStream {
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
