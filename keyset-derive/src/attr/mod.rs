//! The attributes of a `#[derive(Keyset)]` model read into a [`Model`], accumulating every
//! mistake: the struct's `#[keyset(..)]` (`struct_.rs`, named sorts in `sort.rs`), each field's
//! (`field.rs`), and Diesel's own attributes (`diesel.rs`). Rules that compare several parts
//! of the model are `check.rs`'s.

use quote::quote;
use syn::spanned::Spanned as _;
use syn::{Data, DeriveInput, Fields};

use crate::errors::Errors;
use crate::model::{Field, KeyField, Model};

mod diesel;
mod field;
mod sort;
mod struct_;
mod words;

pub use self::words::{SORT_EXAMPLE, SORT_INDEX_EXAMPLE};

/// Reads the model; `None` for an item that is not a struct.
pub fn model(input: &DeriveInput, errors: &mut Errors) -> Option<Model> {
    if !input.generics.params.is_empty() {
        errors.push(syn::Error::new(
            input.generics.span(),
            "#[derive(Keyset)] does not support generic structs: derive it on a concrete model",
        ));
    }
    let fields = match &input.data {
        Data::Struct(s) => &s.fields,
        _ => {
            errors.push(syn::Error::new(
                input.ident.span(),
                "#[derive(Keyset)] works on structs (a Diesel model), not enums or unions",
            ));
            return None;
        }
    };
    let table = diesel::table_name(input, errors);

    // The fields are read first (a named sort on the struct names them), but their mistakes
    // are reported after the struct's, in source order.
    let mut field_errors = Errors::default();
    let mut keys = Vec::new();
    let mut all_fields = Vec::new();
    let named = matches!(fields, Fields::Named(_));
    for (index, f) in fields.iter().enumerate() {
        let (column, expression, refused) = diesel::column_name(&f.attrs, &mut field_errors);
        let (member, name) = match &f.ident {
            Some(ident) => (quote!(#ident), ident.to_string()),
            None => {
                let idx = syn::Index::from(index);
                (quote!(#idx), index.to_string())
            }
        };
        let column = column.or_else(|| f.ident.clone());
        let field = Field {
            member,
            name,
            ty: f.ty.clone(),
            column,
            expression,
            refused,
            span: f.ident.as_ref().map_or_else(|| f.ty.span(), |i| i.span()),
        };
        let mut key: Option<KeyField> = None;
        for attr in f.attrs.iter().filter(|a| a.path().is_ident("keyset")) {
            if let Some(first) = &key {
                let mut e = syn::Error::new_spanned(
                    attr,
                    format!(
                        "field `{}` has two #[keyset(..)] attributes: write all its options in \
                         one, e.g. #[keyset(asc, unique)]",
                        field.name
                    ),
                );
                e.combine(first.attr_error("the first #[keyset(..)] of this field is here"));
                field_errors.push(e);
                continue;
            }
            key = Some(field::key_options(attr, field.clone(), &mut field_errors));
        }
        if let Some(mut k) = key {
            k.mark = field_errors.mark();
            keys.push(k);
        }
        all_fields.push(field);
    }

    let mut struct_attrs = struct_::StructAttrs {
        model: &input.ident,
        fields: &all_fields,
        named,
        version: None,
        index: None,
        sorts: Vec::new(),
        graphql_sort: None,
    };
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("keyset")) {
        struct_attrs.read(attr, errors);
    }
    let struct_::StructAttrs {
        version,
        index,
        sorts,
        graphql_sort,
        ..
    } = struct_attrs;
    if let (Some(span), true) = (graphql_sort, sorts.is_empty()) {
        errors.push(syn::Error::new(
            span,
            "`graphql_sort` makes the named sorts' enum a GraphQL enum, and this model has no \
             named sort: declare them, e.g. #[keyset(sort(Newest(created_at(desc), id(desc))), \
             graphql_sort)], or drop `graphql_sort`",
        ));
    }
    // The fields' errors come after the struct's: their marks move past the struct's errors.
    let struct_errors = errors.len();
    errors.append(field_errors);
    for k in &mut keys {
        k.mark = k.mark.after(struct_errors);
    }
    Some(Model {
        ident: input.ident.clone(),
        vis: input.vis.clone(),
        table,
        keys,
        version,
        index,
        sorts,
        graphql_sort: graphql_sort.is_some(),
        named,
        end: errors.mark(),
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The model `input` reads into, and the messages of its reading errors, in order.
    pub(crate) fn messages(input: DeriveInput) -> (Option<Model>, Vec<String>) {
        let mut errors = Errors::default();
        let model = model(&input, &mut errors);
        let messages = errors
            .into_error()
            .map(|e| e.into_iter().map(|e| e.to_string()).collect())
            .unwrap_or_default();
        (model, messages)
    }
}
