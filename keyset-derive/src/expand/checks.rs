//! The check functions of a keyset: non-generic functions whose `where` clauses hold exactly
//! when the model is right (the technique of Diesel's `check_for_backend`).

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};

use super::span::{column_alias, last_span, private, respan, spanned_range};
use crate::model::KeyField;

/// Non-generic functions whose `where` clauses hold exactly when the model is right (the
/// technique of Diesel's `check_for_backend`): the compiler reports each failing predicate on
/// its span, with the message of the marker trait in `keyset_diesel::__private`.
pub(super) fn checks(keys: &[KeyField]) -> TokenStream {
    let diesel_at = |span: Span| {
        let p = private(span);
        quote_spanned!(span=> #p::diesel)
    };
    let mut preds = TokenStream::new();
    let last = keys.len().saturating_sub(1);
    for (i, k) in keys.iter().enumerate() {
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

        // A key read through a select expression is no aggregate (`count(*)`, `sum(..)`):
        // aggregates are not allowed in WHERE, where the seek compares it.
        if let Some(expression) = &k.field.expression {
            let tokens = expression.expr.to_token_stream();
            let start = tokens
                .clone()
                .into_iter()
                .next()
                .map_or(k.field.span, |t| t.span());
            let end = last_span(tokens, start);
            let d = diesel_at(end);
            let p = private(end);
            preds.extend(spanned_range(
                quote! {
                    <#col as #d::expression::ValidGrouping<()>>::IsAggregate:
                        #p::KeyExpressionIsNotAggregate<#col>,
                },
                start,
                end,
            ));
        }

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
    quote! {
        #[allow(dead_code, non_snake_case)]
        fn __keyset_checks()
        where
            #preds
        {
        }
    }
}
