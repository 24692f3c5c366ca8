//! Every rule that compares parts of a read [`Model`]: between fields, between sorts, between
//! the struct's options and its keysets. Everything that needs Diesel's type information
//! (primary key, nullability, SQL types) is checked by the compiler through the check
//! functions `expand` writes; the rules of one attribute alone are checked as it is read
//! (`attr/`). Each error is reported at the mark of the part it concerns (see `errors.rs`).

use std::collections::HashSet;

use crate::attr::{SORT_EXAMPLE, SORT_INDEX_EXAMPLE};
use crate::case::snake_case;
use crate::errors::{Errors, Mark};
use crate::model::{KeyField, Model};

pub fn model(model: &mut Model, errors: &mut Errors) {
    tuple_keys_name_their_columns(model, errors);
    named_sorts_are_distinct_and_have_columns(model, errors);
    struct_index_has_a_keyset(model, errors);
    keys_compare_sql_not_rust(model, errors);
    if model.keys.is_empty() && model.sorts.is_empty() {
        errors.push_at(
            model.end,
            syn::Error::new(
                model.ident.span(),
                format!(
                    "`{}` has no key column: mark its sort columns in order with #[keyset(asc)] \
                     or #[keyset(desc)], the last one the unique tie-breaker, e.g. \
                     #[keyset(asc, unique)] on the primary key (or declare named sorts on the \
                     struct, e.g. {SORT_EXAMPLE})",
                    model.ident
                ),
            ),
        );
        return;
    }
    keys(&model.keys, model.end, errors);
    for sort in &model.sorts {
        keys(&sort.keys, model.end, errors);
    }
}

/// A key field of a tuple struct names its column (a tuple field has no name to take it from).
fn tuple_keys_name_their_columns(model: &Model, errors: &mut Errors) {
    if model.named {
        return;
    }
    for k in &model.keys {
        if k.field.column.is_none() && k.field.expression.is_none() {
            errors.push_at(
                k.mark,
                k.attr_error(
                    "a key field of a tuple struct needs #[diesel(column_name = ..)] to name its \
                     column",
                ),
            );
        }
    }
}

/// Two named sorts never share a name (on the wire, in snake case): the second is reported
/// and dropped. A sort lists at least one column.
fn named_sorts_are_distinct_and_have_columns(model: &mut Model, errors: &mut Errors) {
    let mut kept: Vec<crate::model::NamedSort> = Vec::new();
    for sort in std::mem::take(&mut model.sorts) {
        let wire = snake_case(&sort.name.to_string());
        if let Some(first) = kept
            .iter()
            .find(|s| snake_case(&s.name.to_string()) == wire)
        {
            let mut e = syn::Error::new(
                sort.name.span(),
                format!(
                    "two sorts are named `{wire}`: each named sort needs its own name (a variant \
                     of `{}`)",
                    model.sort_enum()
                ),
            );
            e.combine(syn::Error::new(first.name.span(), "the first is here"));
            errors.push_at(sort.mark, e);
            continue;
        }
        if sort.keys.is_empty() {
            errors.push_at(
                sort.mark,
                syn::Error::new(
                    sort.name.span(),
                    format!(
                        "sort `{}` has no key column: list its columns in order inside its \
                         parentheses, the last one the unique tie-breaker, e.g. {SORT_EXAMPLE}",
                        sort.name
                    ),
                ),
            );
        }
        kept.push(sort);
    }
    model.sorts = kept;
}

/// `index` on the struct names the model's own keyset's index: a model with only named sorts
/// has none to name.
fn struct_index_has_a_keyset(model: &Model, errors: &mut Errors) {
    if let Some(declared) = &model.index {
        if model.keys.is_empty() && !model.sorts.is_empty() {
            errors.push_at(
                model.end,
                syn::Error::new(
                    declared.span,
                    format!(
                        "`index` on the struct names the index of the model's own keyset (its \
                         #[keyset(asc)] / #[keyset(desc)] fields), and `{}` has none: give each \
                         named sort its own among its columns, e.g. {SORT_INDEX_EXAMPLE}",
                        model.ident
                    ),
                ),
            );
        }
    }
}

/// A key field is not read through a Rust conversion: reported once per field, however many
/// keysets use it.
fn keys_compare_sql_not_rust(model: &Model, errors: &mut Errors) {
    let mut reported = HashSet::new();
    let used = model
        .keys
        .iter()
        .chain(model.sorts.iter().flat_map(|s| &s.keys));
    for k in used {
        if !reported.insert(k.field.name.clone()) {
            continue;
        }
        if let Some(span) = k.field.expression.as_ref().and_then(window_call) {
            errors.push_at(
                model.end,
                syn::Error::new(
                    span,
                    format!(
                        "key field `{}` is read through a window function (`.over(..)`, \
                         `.partition_by(..)`, `row_number()`, ..): its \
                         value exists only in the SELECT list, so the seek predicate cannot \
                         compare it in WHERE and page 2 would be a database error; page a \
                         subquery or view that computes it (the key is then a column of that \
                         source), or key on the columns the window orders by",
                        k.field.name
                    ),
                ),
            );
        }
        if let Some((span, word)) = k.field.expression.as_ref().and_then(clock_call) {
            errors.push_at(
                model.end,
                syn::Error::new(
                    span,
                    format!(
                        "key field `{}` is read through `{word}`, whose value changes from one \
                         request to the next (the clock, or a random value): every row moves \
                         between two pages, so a walk repeats and loses rows without an error; \
                         key on stored values instead: keep the score in a column (updated by \
                         a job, indexed), or use a form that does not decay with the time of \
                         the request (e.g. `log(votes) + created_at seconds / 45000` rather than \
                         `votes / age`)",
                        k.field.name
                    ),
                ),
            );
        }
        for (option, span) in &k.field.refused {
            errors.push_at(
                model.end,
                syn::Error::new(
                    *span,
                    format!(
                        "`{option}` on key field `{}`: the seek predicate and ORDER BY compare \
                         the field's SQL expression, not the Rust value it is converted to or \
                         from, so pages would be wrong; key on a column, or on an SQL \
                         expression with #[diesel(select_expression = ..)] (e.g. \
                         `select_expression = lower(users::name)`), whose SQL type the field \
                         reads directly",
                        k.field.name
                    ),
                ),
            );
        }
    }
}

/// Diesel's window API: the methods that make a function a window function, its window-only
/// functions, and the type of an `OVER` clause.
const WINDOW_WORDS: &[&str] = &[
    "over",
    "partition_by",
    "window_order",
    "frame_by",
    "row_number",
    "rank",
    "dense_rank",
    "percent_rank",
    "cume_dist",
    "ntile",
    "lag",
    "lead",
    "first_value",
    "last_value",
    "nth_value",
    "OverClause",
];

/// Where a select expression (or its written type) uses Diesel's window API
/// ([`WINDOW_WORDS`]). Aggregates need no such look: the check functions ask Diesel's
/// `ValidGrouping` (see `expand/checks.rs`).
fn window_call(expression: &crate::model::SelectExpression) -> Option<proc_macro2::Span> {
    use proc_macro2::{Delimiter, TokenTree};
    /// A window word called (followed by its parentheses: `row_number()`, `.over()`), not a
    /// column or path segment of that name (`ranks::rank`); in a type, the `OverClause`.
    fn find(tokens: proc_macro2::TokenStream, in_type: bool) -> Option<proc_macro2::Span> {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        tokens.iter().enumerate().find_map(|(at, t)| match t {
            TokenTree::Ident(i) if in_type && i == "OverClause" => Some(i.span()),
            TokenTree::Ident(i) if !in_type && WINDOW_WORDS.iter().any(|w| i == w) => {
                let called = matches!(tokens.get(at + 1),
                    Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis);
                called.then(|| i.span())
            }
            TokenTree::Group(g) => find(g.stream(), in_type),
            _ => None,
        })
    }
    use quote::ToTokens;
    find(expression.expr.to_token_stream(), false).or_else(|| {
        expression
            .ty
            .as_ref()
            .and_then(|t| find(t.to_token_stream(), true))
    })
}

/// Diesel's clock values, written as values (`now`, `today`, `diesel::dsl::now`), not called.
const CLOCK_VALUES: &[&str] = &["now", "today"];

/// SQL functions whose value depends on the time of the request or is random, as a model
/// calls them (`define_sql_function!`, `diesel::dsl::sql` literals): matched case-insensitively.
const CLOCK_FUNCTIONS: &[&str] = &[
    "now",
    "current_timestamp",
    "current_date",
    "current_time",
    "localtimestamp",
    "localtime",
    "clock_timestamp",
    "statement_timestamp",
    "transaction_timestamp",
    "timeofday",
    "sysdate",
    "utc_timestamp",
    "utc_date",
    "unix_timestamp",
    "curdate",
    "curtime",
    "random",
    "rand",
];

/// Where a select expression (or its written type) reads the clock or a random value: Diesel's
/// `now` / `today` (bare, or the last segment of a path through `dsl`), a call of one of
/// [`CLOCK_FUNCTIONS`], or an SQL literal that names one (`sql("CURRENT_TIMESTAMP")`,
/// SQLite's `'now'`). Returns its span and the word found. What a literal built at run time
/// holds cannot be seen here (the guide says so).
fn clock_call(expression: &crate::model::SelectExpression) -> Option<(proc_macro2::Span, String)> {
    use proc_macro2::{Delimiter, TokenTree};
    /// The first clock or random word an SQL literal names: a word of [`CLOCK_FUNCTIONS`]
    /// standing alone (`CURRENT_TIMESTAMP`; `now`, `random`, `rand` and `localtime` only when
    /// called, as other words are column names too), or SQLite's `'now'`.
    fn sql_literal(text: &str) -> Option<String> {
        let lower = text.to_ascii_lowercase();
        if lower.contains("'now'") {
            return Some("'now'".to_string());
        }
        let word_char = |c: char| c.is_ascii_alphanumeric() || c == '_';
        let found = |w: &str| {
            lower.match_indices(w).any(|(at, _)| {
                let before = lower[..at].chars().next_back();
                let rest = &lower[at + w.len()..];
                let after = rest.chars().next();
                let called = rest.trim_start().starts_with('(');
                let bare = !matches!(w, "now" | "random" | "rand" | "localtime");
                !before.is_some_and(word_char) && !after.is_some_and(word_char) && (bare || called)
            })
        };
        CLOCK_FUNCTIONS
            .iter()
            .find(|w| found(w))
            .map(|w| (*w).to_string())
    }
    fn find(tokens: proc_macro2::TokenStream) -> Option<(proc_macro2::Span, String)> {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        tokens.iter().enumerate().find_map(|(at, t)| match t {
            TokenTree::Ident(i) => {
                let name = i.to_string();
                let called = matches!(tokens.get(at + 1),
                    Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis);
                // The path before the word: nothing, or `.. dsl ::`.
                let after_path = at >= 2
                    && matches!(&tokens[at - 1], TokenTree::Punct(p) if p.as_char() == ':');
                let through_dsl = after_path
                    && matches!(tokens.get(at.wrapping_sub(3)), Some(TokenTree::Ident(d)) if d == "dsl");
                let value = CLOCK_VALUES.contains(&name.as_str()) && (!after_path || through_dsl);
                let function = called
                    && CLOCK_FUNCTIONS
                        .iter()
                        .any(|w| name.eq_ignore_ascii_case(w));
                (value || function).then(|| (i.span(), name))
            }
            TokenTree::Literal(l) => {
                let text = l.to_string();
                (text.starts_with('"') || text.starts_with("r"))
                    .then(|| sql_literal(&text))
                    .flatten()
                    .map(|w| (l.span(), w))
            }
            TokenTree::Group(g) => find(g.stream()),
            TokenTree::Punct(_) => None,
        })
    }
    use quote::ToTokens;
    find(expression.expr.to_token_stream()).or_else(|| {
        expression
            .ty
            .as_ref()
            .and_then(|t| find(t.to_token_stream()))
    })
}

/// The rules of one keyset's columns (the model's own, or a named sort's) that need no type
/// information: `unique` only on the last, the tie-breaker NOT NULL, at most 12 columns.
fn keys(keys: &[KeyField], at: Mark, errors: &mut Errors) {
    let Some(last) = keys.len().checked_sub(1) else {
        return;
    };
    for (i, key) in keys.iter().enumerate() {
        if let (Some(unique), true) = (key.unique, i < last) {
            let after: Vec<String> = keys[i + 1..]
                .iter()
                .map(|k| format!("`{}`", k.field.name))
                .collect();
            errors.push_at(
                at,
                syn::Error::new(
                    unique.span,
                    format!(
                        "`unique` marks the tie-breaker, which must be the last key column: the \
                         key columns after `{}` ({}) can never change the order; remove them or \
                         move `{}` last",
                        key.field.name,
                        after.join(", "),
                        key.field.name
                    ),
                ),
            );
        }
    }
    if let Some(nulls) = keys[last].nulls {
        errors.push_at(
            at,
            syn::Error::new(
                nulls.span,
                format!(
                    "the tie-breaker `{}` must be NOT NULL (a unique column may hold many NULLs, \
                     so NULL cannot name one row): make the last key column a NOT NULL unique \
                     column, usually the primary key",
                    keys[last].field.name
                ),
            ),
        );
    }
    if keys.len() > 12 {
        errors.push_at(
            at,
            keys[12].attr_error(format!(
                "a keyset has at most 12 columns (its key is a tuple of at most 12 values), this \
                 one has {}: keep at most 11 sort columns, the ones that decide the order, and \
                 the unique tie-breaker last",
                keys.len()
            )),
        );
    }
}

#[cfg(test)]
mod tests {
    use syn::DeriveInput;

    use super::*;
    use crate::attr;

    /// The model `input` reads into and its every message, reading and checks, in order.
    fn messages(input: DeriveInput) -> Vec<String> {
        let mut errors = Errors::default();
        if let Some(mut model) = attr::model(&input, &mut errors) {
            super::model(&mut model, &mut errors);
        }
        errors
            .into_error()
            .map(|e| e.into_iter().map(|e| e.to_string()).collect())
            .unwrap_or_default()
    }

    /// Window functions are called words; columns or path segments of those names are not.
    #[test]
    fn window_calls_are_refused_columns_named_like_them_are_not() {
        let window = |expr: syn::Expr| {
            window_call(&crate::model::SelectExpression { expr, ty: None }).is_some()
        };
        assert!(window(syn::parse_quote!(row_number().partition_by(t::a))));
        assert!(window(syn::parse_quote!(sum(t::a).over())));
        assert!(window(syn::parse_quote!(
            diesel::dsl::rank().window_order(t::a)
        )));
        assert!(!window(syn::parse_quote!(ranks::rank)));
        assert!(!window(syn::parse_quote!(coalesce(t::lead, 0))));
        assert!(!window(syn::parse_quote!(lower(t::name))));
    }

    /// The clock and random values are refused wherever they show: Diesel's `now` and
    /// `today`, clock and random SQL functions called, SQL literals naming them; columns and
    /// path segments of those names, and words inside other words, are not.
    #[test]
    fn clock_reads_are_refused_columns_named_like_them_are_not() {
        let clock = |expr: syn::Expr| {
            clock_call(&crate::model::SelectExpression { expr, ty: None }).map(|(_, w)| w)
        };
        assert_eq!(
            clock(syn::parse_quote!(now - posts::created_at)).as_deref(),
            Some("now")
        );
        assert_eq!(
            clock(syn::parse_quote!(diesel::dsl::now - posts::created_at)).as_deref(),
            Some("now")
        );
        assert_eq!(
            clock(syn::parse_quote!(dsl::today)).as_deref(),
            Some("today")
        );
        assert_eq!(
            clock(syn::parse_quote!(posts::votes / clock_timestamp())).as_deref(),
            Some("clock_timestamp")
        );
        assert_eq!(
            clock(syn::parse_quote!(random())).as_deref(),
            Some("random")
        );
        assert_eq!(
            clock(syn::parse_quote!(sql::<BigInt>(
                "votes * 100 / (CURRENT_TIMESTAMP - at)"
            )))
            .as_deref(),
            Some("current_timestamp")
        );
        assert_eq!(
            clock(syn::parse_quote!(sql::<Double>(
                "julianday('now') - julianday(at)"
            )))
            .as_deref(),
            Some("'now'")
        );
        assert_eq!(
            clock(syn::parse_quote!(sql::<Double>("score / (NOW() - at)"))).as_deref(),
            Some("now")
        );
        assert_eq!(clock(syn::parse_quote!(posts::now)), None);
        assert_eq!(clock(syn::parse_quote!(lower(posts::name))), None);
        assert_eq!(
            clock(syn::parse_quote!(sql::<Text>("known_at || nowhere"))),
            None
        );
        assert_eq!(clock(syn::parse_quote!(posts::random_seed + 1)), None);
        let typed = crate::model::SelectExpression {
            expr: syn::parse_quote!(age()),
            ty: Some(syn::parse_quote!(diesel::dsl::Sub<diesel::dsl::now, posts::created_at>)),
        };
        assert_eq!(clock_call(&typed).map(|(_, w)| w).as_deref(), Some("now"));
    }

    /// A check's error lands where the part it concerns was read: a duplicate sort between
    /// the sorts around it, a tuple field's between the fields.
    #[test]
    fn checks_report_in_source_order() {
        let got = messages(syn::parse_quote! {
            #[keyset(sort(Top(a(desc), id(desc))))]
            #[keyset(sort(Top(id(asc))))]
            #[keyset(sort(Later(nope(asc))))]
            struct Post {
                id: i64,
                a: i32,
            }
        });
        assert_eq!(got.len(), 4, "{got:#?}");
        assert!(got[0].starts_with("two sorts are named `top`"), "{got:#?}");
        assert_eq!(got[1], "the first is here");
        assert!(
            got[2].starts_with("`nope` is not a field of `Post`"),
            "{got:#?}"
        );
        assert!(
            got[3].starts_with("sort `Later` has no key column"),
            "{got:#?}"
        );

        let got = messages(syn::parse_quote! {
            struct Pair(#[keyset(asc)] i32, #[keyset(asc, uniqe)] i64);
        });
        assert_eq!(got.len(), 3, "{got:#?}");
        assert!(
            got[0].contains("tuple struct needs #[diesel(column_name"),
            "{got:#?}"
        );
        assert!(
            got[1].starts_with("unknown keyset option `uniqe`"),
            "{got:#?}"
        );
        assert!(
            got[2].contains("tuple struct needs #[diesel(column_name"),
            "{got:#?}"
        );
    }

    /// The second of two sorts of one name is dropped (its row type would be defined twice).
    #[test]
    fn a_sort_named_twice_is_dropped_once_reported() {
        let input: DeriveInput = syn::parse_quote! {
            #[keyset(sort(Top(id(asc))))]
            #[keyset(sort(Top(id(desc))))]
            struct Post {
                id: i64,
            }
        };
        let mut errors = Errors::default();
        let mut model = attr::model(&input, &mut errors).expect("a struct");
        assert_eq!(model.sorts.len(), 2);
        super::model(&mut model, &mut errors);
        assert_eq!(model.sorts.len(), 1);
        assert!(errors.into_error().is_some());
    }
}
