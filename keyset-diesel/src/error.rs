//! Errors of the query builder side (the token side has [`crate::CursorError`]).

/// Why a page query could not be built. `load_page` returns it inside
/// `diesel::result::Error::QueryBuilderError`, before any SQL runs; get it back with
/// [`KeysetError::from_diesel`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeysetError {
    /// The page size was 0. A page holds at least one row.
    #[error("invalid page size {0}: a page holds at least 1 row")]
    InvalidPageSize(u32),
    /// A boxed query already had an `ORDER BY`. Its order would be silently replaced by the
    /// keyset's, so it is refused: drop the `.order(..)` (the keyset supplies the order).
    #[error("the query already has an ORDER BY: remove .order(..), the keyset supplies the order")]
    AlreadyOrdered,
    /// A boxed query already had a `LIMIT` or `OFFSET`, which would cut pages wrongly: drop
    /// `.limit(..)` / `.offset(..)` and use `.page_size(n)`.
    #[error("the query already has a LIMIT or OFFSET: remove it and use .page_size(n)")]
    AlreadyLimited,
}

impl KeysetError {
    /// The `KeysetError` inside a Diesel error, if that is what it carries.
    pub fn from_diesel(error: &diesel::result::Error) -> Option<&KeysetError> {
        match error {
            diesel::result::Error::QueryBuilderError(inner) => inner.downcast_ref(),
            _ => None,
        }
    }
}

impl From<KeysetError> for diesel::result::Error {
    fn from(e: KeysetError) -> Self {
        diesel::result::Error::QueryBuilderError(Box::new(e))
    }
}
