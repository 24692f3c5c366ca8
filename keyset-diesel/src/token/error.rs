//! What can go wrong with tokens: reading one ([`CursorError`], the client's problem), making one
//! ([`EncodeError`]) and building a codec ([`CodecConfigError`]), the server's problems.
//!
//! This file imports nothing from its siblings; they all import it.

/// Shortest secret accepted, in bytes.
// Kept beside the error that states it, so that error.rs stays a leaf of the token module.
pub const MIN_SECRET_LEN: usize = 32;

/// Why a token was refused. Every variant means the same thing to the client: **restart from
/// the first page** (and to the API: answer the status of [`CursorError::http_status`]). The
/// `Display` text is safe to show a client: it names no secret and echoes nothing of the token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CursorError {
    /// Not a token: not base64url, too short, or a payload that does not parse into this
    /// keyset's key (wrong number or type of values, NULL for a NOT NULL column). HTTP 400.
    #[error("invalid cursor: not a cursor token; restart from the first page")]
    Malformed,
    /// Longer than the codec's maximum (checked before decoding). HTTP 400.
    #[error("invalid cursor: longer than {max} characters; restart from the first page")]
    TooLong {
        /// The maximum length, in characters.
        max: usize,
    },
    /// The signature does not verify: the token was altered or made elsewhere. HTTP 400.
    #[error("invalid cursor: signature does not verify; restart from the first page")]
    BadSignature,
    /// Signed with a key id this codec does not hold (a retired key). HTTP 400.
    #[error("invalid cursor: signed with a retired or unknown key; restart from the first page")]
    UnknownKeyId,
    /// A format version this codec does not read. HTTP 400.
    #[error("invalid cursor: unsupported format version; restart from the first page")]
    UnsupportedVersion,
    /// Expired at `expired_at` (Unix seconds). HTTP 400.
    #[error("invalid cursor: expired at {expired_at} (Unix seconds); restart from the first page")]
    Expired {
        /// When the token stopped being valid, in seconds since 1970-01-01T00:00:00Z.
        expired_at: u64,
    },
    /// Made for other filters (another scope). HTTP 400.
    #[error("invalid cursor: made for other filters; restart from the first page")]
    ScopeMismatch,
    /// Made for another ordering or model (another sort signature). HTTP 400.
    #[error("invalid cursor: made for another sort order; restart from the first page")]
    SortMismatch,
    /// The *server's* scope value did not serialize (a map with non-string keys, a failing
    /// `Serialize` impl): a bug on the server, not in the token. HTTP 500; restarting does not
    /// help.
    #[error("the server could not serialize the cursor scope")]
    ScopeNotSerializable,
}

impl CursorError {
    /// The HTTP status an API should answer: `400 Bad Request` for every variant about the
    /// token (the request carries a cursor the server will not use; the client restarts from
    /// the first page), `500` for [`CursorError::ScopeNotSerializable`] (a server bug).
    pub const fn http_status(&self) -> u16 {
        match self {
            CursorError::ScopeNotSerializable => 500,
            _ => 400,
        }
    }

    /// `true` when the client should drop the token and request the first page again: every
    /// variant about the token. `false` only for [`CursorError::ScopeNotSerializable`].
    pub const fn restart_from_first_page(&self) -> bool {
        !matches!(self, CursorError::ScopeNotSerializable)
    }
}

/// Why a token could not be made. A server problem, not a client error: HTTP 500.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// The scope (or a key value) did not serialize to JSON: a map with non-string keys, or a
    /// `Serialize` impl that fails.
    #[error("cursor scope cannot be serialized: {0}")]
    Scope(#[from] serde_json::Error),
    /// The token would be longer than the codec accepts back
    /// ([`CursorCodecBuilder::max_token_len`](super::CursorCodecBuilder::max_token_len)): the
    /// key values are too long (long text keys). Raise the maximum, or key on shorter columns.
    #[error("the cursor token would be {len} characters, more than the codec's maximum {max}")]
    TooLong {
        /// The token's length, in characters.
        len: usize,
        /// The codec's maximum.
        max: usize,
    },
}

/// Why a codec could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CodecConfigError {
    /// A secret shorter than [`MIN_SECRET_LEN`] bytes.
    #[error("secret key {id} is {len} bytes; at least {MIN_SECRET_LEN} are required")]
    SecretTooShort {
        /// The key id.
        id: u16,
        /// Its length in bytes.
        len: usize,
    },
    /// Two keys with the same id.
    #[error("two secret keys have the id {0}")]
    DuplicateKeyId(u16),
    /// No signing key was given.
    #[error("a cursor codec needs a signing key")]
    NoSigningKey,
    /// A time to live of zero.
    #[error("the time to live must be at least one second")]
    ZeroTtl,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every refusal of a token is a 400 that tells the client to restart, in words that say
    /// so; only the server's own scope failure is a 500 that restarting does not cure.
    #[test]
    fn every_token_error_means_restart_except_the_servers_own() {
        let about_the_token = [
            CursorError::Malformed,
            CursorError::TooLong { max: 2048 },
            CursorError::BadSignature,
            CursorError::UnknownKeyId,
            CursorError::UnsupportedVersion,
            CursorError::Expired { expired_at: 7 },
            CursorError::ScopeMismatch,
            CursorError::SortMismatch,
        ];
        for error in about_the_token {
            assert_eq!(error.http_status(), 400, "{error:?}");
            assert!(error.restart_from_first_page(), "{error:?}");
            let text = error.to_string();
            assert!(text.ends_with("; restart from the first page"), "{text}");
        }
        let server = CursorError::ScopeNotSerializable;
        assert_eq!(server.http_status(), 500);
        assert!(!server.restart_from_first_page());
        assert!(!server.to_string().contains("restart"));
    }

    #[test]
    fn config_errors_name_the_rule() {
        let short = CodecConfigError::SecretTooShort { id: 3, len: 5 };
        assert_eq!(
            short.to_string(),
            "secret key 3 is 5 bytes; at least 32 are required"
        );
    }
}
