//! Diesel's own attributes, as Diesel's derives read them: `#[diesel(table_name = ..)]` on the
//! struct, `column_name`, `select_expression` (and `select_expression_type`) on fields, and
//! the options that read a field through a Rust conversion.

use proc_macro2::Span;
use quote::format_ident;
use syn::spanned::Spanned as _;
use syn::{Attribute, DeriveInput, Ident, Path};

use crate::case::snake_case;
use crate::errors::Errors;
use crate::model::SelectExpression;

/// `#[diesel(table_name = path)]`, or Diesel's default: the struct name in snake case plus `s`.
pub(super) fn table_name(input: &DeriveInput, errors: &mut Errors) -> Path {
    let mut found: Option<Path> = None;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("diesel")) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("table_name") {
                found = Some(meta.value()?.parse()?);
            } else {
                skip_meta_value(&meta)?;
            }
            Ok(())
        });
        if let Err(e) = result {
            errors.push(e);
        }
    }
    found.unwrap_or_else(|| {
        let name = snake_case(&input.ident.to_string()) + "s";
        Path::from(format_ident!("{}", name, span = input.ident.span()))
    })
}

/// Diesel field options that read a key field through something the seek cannot compare:
/// a conversion in Rust (`deserialize_as`, `serialize_as`) or a nested model (`embed`).
/// `select_expression_type` alone (without `select_expression`) is one too.
const EXPRESSION_OPTIONS: &[&str] = &["deserialize_as", "serialize_as", "embed"];

/// `#[diesel(column_name = ident)]` on a field, its `select_expression` (with
/// `select_expression_type`, if given), and the options of [`EXPRESSION_OPTIONS`] it carries
/// (with their spans).
#[allow(clippy::type_complexity)]
pub(super) fn column_name(
    attrs: &[Attribute],
    errors: &mut Errors,
) -> (
    Option<Ident>,
    Option<SelectExpression>,
    Vec<(String, proc_macro2::Span)>,
) {
    let mut found = None;
    let mut expression_options = Vec::new();
    let mut expr: Option<syn::Expr> = None;
    let mut expr_type: Option<(syn::Type, Span)> = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("diesel")) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("column_name") {
                let value = meta.value()?;
                if value.peek(syn::LitStr) {
                    let lit: syn::LitStr = value.parse()?;
                    found = Some(Ident::new(&lit.value(), lit.span()));
                } else {
                    found = Some(value.call(Ident::parse_any_ident)?);
                }
            } else if meta.path.is_ident("select_expression") {
                expr = Some(meta.value()?.parse()?);
            } else if meta.path.is_ident("select_expression_type") {
                let span = meta.path.span();
                expr_type = Some((meta.value()?.parse()?, span));
            } else {
                if let Some(option) = EXPRESSION_OPTIONS.iter().find(|o| meta.path.is_ident(o)) {
                    expression_options.push((option.to_string(), meta.path.span()));
                }
                skip_meta_value(&meta)?;
            }
            Ok(())
        });
        if let Err(e) = result {
            errors.push(e);
        }
    }
    let expression = match (expr, expr_type) {
        (Some(expr), ty) => Some(SelectExpression {
            expr,
            ty: ty.map(|(t, _)| t),
        }),
        (None, Some((_, span))) => {
            expression_options.push(("select_expression_type".to_string(), span));
            None
        }
        (None, None) => None,
    };
    (found, expression, expression_options)
}

/// Diesel's own options we do not read (`check_for_backend(..)`, `embed`,
/// `select_expression = ..`, `select_expression_type = ..`, ...): skipped token by token up to
/// the next top-level comma, whether the value is an expression or a type.
pub(super) fn skip_meta_value(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        let value = meta.value()?;
        let mut angle_depth = 0usize;
        let at_top_level_comma =
            |v: syn::parse::ParseStream<'_>, depth: usize| depth == 0 && v.peek(syn::Token![,]);
        while !value.is_empty() && !at_top_level_comma(value, angle_depth) {
            match value.parse::<proc_macro2::TokenTree>()? {
                proc_macro2::TokenTree::Punct(p) if p.as_char() == '<' => angle_depth += 1,
                proc_macro2::TokenTree::Punct(p) if p.as_char() == '>' => {
                    angle_depth = angle_depth.saturating_sub(1)
                }
                _ => {}
            }
        }
    } else if meta.input.peek(syn::token::Paren) {
        let _content;
        syn::parenthesized!(_content in meta.input);
        let _: proc_macro2::TokenStream = _content.parse()?;
    }
    Ok(())
}

trait ParseAnyIdent {
    fn parse_any_ident(input: syn::parse::ParseStream<'_>) -> syn::Result<Ident>;
}

impl ParseAnyIdent for Ident {
    fn parse_any_ident(input: syn::parse::ParseStream<'_>) -> syn::Result<Ident> {
        syn::ext::IdentExt::parse_any(input)
    }
}
