//! Checks a parsed [`Model`] can describe a correct keyset. Everything that needs Diesel's type
//! information (primary key, nullability, SQL types) is checked by the compiler through the
//! check functions `expand` writes; this module checks the rest.

use crate::errors::Errors;
use crate::model::Model;

pub fn model(model: &Model, errors: &mut Errors) {
    if model.keys.is_empty() {
        errors.push(syn::Error::new(
            model.ident.span(),
            format!(
                "`{}` has no key column: mark its sort columns in order with #[keyset(asc)] or \
                 #[keyset(desc)], the last one the unique tie-breaker, e.g. \
                 #[keyset(asc, unique)] on the primary key",
                model.ident
            ),
        ));
        return;
    }
    let last = model.keys.len() - 1;
    for (i, key) in model.keys.iter().enumerate() {
        if let (Some(unique), true) = (key.unique, i < last) {
            let after: Vec<String> = model.keys[i + 1..]
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
    if let Some(nulls) = model.keys[last].nulls {
        errors.push(syn::Error::new(
            nulls.span,
            format!(
                "the tie-breaker `{}` must be NOT NULL (a unique column may hold many NULLs, so \
                 NULL cannot name one row): make the last key column a NOT NULL unique column, \
                 usually the primary key",
                model.keys[last].field.name
            ),
        ));
    }
    if model.keys.len() > 12 {
        errors.push(model.keys[12].attr_error(format!(
            "a keyset has at most 12 columns (its key is a tuple of at most 12 values), this one \
             has {}: keep at most 11 sort columns, the ones that decide the order, and the \
             unique tie-breaker last",
            model.keys.len()
        )));
    }
}
