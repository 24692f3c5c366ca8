//! The parsed, not yet checked, description of a `#[derive(Keyset)]` model.

use proc_macro2::{Span, TokenStream};
use syn::{Ident, Path, Type};

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
    /// `#[diesel(table_name = ..)]`, or Diesel's default (snake case plural of the struct name).
    pub table: Path,
    /// Key columns, in key order.
    pub keys: Vec<KeyField>,
    /// `#[keyset(version = N)]` on the struct: the ordering version (1 when absent).
    pub version: Option<Spanned<u32>>,
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
    /// The `#[keyset(..)]` attribute, for errors that cover all of it.
    pub attr: syn::Attribute,
}

impl KeyField {
    /// Span of the attribute's `#`: with [`KeyField::attr_end`], the whole attribute.
    pub fn attr_start(&self) -> Span {
        self.attr.pound_token.span
    }

    /// Span of the attribute's closing `]`.
    pub fn attr_end(&self) -> Span {
        self.attr.bracket_token.span.close()
    }

    /// An error covering the whole `#[keyset(..)]` attribute.
    pub fn attr_error(&self, message: impl std::fmt::Display) -> syn::Error {
        syn::Error::new_spanned(&self.attr, message)
    }
}
