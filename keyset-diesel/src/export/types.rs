//! What the stored export returns: an export as created ([`Export`]), a page of it
//! ([`ExportPage`]), what a purge removed ([`Purged`]), and why a request failed
//! ([`ExportError`]).

use crate::page_size::PageSizeError;
use crate::token::{CursorError, EncodeError};

#[cfg(doc)]
use super::{ExportStore, MAX_EXPORT_LIFETIME, MAX_EXPORT_ROWS};

/// A stored export, as [`ExportStore::create`] made it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Export {
    /// The export's id (32 hex digits, random): the URL path segment of the API.
    pub id: String,
    /// How many rows it holds.
    pub rows: u64,
    /// When it was created, in Unix seconds.
    pub created_at: u64,
    /// When it expires, in Unix seconds.
    pub expires_at: u64,
}

/// A page of a stored export.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportPage<T> {
    /// The rows, in the export's order.
    pub items: Vec<T>,
    /// The token of the next page, `None` at the end of the export.
    pub next_token: Option<String>,
    /// The position (1-based) of the first item in the export.
    pub first_position: u64,
    /// How many rows the export holds.
    pub total: u64,
    /// When the export expires, in Unix seconds.
    pub expires_at: u64,
}

/// What [`ExportStore::purge_expired`] removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Purged {
    /// Exports removed.
    pub exports: usize,
    /// Stored rows removed.
    pub rows: usize,
}

/// Why an export or its page could not be served.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    /// No export with this id under this scope (never made, purged, or another scope's). An
    /// API answers each variant as [`Problem`](crate::web::Problem) tables it (404 here).
    #[error("no such export")]
    Unknown,
    /// The export expired (and is not purged yet): 410 Gone; the client creates a new one.
    #[error("the export expired at {expired_at} (Unix seconds)")]
    Expired {
        /// When the export expired, in Unix seconds.
        expired_at: u64,
    },
    /// The page token was refused (see [`CursorError`], made for another export included):
    /// its status, 400 (500 for a server-side scope error).
    #[error(transparent)]
    Cursor(#[from] CursorError),
    /// A page size of 0: 400.
    #[error("invalid page size 0")]
    InvalidPageSize,
    /// A page size above the store's maximum ([`ExportStore::page_sizes`]): 400.
    #[error(transparent)]
    PageSize(#[from] PageSizeError),
    /// The store's lifetime is 0 or longer than its maximum ([`ExportStore::max_lifetime`],
    /// default [`MAX_EXPORT_LIFETIME`]), refused by [`ExportStore::create`] before anything is
    /// stored (a lifetime the purge never reaches would keep the rows forever): 500, a
    /// configuration error.
    #[error("export lifetime of {requested_secs} s is not within 1 s ..= {max_secs} s")]
    InvalidLifetime {
        /// The store's lifetime, in seconds.
        requested_secs: u64,
        /// The longest allowed, in seconds.
        max_secs: u64,
    },
    /// The query selects more rows than the store's [`ExportStore::max_rows`] (default
    /// [`MAX_EXPORT_ROWS`]): [`ExportStore::create`] refuses before it stores a row past the
    /// limit, and nothing is stored (the transaction rolls back). 422 `export_too_large`; the
    /// client narrows what it exports.
    #[error("the export would hold more than {limit} rows")]
    TooManyRows {
        /// The store's limit, in rows.
        limit: u64,
    },
    /// The database failed: 500.
    #[error("export storage: {0}")]
    Database(#[from] diesel::result::Error),
    /// A row did not serialize (creating) or a stored row does not deserialize into the
    /// requested type (reading): 500.
    #[error("export row (de)serialization: {0}")]
    Serde(#[from] serde_json::Error),
    /// A token or the scope digest could not be made: 500.
    #[error(transparent)]
    Encode(#[from] EncodeError),
    /// The operating system gave no randomness for the export id: 500.
    #[error("no randomness for the export id: {0}")]
    Random(getrandom::Error),
}
