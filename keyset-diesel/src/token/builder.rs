//! [`CursorCodecBuilder`]: the keys, time to live, clock skew, clock and length limit of a codec.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::codec::{CursorCodec, Inner};
use super::error::{CodecConfigError, EnvKeyError};
#[cfg(doc)]
use super::error::{CursorError, MIN_SECRET_LEN};
use super::keys::{self, Clock, SecretKey, SystemClock};
use super::{DEFAULT_MAX_TOKEN_LEN, DEFAULT_TTL};

impl CursorCodec {
    /// Starts a builder.
    pub fn builder() -> CursorCodecBuilder {
        CursorCodecBuilder::default()
    }
}

/// Builds a [`CursorCodec`].
#[derive(Default)]
pub struct CursorCodecBuilder {
    signing: Option<SecretKey>,
    verifying: Vec<SecretKey>,
    ttl: Option<Duration>,
    clock_skew: Option<Duration>,
    clock: Option<Box<dyn Clock>>,
    max_len: Option<usize>,
    #[cfg(feature = "encrypted-tokens")]
    encrypted: bool,
    #[cfg(feature = "encrypted-tokens")]
    sealed_len: Option<usize>,
}

impl fmt::Debug for CursorCodecBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CursorCodecBuilder").finish_non_exhaustive()
    }
}

impl CursorCodecBuilder {
    /// The key new tokens are signed with (also accepted when verifying).
    pub fn signing_key(mut self, key: SecretKey) -> Self {
        self.signing = Some(key);
        self
    }

    /// The signing key and the verifying keys from environment variables named after
    /// `prefix` (say `"APP_TOKEN"`):
    ///
    /// * `{prefix}_KEY_IDS` unset: `{prefix}_SECRET` is the signing key, with key id 1;
    /// * `{prefix}_KEY_IDS=2,1`: the key ids, the signing key's first, the others still
    ///   accepted when verifying (rotation); each secret in `{prefix}_SECRET_{id}`.
    ///
    /// A secret is the variable's bytes as they are (at least [`MIN_SECRET_LEN`]), or, after a
    /// `base64:` prefix, the bytes its base64 decodes to (standard or URL-safe alphabet, with
    /// or without padding): `APP_TOKEN_SECRET=base64:$(head -c 32 /dev/urandom | base64)`.
    ///
    /// ```
    /// use keyset_diesel::CursorCodec;
    /// # std::env::set_var("APP_TOKEN_KEY_IDS", "2,1");
    /// # std::env::set_var("APP_TOKEN_SECRET_2", "base64:c2VjcmV0IG51bWJlciB0d28sIDMyIGJ5dGVzIG9yIG1vcmU=");
    /// # std::env::set_var("APP_TOKEN_SECRET_1", "secret number one, 32 bytes or more");
    /// let codec = CursorCodec::builder().keys_from_env("APP_TOKEN")?.build()?;
    /// assert!(format!("{codec:?}").contains("signing_key_id: 2"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`EnvKeyError`], naming the variable (never its value): unset, bad base64, a bad id
    /// list, a secret too short.
    pub fn keys_from_env(self, prefix: &str) -> Result<Self, EnvKeyError> {
        self.keys_from_vars(prefix, |name| std::env::var_os(name))
    }

    /// Like [`CursorCodecBuilder::keys_from_env`], with the variables read by `lookup` (a
    /// configuration map, a secret store's client) instead of the process environment.
    ///
    /// # Errors
    /// As [`CursorCodecBuilder::keys_from_env`].
    pub fn keys_from_vars(
        mut self,
        prefix: &str,
        lookup: impl Fn(&str) -> Option<std::ffi::OsString>,
    ) -> Result<Self, EnvKeyError> {
        let mut keys = keys::keys_from_vars(prefix, lookup)?.into_iter();
        self.signing = keys.next();
        self.verifying.extend(keys);
        Ok(self)
    }

    /// A key still accepted when verifying, not used to sign (a key being rotated out).
    /// Remove it once its tokens have expired: its tokens then give
    /// [`CursorError::UnknownKeyId`].
    pub fn verifying_key(mut self, key: SecretKey) -> Self {
        self.verifying.push(key);
        self
    }

    /// How long a token stays valid after it was made (whole seconds; default one hour, at
    /// most [`CursorCodec::MAX_TTL`], 30 days). It also bounds tokens already issued: a token whose expiry
    /// lies further ahead than this time to live plus [`max_clock_skew`](Self::max_clock_skew)
    /// is refused ([`CursorError::LifetimeTooLong`]), so lowering it shortens every
    /// outstanding token.
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = Some(ttl);
        self
    }

    /// How far ahead of this server's clock another server's clock may run (default
    /// [`CursorCodec::DEFAULT_CLOCK_SKEW`], one minute; at most [`CursorCodec::MAX_CLOCK_SKEW`], one hour): a token is
    /// refused when its expiry is more than the time to live plus this skew ahead of now.
    pub fn max_clock_skew(mut self, skew: Duration) -> Self {
        self.clock_skew = Some(skew);
        self
    }

    /// The clock (default: the system clock). Tests use a fixed or movable one.
    pub fn clock(mut self, clock: impl Clock + 'static) -> Self {
        self.clock = Some(Box::new(clock));
        self
    }

    /// Longest token accepted, in characters (default [`DEFAULT_MAX_TOKEN_LEN`]).
    pub fn max_token_len(mut self, max: usize) -> Self {
        self.max_len = Some(max);
        self
    }

    /// Encrypt the payload as well (XChaCha20-Poly1305), so a client cannot read the key
    /// values. Tokens get format version 4.
    ///
    /// A sealed token's length still tells its payload's size class: every payload is padded
    /// to at least [`CursorCodec::DEFAULT_SEALED_SIZE_CLASS`] (256 bytes), then to a multiple
    /// of 128 bytes, so tokens of keys whose values encode to up to about 210 bytes all have
    /// one length, and a longer key tells its length to within 128 bytes. Set
    /// [`CursorCodecBuilder::sealed_size_class`] above your largest key to give every token
    /// one length.
    #[cfg(feature = "encrypted-tokens")]
    pub fn encrypted(mut self, encrypted: bool) -> Self {
        self.encrypted = encrypted;
        self
    }

    /// The size class of encrypted tokens: every sealed payload is padded to at least `bytes`
    /// (rounded up to 128), so tokens of every key up to that size have one length and tell
    /// nothing of their key values' lengths. A larger payload still grows by 128-byte blocks:
    /// pick a size above your largest key (about 60 bytes plus the key values' encoded size).
    /// Default [`CursorCodec::DEFAULT_SEALED_SIZE_CLASS`] (256); 0 pads to 128-byte blocks
    /// only (shorter tokens, whose length tells small keys' sizes to within 128 bytes). No
    /// effect on signed tokens.
    #[cfg(feature = "encrypted-tokens")]
    pub fn sealed_size_class(mut self, bytes: usize) -> Self {
        self.sealed_len = Some(bytes);
        self
    }

    /// The codec.
    ///
    /// # Errors
    /// [`CodecConfigError`]: no signing key, two keys with one id, a time to live of zero or
    /// above [`CursorCodec::MAX_TTL`], a clock skew above [`CursorCodec::MAX_CLOCK_SKEW`].
    pub fn build(self) -> Result<CursorCodec, CodecConfigError> {
        let signing = self.signing.ok_or(CodecConfigError::NoSigningKey)?;
        let mut ids = vec![signing.id];
        for key in &self.verifying {
            if ids.contains(&key.id) {
                return Err(CodecConfigError::DuplicateKeyId(key.id));
            }
            ids.push(key.id);
        }
        let ttl = self.ttl.unwrap_or(DEFAULT_TTL);
        if ttl.as_secs() == 0 {
            return Err(CodecConfigError::ZeroTtl);
        }
        if ttl > CursorCodec::MAX_TTL {
            return Err(CodecConfigError::TtlTooLong {
                max_secs: CursorCodec::MAX_TTL.as_secs(),
            });
        }
        let clock_skew = self.clock_skew.unwrap_or(CursorCodec::DEFAULT_CLOCK_SKEW);
        if clock_skew > CursorCodec::MAX_CLOCK_SKEW {
            return Err(CodecConfigError::ClockSkewTooLong {
                max_secs: CursorCodec::MAX_CLOCK_SKEW.as_secs(),
            });
        }
        Ok(CursorCodec {
            inner: Arc::new(Inner {
                signing,
                verifying: self.verifying,
                ttl,
                clock_skew,
                clock: self.clock.unwrap_or_else(|| Box::new(SystemClock)),
                max_len: self.max_len.unwrap_or(DEFAULT_MAX_TOKEN_LEN),
                #[cfg(feature = "encrypted-tokens")]
                encrypted: self.encrypted,
                #[cfg(feature = "encrypted-tokens")]
                sealed_len: self
                    .sealed_len
                    .unwrap_or(CursorCodec::DEFAULT_SEALED_SIZE_CLASS),
            }),
        })
    }
}
