//! The parsed, not yet checked, description of a `#[derive(Keyset)]` model.

use proc_macro2::{Span, TokenStream};
use syn::{Ident, Path, Type};

/// Declared direction of a key column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Asc,
    Desc,
}

/// Declared NULL placement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nulls {
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
    pub span: Span,
}

/// A field marked `#[keyset(..)]`.
pub struct KeyField {
    pub field: Field,
    pub direction: Option<Spanned<Direction>>,
    pub nulls: Option<Spanned<Nulls>>,
    pub unique: Option<Span>,
    /// Span of the whole `#[keyset(..)]` attribute.
    pub attr_span: Span,
}
