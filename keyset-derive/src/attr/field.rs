//! A key column's options, `#[keyset(asc, unique)]` on a field or `field(desc, nulls_last)` in
//! a named sort: each set once, a repeated or conflicting word an error on that word.

use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned as _;
use syn::{Attribute, Ident};

use super::diesel::skip_meta_value;
use super::words::{closest, INDEX_EXAMPLE, OPTIONS, SORT_INDEX_EXAMPLE};
use crate::errors::{Errors, Mark};
use crate::model::{Field, KeyField, NullsOrder, SortDirection, Spanned};

pub(super) fn key_options(attr: &Attribute, field: Field, errors: &mut Errors) -> KeyField {
    let mut key = KeyField {
        field,
        direction: None,
        nulls: None,
        unique: None,
        exact_text: None,
        site: attr.to_token_stream(),
        mark: Mark::default(),
    };
    if let syn::Meta::Path(_) = attr.meta {
        errors.push(syn::Error::new_spanned(
            attr,
            "#[keyset] needs a direction: write #[keyset(asc)] or #[keyset(desc)]",
        ));
        return key;
    }
    // An unknown option may be a misspelt direction: then "needs a direction" would only
    // repeat that error.
    let mut unknown = false;
    let result = attr.parse_nested_meta(|meta| {
        key_option(&meta, &mut key, &mut unknown, errors);
        Ok(())
    });
    if let Err(e) = result {
        errors.push(e);
    }
    if key.direction.is_none() && !unknown {
        errors.push(syn::Error::new_spanned(
            attr,
            format!(
                "key column `{}` needs a direction: add `asc` or `desc`, e.g. #[keyset({})]",
                key.field.name,
                needs_direction_example(&key, "asc").join(", ")
            ),
        ));
    }
    key
}

/// The options already written on a key column without a direction, after `direction`:
/// `unique` -> `asc, unique`, so the example in the message keeps them.
pub(super) fn needs_direction_example(
    key: &KeyField,
    direction: &'static str,
) -> Vec<&'static str> {
    let mut example = vec![direction];
    if key.unique.is_some() {
        example.push("unique");
    }
    match key.nulls.map(|n| n.value) {
        Some(NullsOrder::First) => example.push("nulls_first"),
        Some(NullsOrder::Last) => example.push("nulls_last"),
        None => {}
    }
    example
}

/// One option of a key column (a word of a field's `#[keyset(..)]`, or of a named sort's
/// `field(..)`), set on `key`; a mistake is pushed to `errors` (not returned, which would stop
/// at the first mistake of the attribute). `unknown` is set for a word that is no option.
pub(super) fn key_option(
    meta: &syn::meta::ParseNestedMeta<'_>,
    key: &mut KeyField,
    unknown: &mut bool,
    errors: &mut Errors,
) {
    let span = meta.path.span();
    let word = meta
        .path
        .get_ident()
        .map(Ident::to_string)
        .unwrap_or_default();
    if word == "version" {
        if let Err(e) = skip_meta_value(meta) {
            errors.push(e);
        }
        errors.push(syn::Error::new(
            span,
            "`version` is an option of the whole keyset, not of a column: move it to an \
             attribute on the struct, e.g. #[keyset(version = 2)] above `struct ..`",
        ));
        return;
    }
    if word == "index" {
        if let Err(e) = skip_meta_value(meta) {
            errors.push(e);
        }
        errors.push(syn::Error::new(
            span,
            format!(
                "`index` names the index of the whole keyset, not an option of a column: for \
                 the model's own keyset write {INDEX_EXAMPLE} on the struct; for a named sort, \
                 next to its columns: {SORT_INDEX_EXAMPLE}"
            ),
        ));
        return;
    }
    if meta.input.peek(syn::Token![=]) || meta.input.peek(syn::token::Paren) {
        let given = meta.path.to_token_stream();
        if let Err(e) = skip_meta_value(meta) {
            errors.push(e);
        }
        errors.push(syn::Error::new(
            span,
            format!(
                "`{given}` takes no value: write it as a bare word, e.g. #[keyset(asc, unique)]"
            ),
        ));
        return;
    }
    use {NullsOrder::*, SortDirection::*};
    let set = match word.as_str() {
        "asc" => set_once(&mut key.direction, Asc, &word, span, TWO_DIRECTIONS),
        "desc" => set_once(&mut key.direction, Desc, &word, span, TWO_DIRECTIONS),
        "nulls_first" => set_once(&mut key.nulls, First, &word, span, TWO_NULLS),
        "nulls_last" => set_once(&mut key.nulls, Last, &word, span, TWO_NULLS),
        // A flag has one value (`()`), so it can be repeated but never contradicted.
        "unique" => set_once(&mut key.unique, (), &word, span, "unreachable"),
        "exact_text" => set_once(&mut key.exact_text, (), &word, span, "unreachable"),
        _ => {
            *unknown = true;
            let given = meta.path.to_token_stream().to_string();
            let hint = match closest(&given) {
                Some(best) => format!("did you mean `{best}`? "),
                None => String::new(),
            };
            Err(syn::Error::new(
                span,
                format!(
                    "unknown keyset option `{given}`: {hint}valid options are {}",
                    OPTIONS.join(", ")
                ),
            ))
        }
    };
    if let Err(e) = set {
        errors.push(e);
    }
}

/// `asc` and `desc` on one key column.
const TWO_DIRECTIONS: &str =
    "conflicting directions: a key column is either `asc` or `desc`, keep one";
/// `nulls_first` and `nulls_last` on one key column.
const TWO_NULLS: &str = "conflicting NULL placements: keep one of `nulls_first` or `nulls_last`";

/// The one rule for an option of a key column, like serde's `Attr::set`: the first word sets
/// `slot`; the same value again is "`word` is given twice", another value for the same slot is
/// `conflict`. Either error points at the later word; the first value stays.
fn set_once<T: Copy + PartialEq>(
    slot: &mut Option<Spanned<T>>,
    value: T,
    word: &str,
    span: Span,
    conflict: &str,
) -> syn::Result<()> {
    match slot {
        None => {
            *slot = Some(Spanned { value, span });
            Ok(())
        }
        Some(first) if first.value == value => Err(syn::Error::new(
            span,
            format!("`{word}` is given twice: remove one"),
        )),
        Some(_) => Err(syn::Error::new(span, conflict)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attr::tests::messages;

    #[test]
    fn an_option_given_again_is_repeated_or_conflicting_and_the_first_stays() {
        let (model, messages) = messages(syn::parse_quote! {
            struct Track {
                #[keyset(desc, asc, desc, nulls_last, nulls_first, nulls_last, unique, unique)]
                id: i64,
            }
        });
        assert_eq!(
            messages,
            [
                TWO_DIRECTIONS,
                "`desc` is given twice: remove one",
                TWO_NULLS,
                "`nulls_last` is given twice: remove one",
                "`unique` is given twice: remove one",
            ]
        );
        let key = &model.expect("a struct").keys[0];
        assert_eq!(key.direction.map(|d| d.value), Some(SortDirection::Desc));
        assert_eq!(key.nulls.map(|n| n.value), Some(NullsOrder::Last));
        assert!(key.unique.is_some());
    }

    #[test]
    fn options_given_once_are_no_error() {
        let (model, messages) = messages(syn::parse_quote! {
            struct Track {
                #[keyset(nulls_first, asc)]
                composer: Option<String>,
                #[keyset(unique, desc)]
                id: i64,
            }
        });
        assert!(messages.is_empty(), "{messages:?}");
        let keys = model.expect("a struct").keys;
        assert_eq!(keys[0].direction.map(|d| d.value), Some(SortDirection::Asc));
        assert_eq!(keys[0].nulls.map(|n| n.value), Some(NullsOrder::First));
        assert_eq!(
            keys[1].direction.map(|d| d.value),
            Some(SortDirection::Desc)
        );
        assert!(keys[1].unique.is_some() && keys[0].unique.is_none());
    }
}
