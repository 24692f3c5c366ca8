//! What can go wrong with tokens: reading one ([`CursorError`], the client's problem), making one
//! ([`EncodeError`]) and building a codec ([`CodecConfigError`]), the server's problems.
//!
//! This file imports nothing from its siblings; they all import it.

/// Shortest secret accepted, in bytes.
// Kept beside the error that states it, so that error.rs stays a leaf of the token module.
pub const MIN_SECRET_LEN: usize = 32;

/// Why a token was refused. Every variant about the token means the same thing to the client:
/// **restart from the first page** ([`CursorError::restart_from_first_page`]); an API answers
/// each with the same status and text, and a code that is `cursor_expired` for an expired
/// token and `cursor_invalid` for all others ([`Problem`](crate::web::Problem) is that table).
///
/// The variants and their `Display` texts are for **server logs**: they tell apart an unknown
/// key id from a bad signature, which a client must not learn (it would let anyone enumerate
/// the configured key ids). Never send `Display` to a client.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CursorError {
    /// Not a token: not base64url, too short, or a payload that does not parse into this
    /// keyset's key (wrong number or type of values, NULL for a NOT NULL column).
    #[error("invalid cursor: not a cursor token")]
    Malformed,
    /// Longer than the codec's maximum (checked before decoding).
    #[error("invalid cursor: longer than {max} characters")]
    TooLong {
        /// The maximum length, in characters.
        max: usize,
    },
    /// The signature does not verify: the token was altered or made elsewhere.
    #[error("invalid cursor: signature does not verify")]
    BadSignature,
    /// Signed with a key id this codec does not hold (a retired key).
    #[error("invalid cursor: signed with a retired or unknown key")]
    UnknownKeyId,
    /// A format version this codec does not read.
    #[error("invalid cursor: unsupported format version")]
    UnsupportedVersion,
    /// Expired at `expired_at` (Unix seconds). Code `cursor_expired`.
    #[error("expired cursor: expired at {expired_at} (Unix seconds)")]
    Expired {
        /// When the token stopped being valid, in seconds since 1970-01-01T00:00:00Z.
        expired_at: u64,
    },
    /// Its expiry lies further ahead than this codec's time to live plus the allowed clock
    /// skew: made under a longer time to live than the one now configured (lowered after an
    /// incident), or by a server whose clock ran fast. Code `cursor_expired`.
    #[error("expired cursor: its expiry {expires_at} is more than the time to live ahead")]
    LifetimeTooLong {
        /// The token's expiry, in Unix seconds.
        expires_at: u64,
    },
    /// Made for other filters (another scope).
    #[error("invalid cursor: made for other filters")]
    ScopeMismatch,
    /// Made for another ordering or model (another sort signature).
    #[error("invalid cursor: made for another sort order")]
    SortMismatch,
    /// The *server's* scope value has no canonical form (its `Serialize` impl fails, or a map
    /// or struct in it has the same key twice): a bug on the server, not in the token. HTTP 500,
    /// code `internal_error`; restarting does not help.
    #[error("the server could not serialize the cursor scope")]
    ScopeNotSerializable,
}

impl CursorError {
    /// `true` when the client should drop the token and request the first page again: every
    /// variant about the token. `false` only for [`CursorError::ScopeNotSerializable`], a
    /// server bug that restarting does not cure.
    pub const fn restart_from_first_page(&self) -> bool {
        !matches!(self, CursorError::ScopeNotSerializable)
    }
}

/// Why a token could not be made: a server problem, not a client error (an API answers 500,
/// [`Problem`](crate::web::Problem)).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// The scope has no canonical form: its `Serialize` impl fails, or a map or struct in it has
    /// the same key twice.
    #[error("cursor scope cannot be serialized: {0}")]
    Scope(String),
    /// The key values did not serialize (a failing `Serialize` impl of a key value type), or
    /// one is never a key ([`KeyValue::check_key`](crate::query::KeyValue::check_key): a NaN
    /// in a cursor built by hand).
    #[error("cursor key values cannot be serialized: {0}")]
    Key(String),
    /// The token would be longer than the codec accepts back
    /// ([`CursorCodecBuilder::max_token_len`](super::CursorCodecBuilder::max_token_len))
    /// because its key values are long: an unbounded text key. With the default maximum, any
    /// key of up to 4 columns of which one is text of at most 1,000 characters fits; bound the
    /// text column (`varchar(1000)`) or raise the maximum.
    #[error(
        "the cursor token would be {len} characters, more than the codec's maximum {max}: \
         its key values take {key_bytes} bytes (a long text key); bound the key's text column \
         (varchar(1000) always fits) or raise max_token_len"
    )]
    TooLong {
        /// The token's length, in characters.
        len: usize,
        /// The codec's maximum.
        max: usize,
        /// The encoded key values, in bytes: what made it long.
        key_bytes: usize,
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
    /// A time to live above the maximum ([`CursorCodec::MAX_TTL`](super::CursorCodec::MAX_TTL), 30 days).
    #[error("the time to live must be at most {max_secs} seconds")]
    TtlTooLong {
        /// The maximum, in seconds.
        max_secs: u64,
    },
    /// A clock skew above the maximum ([`CursorCodec::MAX_CLOCK_SKEW`](super::CursorCodec::MAX_CLOCK_SKEW), one hour).
    #[error("the allowed clock skew must be at most {max_secs} seconds")]
    ClockSkewTooLong {
        /// The maximum, in seconds.
        max_secs: u64,
    },
}

/// Why the codec's keys could not be read from the environment
/// ([`CursorCodecBuilder::keys_from_env`](super::CursorCodecBuilder::keys_from_env)). The
/// texts name the variable, never its value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EnvKeyError {
    /// The variable is not set.
    #[error("{var} is not set")]
    NotSet {
        /// The variable's name.
        var: String,
    },
    /// A `base64:` value that is not base64 (standard or URL-safe alphabet, padded or not).
    #[error("{var} starts with `base64:` but the rest is not base64")]
    NotBase64 {
        /// The variable's name.
        var: String,
    },
    /// The key id list is not a comma-separated list of distinct integers 0 to 65535.
    #[error("{var} must list key ids (0 to 65535) separated by commas, the signing key's first")]
    BadKeyIds {
        /// The variable's name.
        var: String,
    },
    /// A value that is not Unicode, on a platform whose environment is not bytes (Windows).
    #[error("{var} is not valid Unicode")]
    NotUnicode {
        /// The variable's name.
        var: String,
    },
    /// The secret was read but is not a key ([`CodecConfigError::SecretTooShort`]).
    #[error("{var}: {source}")]
    Key {
        /// The variable's name.
        var: String,
        /// Why the key was refused.
        source: CodecConfigError,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every refusal of a token tells the client to restart; only the server's own scope
    /// failure does not.
    #[test]
    fn every_token_error_means_restart_except_the_servers_own() {
        for error in [
            CursorError::Malformed,
            CursorError::TooLong { max: 2048 },
            CursorError::BadSignature,
            CursorError::UnknownKeyId,
            CursorError::UnsupportedVersion,
            CursorError::Expired { expired_at: 7 },
            CursorError::LifetimeTooLong { expires_at: 9 },
            CursorError::ScopeMismatch,
            CursorError::SortMismatch,
        ] {
            assert!(error.restart_from_first_page(), "{error:?}");
        }
        assert!(!CursorError::ScopeNotSerializable.restart_from_first_page());
    }

    #[test]
    fn messages_name_the_rule() {
        let short = CodecConfigError::SecretTooShort { id: 3, len: 5 };
        assert_eq!(
            short.to_string(),
            "secret key 3 is 5 bytes; at least 32 are required"
        );
        let e = EncodeError::TooLong {
            len: 7000,
            max: 6144,
            key_bytes: 6000,
        };
        assert!(e.to_string().contains("6000 bytes"), "{e}");
        // The logs tell a retired key from a bad signature (a client never sees either).
        assert_ne!(
            CursorError::UnknownKeyId.to_string(),
            CursorError::BadSignature.to_string()
        );
    }
}
