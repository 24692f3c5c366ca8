//! Checks a parsed [`Model`] can describe a correct keyset. Everything that needs Diesel's type
//! information (primary key, nullability, SQL types) is checked by the compiler through the
//! check functions `expand` writes; this module checks the rest.

use crate::errors::Errors;
use crate::model::{KeyField, Model};

pub fn model(model: &Model, errors: &mut Errors) {
    if model.keys.is_empty() && model.sorts.is_empty() {
        errors.push(syn::Error::new(
            model.ident.span(),
            format!(
                "`{}` has no key column: mark its sort columns in order with #[keyset(asc)] or \
                 #[keyset(desc)], the last one the unique tie-breaker, e.g. \
                 #[keyset(asc, unique)] on the primary key (or declare named sorts on the \
                 struct, e.g. #[keyset(sort(Newest(created_at(desc), id(desc))))])",
                model.ident
            ),
        ));
        return;
    }
    keys(&model.keys, errors);
    for sort in &model.sorts {
        keys(&sort.keys, errors);
    }
}

/// The rules of one keyset's columns (the model's own, or a named sort's) that need no type
/// information: `unique` only on the last, the tie-breaker NOT NULL, at most 12 columns.
fn keys(keys: &[KeyField], errors: &mut Errors) {
    let Some(last) = keys.len().checked_sub(1) else {
        return;
    };

    for (i, key) in keys.iter().enumerate() {
        if let (Some(unique), true) = (key.unique, i < last) {
            let after: Vec<String> = keys[i + 1..]
                .iter()
                .map(|k| format!("`{}`", k.field.name))
                .collect();
            errors.push(syn::Error::new(
                unique.span,
                format!(
                    "`unique` marks the tie-breaker, which must be the last key column: the key \
                     columns after `{}` ({}) can never change the order; remove them or move \
                     `{}` last",
                    key.field.name,
                    after.join(", "),
                    key.field.name
                ),
            ));
        }
    }
    if let Some(nulls) = keys[last].nulls {
        errors.push(syn::Error::new(
            nulls.span,
            format!(
                "the tie-breaker `{}` must be NOT NULL (a unique column may hold many NULLs, so \
                 NULL cannot name one row): make the last key column a NOT NULL unique column, \
                 usually the primary key",
                keys[last].field.name
            ),
        ));
    }
    if keys.len() > 12 {
        errors.push(keys[12].attr_error(format!(
            "a keyset has at most 12 columns (its key is a tuple of at most 12 values), this one \
             has {}: keep at most 11 sort columns, the ones that decide the order, and the \
             unique tie-breaker last",
            keys.len()
        )));
    }
}
