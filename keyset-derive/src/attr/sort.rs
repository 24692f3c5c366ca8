//! A named sort on the struct, `#[keyset(sort(Name(field(options), ..)))]`: its name and its key
//! columns, each a field of the struct with a field's options.

use proc_macro2::Span;
use quote::{quote, ToTokens};
use syn::spanned::Spanned as _;
use syn::Ident;

use super::diesel::skip_meta_value;
use super::field::{key_option, needs_direction_example};
use super::struct_::{index_value, StructAttrs};
use super::words::{SORT_EXAMPLE, SORT_INDEX_EXAMPLE};
use crate::case::upper_camel;
use crate::errors::{Errors, Mark};
use crate::model::{KeyField, NamedSort, Spanned};

impl StructAttrs<'_> {
    /// `sort(Name(field(options), ..), ..)`: named sorts, each its name with its key columns in
    /// key order in parentheses, each column a field of the struct with the options a field's
    /// `#[keyset(..)]` takes. (The columns sit inside the name so that two sorts sharing a
    /// column and option, `created(desc)`, are not the same attribute path to clippy's
    /// `duplicated_attributes`.)
    pub(super) fn sort(
        &mut self,
        meta: &syn::meta::ParseNestedMeta<'_>,
        span: Span,
        errors: &mut Errors,
    ) -> syn::Result<()> {
        if !meta.input.peek(syn::token::Paren) {
            skip_meta_value(meta)?;
            errors.push(syn::Error::new(
                span,
                format!(
                    "`sort` takes named sorts in parentheses, each its name and its key \
                     columns, e.g. {SORT_EXAMPLE}"
                ),
            ));
            return Ok(());
        }
        if !self.named {
            skip_meta_value(meta)?;
            errors.push(syn::Error::new(
                span,
                "a named sort lists its key columns by field name: give the struct named \
                 fields, or mark the columns of a tuple struct with #[keyset(..)] on its fields",
            ));
            return Ok(());
        }
        if empty_parens(meta.input)? {
            skip_meta_value(meta)?;
            errors.push(syn::Error::new(
                span,
                format!("`sort()` declares no sort: write e.g. {SORT_EXAMPLE}"),
            ));
            return Ok(());
        }
        // After a sort written without parentheses the rest of the list is not sorts (the
        // columns of that sort, most likely): one error, not one per word.
        let mut broken = false;
        meta.parse_nested_meta(|entry| {
            let entry_span = entry.path.span();
            if broken {
                return skip_meta_value(&entry);
            }
            let Some(name) = entry.path.get_ident().cloned() else {
                skip_meta_value(&entry)?;
                errors.push(syn::Error::new(
                    entry_span,
                    format!("a named sort's name is one word, e.g. {SORT_EXAMPLE}"),
                ));
                return Ok(());
            };
            if !entry.input.peek(syn::token::Paren) {
                skip_meta_value(&entry)?;
                broken = true;
                errors.push(syn::Error::new(
                    entry_span,
                    format!(
                        "sort `{name}` needs its key columns in parentheses after its name, \
                         in key order, the last one the unique tie-breaker, e.g. {SORT_EXAMPLE}"
                    ),
                ));
                return Ok(());
            }
            let mut keys: Vec<KeyField> = Vec::new();
            let mut index = None;
            if empty_parens(entry.input)? {
                skip_meta_value(&entry)?;
            } else {
                entry.parse_nested_meta(|column| {
                    // `index = ".."` among the columns (a field named `index` is a column:
                    // it has parentheses, not `=`).
                    let is_field = self.fields.iter().any(|f| f.name == "index");
                    if column.path.is_ident("index")
                        && (column.input.peek(syn::Token![=]) || !is_field)
                    {
                        let span = column.path.span();
                        return index_value(&column, span, &mut index, SORT_INDEX_EXAMPLE, errors);
                    }
                    self.sort_column(&column, &mut keys, errors)
                })?;
            }
            self.push_sort(name, keys, index, errors);
            Ok(())
        })
    }

    /// One key column of a named sort, `field(options)`, added to `keys`.
    fn sort_column(
        &self,
        column: &syn::meta::ParseNestedMeta<'_>,
        keys: &mut Vec<KeyField>,
        errors: &mut Errors,
    ) -> syn::Result<()> {
        let column_span = column.path.span();
        let field = column
            .path
            .get_ident()
            .and_then(|ident| self.fields.iter().find(|f| ident == f.name.as_str()));
        let Some(field) = field else {
            skip_meta_value(column)?;
            let names: Vec<String> = self
                .fields
                .iter()
                .map(|f| format!("`{}`", f.name))
                .collect();
            errors.push(syn::Error::new(
                column_span,
                format!(
                    "`{}` is not a field of `{}`: a named sort's key columns are its fields ({}), \
                     each with its options, e.g. `id(desc)`",
                    column.path.to_token_stream(),
                    self.model,
                    names.join(", ")
                ),
            ));
            return Ok(());
        };
        let ident = &field.name;
        if !column.input.peek(syn::token::Paren) {
            skip_meta_value(column)?;
            errors.push(syn::Error::new(
                column_span,
                format!(
                    "key column `{ident}` needs a direction: write `{ident}(asc)` or \
                     `{ident}(desc)`"
                ),
            ));
            return Ok(());
        }
        let group: proc_macro2::TokenTree = column.input.fork().parse()?;
        let path = &column.path;
        let site = quote!(#path #group);
        if let Some(first) = keys.iter().find(|k| k.field.name == field.name) {
            skip_meta_value(column)?;
            let mut e = syn::Error::new(
                column_span,
                format!(
                    "field `{ident}` is listed twice in this sort: a key column decides the \
                     order once, remove the second"
                ),
            );
            e.combine(first.attr_error("the first is here"));
            errors.push(e);
            return Ok(());
        }
        let mut key = KeyField {
            field: field.clone(),
            direction: None,
            nulls: None,
            unique: None,
            exact_text: None,
            site,
            mark: Mark::default(),
        };
        let mut unknown = false;
        column.parse_nested_meta(|option| {
            key_option(&option, &mut key, &mut unknown, errors);
            Ok(())
        })?;
        if key.direction.is_none() && !unknown {
            errors.push(key.attr_error(format!(
                "key column `{ident}` needs a direction: write `{ident}(asc)` or `{ident}({})`",
                needs_direction_example(&key, "desc").join(", ")
            )));
        }
        keys.push(key);
        Ok(())
    }

    /// A parsed named sort, unless its name is taken; an error for a sort without columns.
    fn push_sort(
        &mut self,
        name: Ident,
        keys: Vec<KeyField>,
        index: Option<Spanned<String>>,
        errors: &mut Errors,
    ) {
        let text = name.to_string();
        if !text.starts_with(|c: char| c.is_ascii_uppercase()) || text.contains('_') {
            errors.push(syn::Error::new(
                name.span(),
                format!(
                    "sort `{text}`: a sort's name is a variant of `{}Sort` and part of the type \
                     `{}By<Name>`, so write it in UpperCamelCase (e.g. `{}`); requests name it \
                     in snake case",
                    self.model,
                    self.model,
                    upper_camel(&text)
                ),
            ));
            return;
        }
        self.sorts.push(NamedSort {
            name,
            keys,
            index,
            mark: errors.mark(),
        });
    }
}

/// Whether `input` starts with `()`: `parse_nested_meta` refuses an empty list.
fn empty_parens(input: syn::parse::ParseStream<'_>) -> syn::Result<bool> {
    let group: proc_macro2::TokenTree = input.fork().parse()?;
    Ok(matches!(group, proc_macro2::TokenTree::Group(g) if g.stream().is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attr::tests::messages;
    use crate::case::snake_case;
    use crate::model::{NullsOrder, SortDirection};

    /// A named sort's columns are the fields it lists, in its order, with their options; the
    /// model's own keyset is its marked fields.
    #[test]
    fn named_sorts_are_read_from_the_struct_in_their_own_order() {
        let (model, errors) = messages(syn::parse_quote! {
            #[keyset(sort(Top(likes(desc), title(nulls_first, asc), id(desc, unique))))]
            #[keyset(version = 2, sort(MostRecent(created(desc), id(desc))))]
            struct Post {
                #[keyset(asc)]
                id: i64,
                created: i32,
                title: Option<String>,
                likes: i32,
            }
        });
        assert!(errors.is_empty(), "{errors:?}");
        let model = model.expect("a struct");
        assert_eq!(model.keys.len(), 1);
        assert_eq!(model.version.map(|v| v.value), Some(2));
        /// A key column: field, direction, NULL placement, `unique`.
        type Column = (String, Option<SortDirection>, Option<NullsOrder>, bool);
        let sorts: Vec<(String, Vec<Column>)> = model
            .sorts
            .iter()
            .map(|s| {
                let keys = s
                    .keys
                    .iter()
                    .map(|k| {
                        (
                            k.field.name.clone(),
                            k.direction.map(|d| d.value),
                            k.nulls.map(|n| n.value),
                            k.unique.is_some(),
                        )
                    })
                    .collect();
                (s.name.to_string(), keys)
            })
            .collect();
        use {NullsOrder::First, SortDirection::*};
        assert_eq!(
            sorts,
            [
                (
                    "Top".to_string(),
                    vec![
                        ("likes".to_string(), Some(Desc), None, false),
                        ("title".to_string(), Some(Asc), Some(First), false),
                        ("id".to_string(), Some(Desc), None, true),
                    ]
                ),
                (
                    "MostRecent".to_string(),
                    vec![
                        ("created".to_string(), Some(Desc), None, false),
                        ("id".to_string(), Some(Desc), None, false),
                    ]
                ),
            ]
        );
        assert_eq!(model.sort_row(&model.sorts[1]), "PostByMostRecent");
        let (by, errors) = messages(syn::parse_quote! {
            #[keyset(sort(ByAction(likes(desc), id(desc))), sort(Bypass(id(asc))))]
            struct Post {
                #[keyset(asc)]
                id: i64,
                likes: i32,
            }
        });
        assert!(errors.is_empty(), "{errors:?}");
        let by = by.expect("a struct");
        assert_eq!(by.sort_row(&by.sorts[0]), "PostByAction", "no ByBy");
        assert_eq!(by.sort_row(&by.sorts[1]), "PostByBypass");
        assert_eq!(model.sort_enum(), "PostSort");
        assert_eq!(snake_case("MostRecent"), "most_recent");
        assert_eq!(upper_camel("most_recent"), "MostRecent");
    }

    /// A tuple struct cannot name its fields in a sort; a model with only named sorts needs
    /// no field marked.
    #[test]
    fn named_sorts_need_named_fields_and_stand_alone() {
        let (_, errors) = messages(syn::parse_quote! {
            #[keyset(sort(Top(id(desc))))]
            struct Post(#[diesel(column_name = id)] i64);
        });
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].contains("give the struct named fields"),
            "{errors:?}"
        );
        let (model, errors) = messages(syn::parse_quote! {
            #[keyset(sort(Top(id(desc))))]
            struct Post {
                id: i64,
            }
        });
        assert!(errors.is_empty(), "{errors:?}");
        assert!(model.expect("a struct").keys.is_empty());
    }
}
