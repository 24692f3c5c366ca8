//! The parsed, not yet checked, description of a `#[derive(Keyset)]` model.

use proc_macro2::{Span, TokenStream};
use syn::{Ident, Path, Type};

use crate::errors::Mark;

/// Declared sort direction of a key column (the runtime's `SortDirection`; the runtime's
/// `Direction` is the walk direction, after or before a cursor).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortDirection {
    Asc,
    Desc,
}

/// Declared NULL placement (the runtime's `NullsOrder`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NullsOrder {
    First,
    Last,
}

/// An option value with the span of the word that set it.
#[derive(Debug, Clone, Copy)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

/// The struct as a whole.
pub struct Model {
    pub ident: Ident,
    /// The struct's visibility, given to the types generated for its named sorts.
    pub vis: syn::Visibility,
    /// `#[diesel(table_name = ..)]`, or Diesel's default (snake case plural of the struct name).
    pub table: Path,
    /// The model's own key columns (fields marked `#[keyset(..)]`), in key order; empty when
    /// the model has only named sorts.
    pub keys: Vec<KeyField>,
    /// `#[keyset(version = N)]` on the struct: the ordering version (1 when absent), of every
    /// keyset of the model.
    pub version: Option<Spanned<u32>>,
    /// `#[keyset(index = "..")]` on the struct: the index the model's own keyset reads.
    pub index: Option<Spanned<String>>,
    /// `#[keyset(sort(Name(field(asc), ..)))]` on the struct, in declaration order (two of
    /// one name included: `check` reports and drops the second).
    pub sorts: Vec<NamedSort>,
    /// `#[keyset(graphql_sort)]`: the named sorts' enum also derives `async_graphql::Enum`
    /// (values in GraphQL's upper case: `NEWEST`), so a GraphQL argument needs no mirror of it.
    pub graphql_sort: bool,
    /// Whether the struct has named fields.
    pub named: bool,
    /// Where reading the model ended: the checks of the whole model report there.
    pub end: Mark,
}

/// A named sort: another keyset of the same model, `#[keyset(sort(Newest(created_at(desc),
/// id(desc))))]`, paginated through its own row type `<Model>By<Name>`.
pub struct NamedSort {
    /// The sort's name, the variant of the generated `<Model>Sort` enum.
    pub name: Ident,
    /// Key columns, in the order the attribute lists them.
    pub keys: Vec<KeyField>,
    /// `index = ".."` among the sort's columns: the index this sort reads.
    pub index: Option<Spanned<String>>,
    /// Where reading the sort ended: its checks report there.
    pub mark: Mark,
}

impl Model {
    /// The generated enum of the named sorts: `<Model>Sort`.
    pub fn sort_enum(&self) -> Ident {
        quote::format_ident!("{}Sort", self.ident)
    }

    /// The generated row type of named sort `sort`: `<Model>By<Name>`, or `<Model><Name>`
    /// for a name that already starts with `By` and an uppercase letter (`ByAction`:
    /// `EventByAction`, not `EventByByAction`).
    pub fn sort_row(&self, sort: &NamedSort) -> Ident {
        let name = sort.name.to_string();
        let says_by = name
            .strip_prefix("By")
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_uppercase()));
        if says_by {
            quote::format_ident!("{}{}", self.ident, sort.name)
        } else {
            quote::format_ident!("{}By{}", self.ident, sort.name)
        }
    }
}

/// A field of the struct, with its column.
#[derive(Clone)]
pub struct Field {
    /// `self.<member>`.
    pub member: TokenStream,
    /// Text of the member, for messages and `KeyColumn::field`.
    pub name: String,
    pub ty: Type,
    /// The Diesel column ident (from `column_name` or the field name).
    pub column: Option<Ident>,
    /// `#[diesel(select_expression = ..)]`: the SQL expression the field is read through,
    /// which a key field is then ordered and sought by instead of its column.
    pub expression: Option<SelectExpression>,
    /// Diesel options that read the field through a Rust conversion (`deserialize_as`, ..),
    /// with their spans: refused on a key field.
    pub refused: Vec<(String, Span)>,
    pub span: Span,
}

/// A field's `#[diesel(select_expression = .., select_expression_type = ..)]`.
#[derive(Clone)]
pub struct SelectExpression {
    pub expr: syn::Expr,
    /// The type, when written; inferred from `expr` otherwise (as Diesel's `Selectable` does).
    pub ty: Option<Type>,
}

/// A field marked `#[keyset(..)]`.
pub struct KeyField {
    pub field: Field,
    pub direction: Option<Spanned<SortDirection>>,
    pub nulls: Option<Spanned<NullsOrder>>,
    /// `unique`: a flag, so its value is `()` and only the span of the word matters.
    pub unique: Option<Spanned<()>>,
    /// `exact_text`: the column's collation calls two strings equal only when they are the
    /// same (a flag, like `unique`).
    pub exact_text: Option<Spanned<()>>,
    /// Where the column is declared, for errors that cover all of it: the field's
    /// `#[keyset(..)]` attribute, or a named sort's `field(..)` entry.
    pub site: TokenStream,
    /// Where reading the declaration ended: its checks report there.
    pub mark: Mark,
}

impl KeyField {
    /// Span of the declaration's first token (the attribute's `#`, the entry's field name):
    /// with [`KeyField::attr_end`], the whole declaration.
    pub fn attr_start(&self) -> Span {
        self.site
            .clone()
            .into_iter()
            .next()
            .map_or(self.field.span, |t| t.span())
    }

    /// Span of the declaration's last token (the attribute's `]`, the entry's `)`).
    pub fn attr_end(&self) -> Span {
        match self.site.clone().into_iter().last() {
            Some(proc_macro2::TokenTree::Group(g)) => g.span_close(),
            Some(t) => t.span(),
            None => self.field.span,
        }
    }

    /// An error covering the whole declaration.
    pub fn attr_error(&self, message: impl std::fmt::Display) -> syn::Error {
        syn::Error::new_spanned(&self.site, message)
    }
}
