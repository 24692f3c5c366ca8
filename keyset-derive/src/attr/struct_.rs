//! The struct's `#[keyset(..)]`: the ordering version, the declared index and named sorts (the
//! sorts' own reading is `sort.rs`'s).

use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned as _;
use syn::{Attribute, Ident};

use super::diesel::skip_meta_value;
use super::words::{INDEX_EXAMPLE, OPTIONS};
use crate::errors::Errors;
use crate::model::{Field, NamedSort, Spanned};

/// What `#[keyset(..)]` attributes on the struct declare: the ordering version and the named
/// sorts, read against the struct's fields.
pub(super) struct StructAttrs<'a> {
    pub model: &'a Ident,
    pub fields: &'a [Field],
    /// Whether the struct has named fields (a named sort names its columns by field).
    pub named: bool,
    pub version: Option<Spanned<u32>>,
    pub index: Option<Spanned<String>>,
    pub sorts: Vec<NamedSort>,
    /// `graphql_sort`: the named sorts' enum is also a GraphQL enum.
    pub graphql_sort: Option<Span>,
}

impl StructAttrs<'_> {
    /// One `#[keyset(..)]` on the struct: `version = N` and `sort(..)` entries. Every
    /// mistake is pushed to `errors`.
    pub(super) fn read(&mut self, attr: &Attribute, errors: &mut Errors) {
        if !matches!(attr.meta, syn::Meta::List(_)) {
            errors.push(syn::Error::new_spanned(
                attr,
                "#[keyset] on the struct takes the ordering version, the index the pages \
                 read or a named sort, e.g. #[keyset(version = 2)], \
                 #[keyset(index = \"events_feed\")] or \
                 #[keyset(sort(Newest(created_at(desc), id(desc))))]; \
                 the key columns of the model itself are marked on fields with #[keyset(asc)] \
                 or #[keyset(desc)]",
            ));
            return;
        }
        let result = attr.parse_nested_meta(|meta| {
            let span = meta.path.span();
            let word = meta.path.to_token_stream().to_string();
            match word.as_str() {
                "version" => self.version(&meta, span, errors),
                "index" => index_value(&meta, span, &mut self.index, INDEX_EXAMPLE, errors),
                "sort" => self.sort(&meta, span, errors),
                "graphql_sort" => {
                    if meta.input.peek(syn::Token![=]) || meta.input.peek(syn::token::Paren) {
                        skip_meta_value(&meta)?;
                        errors.push(syn::Error::new(
                            span,
                            "`graphql_sort` takes no value: write #[keyset(graphql_sort)] (the \
                             named sorts' enum also derives `async_graphql::Enum`)",
                        ));
                    } else {
                        self.graphql_sort = Some(span);
                    }
                    Ok(())
                }
                _ => {
                    skip_meta_value(&meta)?;
                    let message = if OPTIONS.contains(&word.as_str()) {
                        format!(
                            "`{word}` goes on a field, not on the struct: put #[keyset(asc)] (or \
                             `desc`) on each sort column of `{}`, in order, and `unique` on the \
                             tie-breaker, or list the columns of a named sort, e.g. \
                             #[keyset(sort(Newest(created_at(desc), id(desc))))]",
                            self.model
                        )
                    } else {
                        format!(
                            "unknown keyset option `{word}` on the struct: the struct takes the \
                             ordering version, e.g. #[keyset(version = 2)], the index the \
                             pages read, e.g. #[keyset(index = \"events_feed\")], named \
                             sorts, e.g. \
                             #[keyset(sort(Newest(created_at(desc), id(desc))))], and \
                             `graphql_sort` (their enum as a GraphQL enum); column options \
                             ({}) go on fields",
                            OPTIONS.join(", ")
                        )
                    };
                    errors.push(syn::Error::new(span, message));
                    Ok(())
                }
            }
        });
        if let Err(e) = result {
            errors.push(e);
        }
    }

    /// `version = N`: a valid value sets the version once.
    fn version(
        &mut self,
        meta: &syn::meta::ParseNestedMeta<'_>,
        span: Span,
        errors: &mut Errors,
    ) -> syn::Result<()> {
        if !meta.input.peek(syn::Token![=]) {
            skip_meta_value(meta)?;
            errors.push(syn::Error::new(
                span,
                "`version` needs a value: write #[keyset(version = 2)] (a positive integer, \
                 raised whenever the order changes in a way the columns do not show)",
            ));
            return Ok(());
        }
        let expr: syn::Expr = meta.value()?.parse()?;
        match version_value(&expr) {
            Ok(value) => match &self.version {
                None => self.version = Some(Spanned { value, span }),
                Some(first) => {
                    let mut e = syn::Error::new(
                        expr.span(),
                        format!(
                            "`version` is given twice: keep one, e.g. #[keyset(version = {})]",
                            first.value.max(value)
                        ),
                    );
                    e.combine(syn::Error::new(first.span, "the first `version` is here"));
                    errors.push(e);
                }
            },
            Err(e) => errors.push(e),
        }
        Ok(())
    }
}

/// `index = "name"` (on the struct, or among a named sort's columns): a string literal naming
/// an index, set once in `slot`. `example` is the attribute as it should be written.
pub(super) fn index_value(
    meta: &syn::meta::ParseNestedMeta<'_>,
    span: Span,
    slot: &mut Option<Spanned<String>>,
    example: &str,
    errors: &mut Errors,
) -> syn::Result<()> {
    const WHAT: &str = "the index the pages read: the one on your equality filters, then the \
                        key columns in keyset order and direction";
    if !meta.input.peek(syn::Token![=]) {
        skip_meta_value(meta)?;
        errors.push(syn::Error::new(
            span,
            format!("`index` needs the index's name: write {example} ({WHAT})"),
        ));
        return Ok(());
    }
    let expr: syn::Expr = meta.value()?.parse()?;
    let name = match &expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(text),
            ..
        }) => text.value(),
        _ => {
            errors.push(syn::Error::new(
                expr.span(),
                format!("`index` takes the index's name as a string literal: write {example}"),
            ));
            return Ok(());
        }
    };
    if !name.trim().is_empty() && name.trim() != name {
        errors.push(syn::Error::new(
            expr.span(),
            format!(
                "`index = {name:?}` has spaces around the name, which the SQL would keep (an \
                 index of that name does not exist): write index = {:?}",
                name.trim()
            ),
        ));
        return Ok(());
    }
    if name.trim().is_empty() {
        errors.push(syn::Error::new(
            expr.span(),
            format!("`index` names no index: write its name, e.g. {example} ({WHAT})"),
        ));
        return Ok(());
    }
    match slot {
        None => {
            *slot = Some(Spanned {
                value: name,
                span: expr.span(),
            });
        }
        Some(first) => {
            let mut e = syn::Error::new(
                expr.span(),
                format!(
                    "`index` is given twice: a keyset reads one index, keep one, e.g. \
                     index = {:?}",
                    first.value
                ),
            );
            e.combine(syn::Error::new(first.span, "the first `index` is here"));
            errors.push(e);
        }
    }
    Ok(())
}

/// The value of `version = <expr>`: an integer literal from 1 to `u32::MAX`. An error on the
/// value's span otherwise, naming the fix.
fn version_value(expr: &syn::Expr) -> syn::Result<u32> {
    const RULE: &str = "an integer from 1 (the ordering of a model without the attribute), \
                        raised by one whenever the order changes in a way the columns do not \
                        show";
    let lit = match expr {
        syn::Expr::Lit(syn::ExprLit { lit, .. }) => lit,
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            ..
        }) => {
            return Err(syn::Error::new_spanned(
                expr,
                format!(
                    "`version` cannot be negative: write a positive integer such as \
                     #[keyset(version = 2)], {RULE}"
                ),
            ))
        }
        _ => {
            return Err(syn::Error::new_spanned(
                expr,
                format!(
                    "`version` takes an integer literal, not an expression: write e.g. \
                     #[keyset(version = 2)], {RULE}"
                ),
            ))
        }
    };
    let not_integer = |shown: &str| {
        syn::Error::new_spanned(
            lit,
            format!(
                "`version` takes an integer literal, not {shown}: write e.g. \
                 #[keyset(version = 2)], {RULE}"
            ),
        )
    };
    let int = match lit {
        syn::Lit::Int(int) => int,
        syn::Lit::Str(s) => return Err(not_integer(&format!("the string {:?}", s.value()))),
        syn::Lit::Float(_) => return Err(not_integer("a float")),
        _ => return Err(not_integer("this literal")),
    };
    if !matches!(int.suffix(), "" | "u32") {
        return Err(syn::Error::new_spanned(
            int,
            format!(
                "`version` is a u32: drop the `{}` suffix, e.g. #[keyset(version = 2)]",
                int.suffix()
            ),
        ));
    }
    match int.base10_parse::<u32>() {
        Ok(0) => Err(syn::Error::new_spanned(
            int,
            format!(
                "`version = 0` is not an ordering version: versions start at 1, which is a model \
                 without the attribute, so write #[keyset(version = 2)] for the first change \
                 ({RULE})"
            ),
        )),
        Ok(n) => Ok(n),
        Err(_) => Err(syn::Error::new_spanned(
            int,
            format!("`version` must fit in a u32 (at most {}): {RULE}", u32::MAX),
        )),
    }
}

#[cfg(test)]
mod tests {
    use crate::attr::tests::messages;

    #[test]
    fn the_ordering_version_is_read_from_the_struct() {
        let (model, errors) = messages(syn::parse_quote! {
            #[keyset(version = 3)]
            struct Track {
                #[keyset(asc, unique)]
                id: i64,
            }
        });
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(model.expect("a struct").version.map(|v| v.value), Some(3));
        let (model, _) = messages(syn::parse_quote! {
            struct Track {
                #[keyset(asc, unique)]
                id: i64,
            }
        });
        assert!(model.expect("a struct").version.is_none());
    }

    /// Every bad version is an error, all of them (and the model's other mistakes) at once,
    /// and the first valid value stays.
    #[test]
    fn bad_versions_are_each_an_error_with_the_fix() {
        let (model, messages) = messages(syn::parse_quote! {
            #[keyset(version = 0)]
            #[keyset(version = -2, version = "2", version = 2.5, version = 2u8, version = N)]
            #[keyset(version = 4294967296, version, asc, sort = 1)]
            #[keyset(version = 2)]
            #[keyset(version = 5)]
            struct Track {
                #[keyset(asc, unique, version = 1)]
                id: i64,
            }
        });
        let expected = [
            "`version = 0` is not an ordering version",
            "`version` cannot be negative",
            "not the string \"2\"",
            "not a float",
            "drop the `u8` suffix",
            "not an expression",
            "must fit in a u32",
            "`version` needs a value",
            "`asc` goes on a field, not on the struct",
            "`sort` takes named sorts in parentheses",
            "`version` is given twice: keep one, e.g. #[keyset(version = 5)]",
            "the first `version` is here",
            "`version` is an option of the whole keyset, not of a column",
        ];
        assert_eq!(messages.len(), expected.len(), "{messages:#?}");
        for (message, part) in messages.iter().zip(expected) {
            assert!(message.contains(part), "`{part}` in {message}");
        }
        assert_eq!(model.expect("a struct").version.map(|v| v.value), Some(2));
    }
}
