//! Code generation: the impls for a checked [`Model`], or a stub when the model has errors.
//!
//! Spans matter here as much as tokens: every `where` predicate of a check function is spanned
//! on what the user must change (the field's type, its `#[keyset(..)]` attribute, the
//! `nulls_first` word), so the compiler reports the check's message there.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::{DeriveInput, Ident, Index};

use crate::model::{KeyField, Model, NamedSort, NullsOrder, SortDirection, Spanned};

/// `::keyset_diesel::__private`, spanned.
fn private(span: Span) -> TokenStream {
    quote_spanned!(span=> ::keyset_diesel::__private)
}

/// `tokens` with every span set to `span`, groups included.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tt| {
            if let TokenTree::Group(g) = &tt {
                let mut group = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                tt = TokenTree::Group(group);
            } else {
                tt.set_span(span);
            }
            tt
        })
        .collect()
}

/// The span of the last token of `tokens` (the closing delimiter of a trailing group), or
/// `fallback` when empty. With the first token's own span, it lets a predicate cover the whole
/// of a multi-token type on stable Rust, where spans cannot be joined.
fn last_span(tokens: TokenStream, fallback: Span) -> Span {
    match tokens.into_iter().last() {
        Some(TokenTree::Group(g)) => g.span_close(),
        Some(tt) => tt.span(),
        None => fallback,
    }
}

/// `start` on the first token of `tokens` and `end` on all the rest: the compiler underlines
/// from `start` to `end`.
fn spanned_range(tokens: TokenStream, start: Span, end: Span) -> TokenStream {
    let mut out = TokenStream::new();
    for (i, tt) in respan(tokens, end).into_iter().enumerate() {
        let mut tt = tt;
        if i == 0 {
            if let TokenTree::Group(g) = &tt {
                let mut group = proc_macro2::Group::new(g.delimiter(), g.stream());
                group.set_span(start);
                tt = TokenTree::Group(group);
            } else {
                tt.set_span(start);
            }
        }
        out.extend([tt]);
    }
    out
}

/// The alias naming key column `i` inside the generated scope.
fn column_alias(i: usize) -> Ident {
    format_ident!("__KeysetColumn{}", i)
}

/// Everything a checked model expands to: its own keyset (when its fields mark key columns),
/// and for its named sorts their row types and the enum that chooses one.
pub fn model(model: &Model) -> TokenStream {
    let mut out = TokenStream::new();
    if !model.keys.is_empty() {
        let ident = &model.ident;
        out.extend(keyset(
            model,
            &quote!(#ident),
            &quote!(self),
            &model.keys,
            model.index.as_ref(),
        ));
    }
    for sort in &model.sorts {
        let row = model.sort_row(sort);
        out.extend(sort_row(model, sort));
        out.extend(keyset(
            model,
            &quote!(#row),
            &quote!(self.0),
            &sort.keys,
            sort.index.as_ref(),
        ));
    }
    out.extend(sort_enum(model));
    out
}

/// The `Keyset` and `KeysetSql` impls of one keyset of `model` on type `ty` (the model, or a
/// named sort's row type), its key columns `keys` read from `access` (`self`, `self.0`), the
/// pages naming `index` when it is declared.
fn keyset(
    model: &Model,
    ty: &TokenStream,
    access: &TokenStream,
    keys: &[KeyField],
    index: Option<&Spanned<String>>,
) -> TokenStream {
    let ident = ty;
    let table = &model.table;
    let table_name = table_name(model);
    let p = private(Span::call_site());
    let diesel = quote!(#p::diesel);

    // One alias per key column: a column the table does not have is reported once, on the
    // field (or on its `column_name` value), and every later use of the alias stays silent.
    // A field read through `select_expression` is keyed by that expression: its alias is the
    // expression's type (written, or inferred as Diesel's `Selectable` infers it).
    let aliases = keys.iter().enumerate().map(|(i, k)| {
        let alias = column_alias(i);
        let (path, errors) = match &k.field.expression {
            Some(e) => expression_type(e),
            None => (column_path(model, k), TokenStream::new()),
        };
        quote! {
            #errors
            #[allow(non_camel_case_types)]
            type #alias = #path;
        }
    });
    let columns: Vec<Ident> = (0..keys.len()).map(column_alias).collect();
    let key_types: Vec<&syn::Type> = keys.iter().map(|k| &k.field.ty).collect();
    let members: Vec<&TokenStream> = keys.iter().map(|k| &k.field.member).collect();
    let indexes: Vec<Index> = (0..keys.len()).map(Index::from).collect();
    let key_columns = keys.iter().zip(&columns).map(|(k, col)| {
        let field = &k.field.name;
        let direction = match k.direction.map(|d| d.value) {
            Some(SortDirection::Desc) => quote!(#p::SortDirection::Desc),
            _ => quote!(#p::SortDirection::Asc),
        };
        let nulls = match k.nulls.map(|n| n.value) {
            Some(NullsOrder::First) => quote!(::core::option::Option::Some(#p::NullsOrder::First)),
            Some(NullsOrder::Last) => quote!(::core::option::Option::Some(#p::NullsOrder::Last)),
            None => quote!(::core::option::Option::None),
        };
        let name = match &k.field.expression {
            Some(e) => {
                let text = expression_text(e.expr.to_token_stream());
                quote!(#text)
            }
            None => quote!(<#col as #diesel::Column>::NAME),
        };
        quote! {
            #p::KeyColumn {
                name: #name,
                field: #field,
                direction: #direction,
                nulls: #nulls,
            }
        }
    });

    let checks = checks(model, keys);
    // Only when written: a model without the attribute keeps the trait's default (1), and so
    // the signature it always had.
    let version = model.version.map(|v| {
        let n = v.value;
        quote!(const VERSION: u32 = #n;)
    });
    // Only when declared: the trait's default is no index.
    let index = index.map(|i| {
        let name = &i.value;
        quote!(const INDEX: ::core::option::Option<&'static str> = ::core::option::Option::Some(#name);)
    });

    let sql_bounds = keys.iter().zip(&columns).map(|(k, col)| {
        let ty = &k.field.ty;
        quote! {
            #col: #diesel::query_builder::QueryFragment<__DB>,
            #ty: #diesel::serialize::ToSql<#diesel::dsl::SqlTypeOf<#col>, __DB>,
            __DB: #diesel::sql_types::HasSqlType<#diesel::dsl::SqlTypeOf<#col>>,
        }
    });
    let walk_columns = columns.iter().zip(&indexes).zip(keys).map(|((col, i), k)| {
        let n = i.index as usize;
        match &k.field.expression {
            // `walk_ast` needs the expression for as long as the pass's binds: built once, kept
            // in a static.
            Some(e) => {
                let expr = &e.expr;
                quote! {
                    #n => {
                        static EXPRESSION: ::std::sync::OnceLock<#col> = ::std::sync::OnceLock::new();
                        let expression: &'static #col = EXPRESSION.get_or_init(|| #expr);
                        #diesel::query_builder::QueryFragment::<__DB>::walk_ast(expression, out)
                    }
                }
            }
            // `&Column {}` is promoted to a `'static` constant, as `walk_ast` needs.
            None => quote! {
                #n => #diesel::query_builder::QueryFragment::<__DB>::walk_ast(&#col {}, out),
            },
        }
    });
    let walk_values = columns.iter().zip(&indexes).map(|(col, i)| {
        let n = i.index as usize;
        quote!(#n => out.push_bind_param::<#diesel::dsl::SqlTypeOf<#col>, _>(&key.#i),)
    });

    quote! {
        const _: () = {
            #(#aliases)*

            #checks

            impl #p::Keyset for #ident {
                type Table = #table::table;
                type Columns = (#(#columns,)*);
                type Key = (#(#key_types,)*);
                const COLUMNS: &'static [#p::KeyColumn] = &[#(#key_columns),*];
                const TABLE_NAME: &'static str = #table_name;
                #version
                #index

                fn key(&self) -> Self::Key {
                    (#(::core::clone::Clone::clone(&#access.#members),)*)
                }

                // The SQL name Diesel writes (schema-qualified when the `table!` names a schema),
                // part of the sort signature.
                fn sql_table_component() -> ::std::string::String {
                    ::std::format!(
                        "{:?}",
                        <#table::table as #diesel::internal::table_macro::StaticQueryFragment>::STATIC_COMPONENT,
                    )
                }

                fn sort_signature_digest() -> [u8; 16] {
                    static DIGEST: ::std::sync::OnceLock<[u8; 16]> = ::std::sync::OnceLock::new();
                    *DIGEST.get_or_init(|| #p::sort_signature_digest(
                        &<Self as #p::Keyset>::sort_signature(),
                    ))
                }
            }

            impl<__DB> #p::KeysetSql<__DB> for #ident
            where
                __DB: #diesel::backend::Backend,
                #(#sql_bounds)*
            {
                fn walk_column(
                    index: usize,
                    out: #diesel::query_builder::AstPass<'_, '_, __DB>,
                ) -> #diesel::QueryResult<()> {
                    match index {
                        #(#walk_columns)*
                        _ => ::core::result::Result::Err(#p::__index_error(index)),
                    }
                }

                fn walk_value<'__b>(
                    key: &'__b Self::Key,
                    index: usize,
                    mut out: #diesel::query_builder::AstPass<'_, '__b, __DB>,
                ) -> #diesel::QueryResult<()> {
                    match index {
                        #(#walk_values)*
                        _ => ::core::result::Result::Err(#p::__index_error(index)),
                    }
                }
            }
        };
    }
}

/// What a model with errors expands to, besides the errors: impls of `Keyset` and `KeysetSql`
/// that type-check at every use site (same table, a hidden placeholder key), and the named
/// sorts' row types and enum, so the user sees only the real mistakes, not "`Event: Keyset` is
/// not satisfied" wherever the model is used. Nothing in it can run: the crate does not compile
/// while the errors stand.
pub fn stub(input: &DeriveInput, model: &Model) -> TokenStream {
    let ident = &input.ident;
    let mut out = TokenStream::new();
    if !model.keys.is_empty() || model.sorts.is_empty() {
        out.extend(stub_keyset(model, &input.generics, &quote!(#ident)));
    }
    if input.generics.params.is_empty() {
        for sort in &model.sorts {
            let row = model.sort_row(sort);
            out.extend(sort_row(model, sort));
            out.extend(stub_keyset(model, &syn::Generics::default(), &quote!(#row)));
        }
        out.extend(sort_enum(model));
    }
    out
}

/// The placeholder `Keyset` and `KeysetSql` impls of [`stub`] on type `ty`.
fn stub_keyset(model: &Model, input_generics: &syn::Generics, ty: &TokenStream) -> TokenStream {
    let ident = ty;
    let (impl_generics, ty_generics, where_clause) = input_generics.split_for_impl();
    let p = private(Span::call_site());
    let diesel = quote!(#p::diesel);
    let table = &model.table;
    let table_name = table_name(model);
    let mut generics = input_generics.clone();
    generics.params.push(syn::parse_quote!(__DB));
    let (sql_impl_generics, _, _) = generics.split_for_impl();
    let where_preds = where_clause.map(|w| &w.predicates);
    quote! {
        const _: () = {
            impl #impl_generics #p::Keyset for #ident #ty_generics #where_clause {
                type Table = #table::table;
                type Columns = (#p::InvalidKeyset,);
                type Key = (#p::InvalidKeyset,);
                const COLUMNS: &'static [#p::KeyColumn] = &[];
                const TABLE_NAME: &'static str = #table_name;

                fn key(&self) -> Self::Key {
                    (#p::InvalidKeyset,)
                }
            }

            impl #sql_impl_generics #p::KeysetSql<__DB> for #ident #ty_generics
            where
                __DB: #diesel::backend::Backend,
                #where_preds
            {
                fn walk_column(
                    _index: usize,
                    _out: #diesel::query_builder::AstPass<'_, '_, __DB>,
                ) -> #diesel::QueryResult<()> {
                    ::core::result::Result::Err(#p::__invalid_keyset())
                }

                fn walk_value<'__b>(
                    _key: &'__b Self::Key,
                    _index: usize,
                    _out: #diesel::query_builder::AstPass<'_, '__b, __DB>,
                ) -> #diesel::QueryResult<()> {
                    ::core::result::Result::Err(#p::__invalid_keyset())
                }
            }
        };
    }
}

/// The row type of a named sort, `<Model>By<Name>`: the model in a transparent wrapper that
/// loads, selects, derefs and serializes as the model, so that the sort is a keyset of its own
/// (`K` of `paginate_after::<K>`, `Page<K>`, `Cursor<K>`).
///
/// Debug, Clone, PartialEq, Eq, Hash and Serialize are the model's, when it has them: each
/// impl's bound is on the model behind a `for<'__k>` binder, which the compiler checks where the
/// impl is used rather than where it is written, so a model without `Clone` gets a row type
/// without `Clone` instead of an error.
fn sort_row(model: &Model, sort: &NamedSort) -> TokenStream {
    let ident = &model.ident;
    let vis = &model.vis;
    let row = model.sort_row(sort);
    let name = &sort.name;
    let sort_enum = model.sort_enum();
    let p = private(Span::call_site());
    let diesel = quote!(#p::diesel);
    let columns: Vec<String> = sort
        .keys
        .iter()
        .map(|k| {
            let mut c = format!(
                "`{}` {}",
                k.field.name,
                match k.direction.map(|d| d.value) {
                    Some(SortDirection::Desc) => "desc",
                    _ => "asc",
                }
            );
            match k.nulls.map(|n| n.value) {
                Some(NullsOrder::First) => c.push_str(" nulls first"),
                Some(NullsOrder::Last) => c.push_str(" nulls last"),
                None => {}
            }
            c
        })
        .collect();
    let doc = format!(
        "[`{ident}`] in its named sort `{name}` ([`{sort_enum}::{name}`]): {}. A keyset of its \
         own: paginate with `.select({row}::as_select())`, load `Page<{row}>`, and take the \
         model out with `into_inner` (or `Page::map`). Generated by `#[derive(Keyset)]`.",
        columns.join(", ")
    );
    quote! {
        #[doc = #doc]
        #[repr(transparent)]
        #[allow(dead_code)] // a model's caller may page it by some of its sorts only
        #vis struct #row(#vis #ident);

        const _: () = {
            impl #row {
                /// The model.
                #[allow(dead_code)]
                #vis fn into_inner(self) -> #ident {
                    self.0
                }
            }

            impl ::core::convert::From<#ident> for #row {
                fn from(model: #ident) -> Self {
                    Self(model)
                }
            }

            impl ::core::convert::From<#row> for #ident {
                fn from(row: #row) -> Self {
                    row.0
                }
            }

            impl ::core::ops::Deref for #row {
                type Target = #ident;
                fn deref(&self) -> &#ident {
                    &self.0
                }
            }

            impl ::core::ops::DerefMut for #row {
                fn deref_mut(&mut self) -> &mut #ident {
                    &mut self.0
                }
            }

            impl ::core::convert::AsRef<#ident> for #row {
                fn as_ref(&self) -> &#ident {
                    &self.0
                }
            }

            impl ::core::fmt::Debug for #row
            where
                for<'__k> #ident: ::core::fmt::Debug,
            {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    f.debug_tuple(::core::stringify!(#row)).field(&self.0).finish()
                }
            }

            impl ::core::clone::Clone for #row
            where
                for<'__k> #ident: ::core::clone::Clone,
            {
                fn clone(&self) -> Self {
                    Self(::core::clone::Clone::clone(&self.0))
                }
            }

            impl ::core::cmp::PartialEq for #row
            where
                for<'__k> #ident: ::core::cmp::PartialEq,
            {
                fn eq(&self, other: &Self) -> bool {
                    self.0 == other.0
                }
            }

            impl ::core::cmp::Eq for #row where for<'__k> #ident: ::core::cmp::Eq {}

            impl ::core::hash::Hash for #row
            where
                for<'__k> #ident: ::core::hash::Hash,
            {
                fn hash<__H: ::core::hash::Hasher>(&self, state: &mut __H) {
                    ::core::hash::Hash::hash(&self.0, state)
                }
            }

            impl #p::serde::Serialize for #row
            where
                for<'__k> #ident: #p::serde::Serialize,
            {
                fn serialize<__S: #p::serde::Serializer>(
                    &self,
                    serializer: __S,
                ) -> ::core::result::Result<__S::Ok, __S::Error> {
                    #p::serde::Serialize::serialize(&self.0, serializer)
                }
            }

            // Loads as the model loads (any SQL type the model's `Queryable` reads)...
            impl<__ST, __DB> #diesel::deserialize::Queryable<__ST, __DB> for #row
            where
                __DB: #diesel::backend::Backend,
                #ident: #diesel::deserialize::Queryable<__ST, __DB>,
            {
                type Row = <#ident as #diesel::deserialize::Queryable<__ST, __DB>>::Row;

                fn build(row: Self::Row) -> #diesel::deserialize::Result<Self> {
                    <#ident as #diesel::deserialize::Queryable<__ST, __DB>>::build(row).map(Self)
                }
            }

            // ... and selects the model's columns, so `.select(<row>::as_select())` loads it.
            impl<__DB> #diesel::Selectable<__DB> for #row
            where
                __DB: #diesel::backend::Backend,
                #ident: #diesel::Selectable<__DB>,
            {
                type SelectExpression = <#ident as #diesel::Selectable<__DB>>::SelectExpression;

                fn construct_selection() -> Self::SelectExpression {
                    <#ident as #diesel::Selectable<__DB>>::construct_selection()
                }
            }
        };
    }
}

/// The enum of a model's named sorts, `<Model>Sort`, one variant per sort in declaration order
/// (the first is the default), named on the wire in snake case (`MostLiked` is
/// `"most_liked"`): what a request chooses, through `FromStr` or serde.
fn sort_enum(model: &Model) -> TokenStream {
    if model.sorts.is_empty() {
        return TokenStream::new();
    }
    let ident = &model.ident;
    let vis = &model.vis;
    let sort_enum = model.sort_enum();
    let p = private(Span::call_site());
    let variants: Vec<&Ident> = model.sorts.iter().map(|s| &s.name).collect();
    let rows: Vec<Ident> = model.sorts.iter().map(|s| model.sort_row(s)).collect();
    let names: Vec<String> = model
        .sorts
        .iter()
        .map(|s| crate::parse::snake_case(&s.name.to_string()))
        .collect();
    let docs: Vec<String> = model
        .sorts
        .iter()
        .zip(&names)
        .zip(&rows)
        .map(|((s, wire), row)| {
            format!(
                "`{wire}`: [`{ident}`] by sort `{}`, paginated as [`{row}`].",
                s.name
            )
        })
        .collect();
    let first = variants[0];
    let rest = &variants[1..];
    let first_doc = &docs[0];
    let rest_docs = &docs[1..];
    let doc = format!(
        "The named sorts of [`{ident}`], one of which a request chooses (`?sort={}`). Parsed \
         from its name with `FromStr` or serde (an unknown name is `keyset_diesel::UnknownSort`, \
         naming the choices); each variant pages through its own row type, and a token of one \
         sort is refused by another (`CursorError::SortMismatch`). Generated by \
         `#[derive(Keyset)]`.",
        names.join("|")
    );
    quote! {
        #[doc = #doc]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
        #[allow(dead_code)]
        #vis enum #sort_enum {
            #[doc = #first_doc]
            #[default]
            #first,
            #(
                #[doc = #rest_docs]
                #rest,
            )*
        }

        const _: () = {
            impl #p::SortChoice for #sort_enum {
                const ALL: &'static [Self] = &[#(Self::#variants),*];
                const NAMES: &'static [&'static str] = &[#(#names),*];

                fn name(self) -> &'static str {
                    match self {
                        #(Self::#variants => #names,)*
                    }
                }

                fn sort_signature(self) -> ::std::string::String {
                    match self {
                        #(Self::#variants => <#rows as #p::Keyset>::sort_signature(),)*
                    }
                }
            }

            impl ::core::str::FromStr for #sort_enum {
                type Err = #p::UnknownSort;

                fn from_str(name: &str) -> ::core::result::Result<Self, #p::UnknownSort> {
                    <Self as #p::SortChoice>::from_name(name)
                }
            }

            impl ::core::fmt::Display for #sort_enum {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    f.write_str(#p::SortChoice::name(*self))
                }
            }

            impl #p::serde::Serialize for #sort_enum {
                fn serialize<__S: #p::serde::Serializer>(
                    &self,
                    serializer: __S,
                ) -> ::core::result::Result<__S::Ok, __S::Error> {
                    serializer.serialize_str(#p::SortChoice::name(*self))
                }
            }

            impl<'__de> #p::serde::Deserialize<'__de> for #sort_enum {
                fn deserialize<__D: #p::serde::Deserializer<'__de>>(
                    deserializer: __D,
                ) -> ::core::result::Result<Self, __D::Error> {
                    #p::deserialize_sort(deserializer)
                }
            }
        };
    }
}

/// The table path as written in `#[diesel(table_name = ..)]` (`events`, `archive::events`):
/// two tables of the same name in different modules (schemas) get different sort signatures.
fn table_name(model: &Model) -> String {
    model
        .table
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}

/// The type of a key field's `select_expression`: `select_expression_type` when written, else
/// inferred from the expression as Diesel's `Selectable` derive infers it (so the two agree),
/// with the inference's errors as `compile_error!`s.
fn expression_type(e: &crate::model::SelectExpression) -> (TokenStream, TokenStream) {
    use dsl_auto_type::auto_type::expression_type_inference as inference;
    let settings = inference::InferrerSettings::builder()
        .dsl_path(syn::parse_quote!(::keyset_diesel::__private::diesel::dsl))
        .function_types_case(dsl_auto_type::Case::DoNotChange)
        .method_types_case(dsl_auto_type::Case::UpperCamel)
        .build();
    let (ty, errors) = inference::infer_expression_type(&e.expr, e.ty.as_ref(), &settings);
    let errors = errors.into_iter().map(|e| e.to_compile_error()).collect();
    (ty.to_token_stream(), errors)
}

/// A stable text of an expression's tokens, the key column's name in the sort signature and in
/// errors: no spaces except between two words (`lower(users::name)`, `coalesce(a,b)`), so it
/// does not depend on how the compiler prints tokens.
fn expression_text(tokens: TokenStream) -> String {
    fn write(tokens: TokenStream, out: &mut String, last_word: &mut bool) {
        for tt in tokens {
            match tt {
                TokenTree::Group(g) => {
                    let (open, close) = match g.delimiter() {
                        proc_macro2::Delimiter::Parenthesis => ("(", ")"),
                        proc_macro2::Delimiter::Brace => ("{", "}"),
                        proc_macro2::Delimiter::Bracket => ("[", "]"),
                        proc_macro2::Delimiter::None => ("", ""),
                    };
                    out.push_str(open);
                    *last_word = false;
                    write(g.stream(), out, last_word);
                    out.push_str(close);
                    *last_word = false;
                }
                TokenTree::Punct(p) => {
                    out.push(p.as_char());
                    *last_word = false;
                }
                TokenTree::Ident(i) => {
                    if *last_word {
                        out.push(' ');
                    }
                    out.push_str(&i.to_string());
                    *last_word = true;
                }
                TokenTree::Literal(l) => {
                    if *last_word {
                        out.push(' ');
                    }
                    out.push_str(&l.to_string());
                    *last_word = true;
                }
            }
        }
    }
    let mut out = String::new();
    write(tokens, &mut out, &mut false);
    out
}

/// `table::column` for a key field, spanned on the column's name as the user wrote it (the
/// `column_name` value, or the field), so a column the table lacks is reported there.
fn column_path(model: &Model, key: &KeyField) -> TokenStream {
    let table = &model.table;
    match &key.field.column {
        Some(col) => quote_spanned!(col.span()=> #table::#col),
        None => quote!(#table::__keyset_missing_column_name),
    }
}

/// Non-generic functions whose `where` clauses hold exactly when the model is right (the
/// technique of Diesel's `check_for_backend`): the compiler reports each failing predicate on
/// its span, with the message of the marker trait in `keyset_diesel::__private`.
fn checks(model: &Model, keys: &[KeyField]) -> TokenStream {
    let diesel_at = |span: Span| {
        let p = private(span);
        quote_spanned!(span=> #p::diesel)
    };
    let table = &model.table;
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
    if let Some(key) = keys.last() {
        if key.unique.is_none() {
            let col = column_alias(last);
            let (start, end) = (key.attr_start(), key.attr_end());
            let d = diesel_at(end);
            let p = private(end);
            preds.extend(spanned_range(
                quote! {
                    <#table::table as #d::Table>::PrimaryKey: #p::TieBreakerIsPrimaryKey<#col>,
                },
                start,
                end,
            ));
        }
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

#[cfg(test)]
mod tests {
    use super::expression_text;

    /// The signature text of an expression: spaces only between two words, whatever the
    /// source's spacing.
    #[test]
    fn expression_text_is_compact_and_stable() {
        let text = |e: syn::Expr| expression_text(quote::ToTokens::to_token_stream(&e));
        assert_eq!(
            text(syn::parse_quote!(lower(users::name))),
            "lower(users::name)"
        );
        assert_eq!(
            text(syn::parse_quote!(coalesce(users::nick, users::name))),
            "coalesce(users::nick,users::name)"
        );
        assert_eq!(
            text(syn::parse_quote!(users::name.concat(" x"))),
            "users::name.concat(\" x\")"
        );
        assert_eq!(text(syn::parse_quote!(a as i64)), "a as i64");
        assert_eq!(text(syn::parse_quote!(authors::id)), "authors::id");
    }
}
