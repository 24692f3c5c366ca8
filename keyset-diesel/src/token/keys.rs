//! The codec's secrets ([`SecretKey`]) and its sense of time ([`Clock`]).

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use hmac::digest::generic_array::GenericArray;
use hmac::digest::FixedOutput;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use zeroize::Zeroizing;

use super::error::{CodecConfigError, MIN_SECRET_LEN};

pub(super) type HmacSha256 = Hmac<Sha256>;

/// A secret key for signing (and, encrypted, sealing) tokens, with the id written in tokens.
///
/// It keeps three keys derived from the secret (the MAC key, the scope key and the encryption
/// key), never the secret itself, and wipes them when dropped ([`zeroize::ZeroizeOnDrop`]). It
/// is deliberately not `Clone`: one copy of the key material per key.
///
/// What is not wiped: the HMAC-SHA256 state (the SHA-256 states after the MAC key's inner and
/// outer pads, enough to compute tags) is built on the stack for each token signed or verified
/// and dropped without wiping, as the `hmac` crate does not zeroize; likewise the cipher's key
/// schedule is built per token, but `chacha20` wipes it on drop. The secret you pass to
/// [`SecretKey::new`] stays yours to wipe.
pub struct SecretKey {
    pub(super) id: u16,
    /// The MAC key derived from the secret.
    pub(super) mac_key: Zeroizing<[u8; 32]>,
    /// The key of the keyed scope digest, derived from the secret.
    pub(super) scope_key: Zeroizing<[u8; 32]>,
    /// The encryption key derived from the secret.
    #[cfg(feature = "encrypted-tokens")]
    pub(super) enc: Zeroizing<[u8; 32]>,
}

// Every field that holds key material is `Zeroizing`.
impl zeroize::ZeroizeOnDrop for SecretKey {}

impl fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SecretKey")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl SecretKey {
    /// A key from `secret` (at least 32 bytes of high-entropy data: use a random value from
    /// your secret store, not a password). The MAC, scope and encryption keys are derived from
    /// it with HMAC-SHA256 under distinct labels.
    ///
    /// # Errors
    /// [`CodecConfigError::SecretTooShort`].
    pub fn new(id: u16, secret: &[u8]) -> Result<Self, CodecConfigError> {
        if secret.len() < MIN_SECRET_LEN {
            return Err(CodecConfigError::SecretTooShort {
                id,
                len: secret.len(),
            });
        }
        let derive = |label: &[u8]| -> Zeroizing<[u8; 32]> {
            let mut m =
                <HmacSha256 as Mac>::new_from_slice(secret).expect("HMAC takes any key length");
            m.update(label);
            let mut out = Zeroizing::new([0u8; 32]);
            // Straight into the wiped buffer, no copy on the way.
            FixedOutput::finalize_into(m, GenericArray::from_mut_slice(&mut out[..]));
            out
        };
        Ok(SecretKey {
            id,
            mac_key: derive(b"keyset-diesel token mac v1"),
            scope_key: derive(b"keyset-diesel token scope v2"),
            #[cfg(feature = "encrypted-tokens")]
            enc: derive(b"keyset-diesel token enc v1"),
        })
    }

    /// The key id written in tokens.
    pub fn id(&self) -> u16 {
        self.id
    }

    /// A fresh HMAC-SHA256 keyed with the MAC key.
    pub(super) fn mac(&self) -> HmacSha256 {
        <HmacSha256 as Mac>::new_from_slice(&self.mac_key[..]).expect("HMAC takes any key length")
    }
}

/// Where "now" comes from. Tests replace it; the default is the system clock.
pub trait Clock: Send + Sync {
    /// The current time.
    fn now(&self) -> SystemTime;
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }
}

impl<F: Fn() -> SystemTime + Send + Sync> Clock for F {
    fn now(&self) -> SystemTime {
        self()
    }
}

/// `t` in whole seconds since the Unix epoch; 0 for a time before it.
pub(super) fn unix_seconds(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::token::fixtures::{SECRET_A, SECRET_B};

    #[test]
    fn short_secrets_are_refused_and_debug_shows_no_secret() {
        assert_eq!(
            SecretKey::new(1, b"short").unwrap_err(),
            CodecConfigError::SecretTooShort { id: 1, len: 5 }
        );
        let debug = format!("{:?}", SecretKey::new(1, SECRET_A).unwrap());
        assert!(!debug.contains("0123"), "{debug}");
    }

    /// The MAC key is derived from the secret: two secrets give two MACs, one secret the same.
    #[test]
    fn the_mac_key_depends_on_the_secret_only() {
        let tag = |key: SecretKey| key.mac().chain_update(b"payload").finalize().into_bytes();
        let a = tag(SecretKey::new(1, SECRET_A).unwrap());
        assert_eq!(a, tag(SecretKey::new(9, SECRET_A).unwrap()));
        assert_ne!(a, tag(SecretKey::new(1, SECRET_B).unwrap()));
    }

    /// Issue 12 (6): the derived keys are wiped on drop. Before, `SecretKey` kept them in plain
    /// arrays and an HMAC state (this did not compile: no `ZeroizeOnDrop`).
    #[test]
    fn key_material_is_wiped_on_drop() {
        fn wiped_on_drop<T: zeroize::ZeroizeOnDrop>(_: &T) {}
        let key = SecretKey::new(1, SECRET_A).unwrap();
        wiped_on_drop(&key);
        wiped_on_drop(&key.mac_key);
        wiped_on_drop(&key.scope_key);
        // The three derived keys differ from each other and from the secret.
        assert_ne!(key.mac_key[..], key.scope_key[..]);
        assert_ne!(&key.mac_key[..], &SECRET_A[..32]);
    }

    #[test]
    fn a_closure_is_a_clock_and_time_before_the_epoch_is_zero() {
        let fixed = || UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        assert_eq!(unix_seconds(fixed.now()), 1_800_000_000);
        assert_eq!(unix_seconds(UNIX_EPOCH - Duration::from_secs(1)), 0);
        assert!(unix_seconds(SystemClock.now()) > 1_700_000_000);
    }
}
