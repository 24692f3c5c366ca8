//! Opaque, signed, versioned, expiring cursor tokens bound to the query: what a client carries
//! between requests instead of a [`Cursor`](crate::Cursor). [`CursorCodec`] (at the crate
//! root) turns cursors into tokens and back and documents the format and its guarantees; this
//! module holds its builder, keys, clock, scope digest and errors. Tokens know cursors and
//! keysets, never pages or HTTP (`crate::web` maps their errors to responses).

// The parts, lowest first: error.rs imports nothing of its siblings; keys.rs the errors;
// scope.rs the errors; wire.rs the keys and errors; builder.rs and codec.rs all of them.
// The byte layout is tabled in wire.rs.
mod builder;
mod codec;
mod error;
#[cfg(test)]
pub(crate) mod fixtures;
mod keys;
mod scope;
mod wire;

use std::time::Duration;

pub use self::builder::CursorCodecBuilder;
pub use self::codec::{CursorCodec, DecodedToken};
pub use self::error::{CodecConfigError, CursorError, EncodeError, EnvKeyError, MIN_SECRET_LEN};
pub use self::keys::{Clock, SecretKey, SystemClock};
pub use self::scope::{scope_digest, Unordered};

/// Default longest token accepted, in characters (checked before decoding anything): 6,144.
///
/// Enough for any key of up to 4 columns of which one is text of at most 1,000 characters
/// (any Unicode, control characters included: at most 4 bytes each), signed or encrypted (at
/// most about 5,750 characters), and short enough to send back in a URL query string: with
/// room for the path and other parameters, within the 8,000 octets HTTP (RFC 9110) recommends
/// every server and client support.
pub const DEFAULT_MAX_TOKEN_LEN: usize = 6144;
/// Default time to live of a token: one hour.
pub const DEFAULT_TTL: Duration = Duration::from_secs(3600);
