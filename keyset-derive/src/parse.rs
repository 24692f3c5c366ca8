//! Attributes into a [`Model`], accumulating every mistake.

use proc_macro2::Span;
use quote::{format_ident, quote, ToTokens};
use syn::spanned::Spanned as _;
use syn::{Attribute, Data, DeriveInput, Fields, Ident, Path};

use crate::errors::Errors;
use crate::model::{
    Field, KeyField, Model, NamedSort, NullsOrder, SelectExpression, SortDirection, Spanned,
};

/// Every option `#[keyset(..)]` accepts.
pub const OPTIONS: &[&str] = &["asc", "desc", "unique", "nulls_first", "nulls_last"];

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
    let table = table_name(input, errors);

    // The fields are read first (a named sort on the struct names them), but their mistakes
    // are reported after the struct's, in source order.
    let mut field_errors = Errors::default();
    let mut keys = Vec::new();
    let mut all_fields = Vec::new();
    let named = matches!(fields, Fields::Named(_));
    for (index, f) in fields.iter().enumerate() {
        let (column, expression, refused) = column_name(&f.attrs, &mut field_errors);
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
            key = Some(key_options(attr, field.clone(), &mut field_errors));
        }
        if let Some(k) = key {
            if !named && k.field.column.is_none() && k.field.expression.is_none() {
                field_errors.push(k.attr_error(
                    "a key field of a tuple struct needs #[diesel(column_name = ..)] to name its column",
                ));
            }
            keys.push(k);
        }
        all_fields.push(field);
    }

    let mut struct_attrs = StructAttrs {
        model: &input.ident,
        fields: &all_fields,
        named,
        version: None,
        index: None,
        sorts: Vec::new(),
    };
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("keyset")) {
        struct_attrs.read(attr, errors);
    }
    let StructAttrs {
        version,
        index,
        sorts,
        ..
    } = struct_attrs;
    errors.append(field_errors);
    if let Some(declared) = &index {
        if keys.is_empty() && !sorts.is_empty() {
            errors.push(syn::Error::new(
                declared.span,
                format!(
                    "`index` on the struct names the index of the model's own keyset (its \
                     #[keyset(asc)] / #[keyset(desc)] fields), and `{}` has none: give each \
                     named sort its own among its columns, e.g. {SORT_INDEX_EXAMPLE}",
                    input.ident
                ),
            ));
        }
    }

    // A key field read through a Rust conversion: reported once per field, however many
    // keysets use it.
    let mut reported = std::collections::HashSet::new();
    let used = keys.iter().chain(sorts.iter().flat_map(|s| &s.keys));
    for k in used {
        if !reported.insert(k.field.name.clone()) {
            continue;
        }
        for (option, span) in &k.field.refused {
            errors.push(syn::Error::new(
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
            ));
        }
    }
    Some(Model {
        ident: input.ident.clone(),
        vis: input.vis.clone(),
        table,
        keys,
        version,
        index,
        sorts,
    })
}

/// What `#[keyset(..)]` attributes on the struct declare: the ordering version and the named
/// sorts, read against the struct's fields.
struct StructAttrs<'a> {
    model: &'a Ident,
    fields: &'a [Field],
    /// Whether the struct has named fields (a named sort names its columns by field).
    named: bool,
    version: Option<Spanned<u32>>,
    index: Option<Spanned<String>>,
    sorts: Vec<NamedSort>,
}

impl StructAttrs<'_> {
    /// One `#[keyset(..)]` on the struct: `version = N` and `sort(..)` entries. Every
    /// mistake is pushed to `errors`.
    fn read(&mut self, attr: &Attribute, errors: &mut Errors) {
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
                             pages read, e.g. #[keyset(index = \"events_feed\")], and named \
                             sorts, e.g. \
                             #[keyset(sort(Newest(created_at(desc), id(desc))))]; column options \
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

    /// `sort(Name(field(options), ..), ..)`: named sorts, each its name with its key columns in
    /// key order in parentheses, each column a field of the struct with the options a field's
    /// `#[keyset(..)]` takes. (The columns sit inside the name so that two sorts sharing a
    /// column and option, `created(desc)`, are not the same attribute path to clippy's
    /// `duplicated_attributes`.)
    fn sort(
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
            site,
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
        let wire = snake_case(&text);
        if let Some(first) = self
            .sorts
            .iter()
            .find(|s| snake_case(&s.name.to_string()) == wire)
        {
            let mut e = syn::Error::new(
                name.span(),
                format!(
                    "two sorts are named `{wire}`: each named sort needs its own name (a variant \
                     of `{}Sort`)",
                    self.model
                ),
            );
            e.combine(syn::Error::new(first.name.span(), "the first is here"));
            errors.push(e);
            return;
        }
        if keys.is_empty() {
            errors.push(syn::Error::new(
                name.span(),
                format!(
                    "sort `{name}` has no key column: list its columns in order inside its \
                     parentheses, the last one the unique tie-breaker, e.g. {SORT_EXAMPLE}"
                ),
            ));
        }
        self.sorts.push(NamedSort { name, keys, index });
    }
}

/// Whether `input` starts with `()`: `parse_nested_meta` refuses an empty list.
fn empty_parens(input: syn::parse::ParseStream<'_>) -> syn::Result<bool> {
    let group: proc_macro2::TokenTree = input.fork().parse()?;
    Ok(matches!(group, proc_macro2::TokenTree::Group(g) if g.stream().is_empty()))
}

/// A named sort as the messages show it.
pub const SORT_EXAMPLE: &str = "#[keyset(sort(Newest(created_at(desc), id(desc))))]";
/// How the model's own keyset names its index.
const INDEX_EXAMPLE: &str = "#[keyset(index = \"events_feed\")]";
/// How a named sort names its index.
const SORT_INDEX_EXAMPLE: &str =
    "#[keyset(sort(Newest(created_at(desc), id(desc), index = \"events_newest\")))]";

/// `index = "name"` (on the struct, or among a named sort's columns): a string literal naming
/// an index, set once in `slot`. `example` is the attribute as it should be written.
fn index_value(
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

fn key_options(attr: &Attribute, field: Field, errors: &mut Errors) -> KeyField {
    let mut key = KeyField {
        field,
        direction: None,
        nulls: None,
        unique: None,
        site: attr.to_token_stream(),
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
fn needs_direction_example(key: &KeyField, direction: &'static str) -> Vec<&'static str> {
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
fn key_option(
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

/// The option closest to `given` by edit distance, if it is close enough to be a typo, or the
/// option a spelt-out word starts with (`descending` -> `desc`).
fn closest(given: &str) -> Option<&'static str> {
    let given = given.to_ascii_lowercase();
    OPTIONS
        .iter()
        .map(|o| (edit_distance(&given, o), *o))
        .filter(|(d, o)| *d <= (o.len() / 3).max(2))
        .min_by_key(|(d, _)| *d)
        .map(|(_, o)| o)
        .or_else(|| {
            OPTIONS
                .iter()
                .filter(|o| given.starts_with(*o))
                .max_by_key(|o| o.len())
                .copied()
        })
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// `#[diesel(table_name = path)]`, or Diesel's default: the struct name in snake case plus `s`.
fn table_name(input: &DeriveInput, errors: &mut Errors) -> Path {
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
fn column_name(
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
fn skip_meta_value(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<()> {
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

/// `most_liked` -> `MostLiked`, for the example in a message.
fn upper_camel(name: &str) -> String {
    name.split('_')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect()
}

pub fn snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (i, ch) in name.chars().enumerate() {
        if ch.is_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.extend(ch.to_lowercase());
        } else {
            out.push(ch);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_get_the_closest_option() {
        assert_eq!(closest("ascc"), Some("asc"));
        assert_eq!(closest("uniqe"), Some("unique"));
        assert_eq!(closest("nulls_frist"), Some("nulls_first"));
        assert_eq!(closest("DESC"), Some("desc"));
        assert_eq!(closest("descending"), Some("desc"));
        assert_eq!(closest("ascending"), Some("asc"));
        assert_eq!(closest("nulls_first_please"), Some("nulls_first"));
        assert_eq!(closest("primary_key"), None);
        assert_eq!(closest("order"), None);
    }

    /// The messages of `model`'s errors, in order.
    fn messages(input: DeriveInput) -> (Option<Model>, Vec<String>) {
        let mut errors = Errors::default();
        let model = model(&input, &mut errors);
        let messages = errors
            .into_error()
            .map(|e| e.into_iter().map(|e| e.to_string()).collect())
            .unwrap_or_default();
        (model, messages)
    }

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

    #[test]
    fn default_table_name_is_snake_case_plural() {
        assert_eq!(snake_case("ActivityEvent") + "s", "activity_events");
    }
}
