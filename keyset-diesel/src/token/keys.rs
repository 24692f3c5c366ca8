//! The codec's secrets ([`SecretKey`]) and its sense of time ([`Clock`]).

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use hmac::digest::generic_array::GenericArray;
use hmac::digest::FixedOutput;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use zeroize::Zeroizing;

use super::error::{CodecConfigError, EnvKeyError, MIN_SECRET_LEN};

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

/// The secret bytes of the variable `var` whose value is `value`: after a `base64:` prefix,
/// the decoded base64 (standard or URL-safe alphabet, with or without padding); otherwise the
/// value's own bytes (as the OS gives them on Unix, so not necessarily UTF-8).
pub(super) fn secret_bytes(
    var: &str,
    value: std::ffi::OsString,
) -> Result<Zeroizing<Vec<u8>>, EnvKeyError> {
    use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
    use base64::Engine as _;

    #[cfg(unix)]
    let raw = Zeroizing::new(std::os::unix::ffi::OsStringExt::into_vec(value));
    #[cfg(not(unix))]
    let raw = Zeroizing::new(
        value
            .into_string()
            .map_err(|_| EnvKeyError::NotUnicode {
                var: var.to_string(),
            })?
            .into_bytes(),
    );
    let Some(encoded) = raw.strip_prefix(b"base64:") else {
        return Ok(raw);
    };
    let encoded = encoded.trim_ascii();
    [STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD]
        .iter()
        .find_map(|engine| engine.decode(encoded).ok())
        .map(Zeroizing::new)
        .ok_or_else(|| EnvKeyError::NotBase64 {
            var: var.to_string(),
        })
}

/// The keys named by the variables under `prefix`, read with `lookup`: the signing key first.
/// See [`CursorCodecBuilder::keys_from_env`](super::CursorCodecBuilder::keys_from_env).
pub(super) fn keys_from_vars(
    prefix: &str,
    lookup: impl Fn(&str) -> Option<std::ffi::OsString>,
) -> Result<Vec<SecretKey>, EnvKeyError> {
    let ids_var = format!("{prefix}_KEY_IDS");
    let named: Vec<(u16, String)> = match lookup(&ids_var) {
        None => vec![(1, format!("{prefix}_SECRET"))],
        Some(list) => {
            let bad = || EnvKeyError::BadKeyIds {
                var: ids_var.clone(),
            };
            let list = list.into_string().map_err(|_| bad())?;
            let mut ids: Vec<u16> = Vec::new();
            for part in list.split(',') {
                let id: u16 = part.trim().parse().map_err(|_| bad())?;
                if ids.contains(&id) {
                    return Err(bad());
                }
                ids.push(id);
            }
            ids.into_iter()
                .map(|id| (id, format!("{prefix}_SECRET_{id}")))
                .collect()
        }
    };
    named
        .into_iter()
        .map(|(id, var)| {
            let value = lookup(&var).ok_or_else(|| EnvKeyError::NotSet { var: var.clone() })?;
            let secret = secret_bytes(&var, value)?;
            SecretKey::new(id, &secret).map_err(|source| EnvKeyError::Key { var, source })
        })
        .collect()
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
    use base64::engine::general_purpose::URL_SAFE_NO_PAD as URL_SAFE_NO_PAD_ENGINE;
    use base64::Engine as _;

    const SECRET_A_STR: &str = "a secret of 32 bytes, or more....";

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

    /// The derived keys are wiped on drop. Before, `SecretKey` kept them in plain
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

    fn vars<'a>(
        pairs: &'a [(&'a str, &'a str)],
    ) -> impl Fn(&str) -> Option<std::ffi::OsString> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| std::ffi::OsString::from(v))
        }
    }

    fn ids(keys: &[SecretKey]) -> Vec<u16> {
        keys.iter().map(SecretKey::id).collect()
    }

    #[test]
    fn keys_from_the_environment_raw_or_base64_with_ids_for_rotation() {
        // One secret, raw: key id 1.
        let raw = "a raw secret of thirty-two bytes or more";
        let keys = keys_from_vars("TOK", vars(&[("TOK_SECRET", raw)])).unwrap();
        assert_eq!(ids(&keys), [1]);
        let direct = SecretKey::new(1, raw.as_bytes()).unwrap();
        assert_eq!(keys[0].mac_key[..], direct.mac_key[..]);
        // base64 (URL-safe, unpadded) of the same bytes: the same key.
        let b64 = format!("base64:{}", URL_SAFE_NO_PAD_ENGINE.encode(raw));
        let keys = keys_from_vars("TOK", vars(&[("TOK_SECRET", &b64)])).unwrap();
        assert_eq!(keys[0].mac_key[..], direct.mac_key[..]);
        // Rotation: the first id signs, the others verify.
        let env = [
            ("TOK_KEY_IDS", "7, 3"),
            ("TOK_SECRET_7", "the new secret, thirty-two bytes or more"),
            ("TOK_SECRET_3", "the old secret, thirty-two bytes or more"),
        ];
        assert_eq!(ids(&keys_from_vars("TOK", vars(&env)).unwrap()), [7, 3]);
    }

    #[test]
    fn env_key_errors_name_the_variable_not_the_value() {
        let err = |env: &[(&str, &str)]| keys_from_vars("TOK", vars(env)).unwrap_err();
        assert_eq!(
            err(&[]),
            EnvKeyError::NotSet {
                var: "TOK_SECRET".into()
            }
        );
        let e = err(&[("TOK_SECRET", "base64:not base64!!")]);
        assert_eq!(
            e,
            EnvKeyError::NotBase64 {
                var: "TOK_SECRET".into()
            }
        );
        assert!(!e.to_string().contains("not base64!!"));
        let short = err(&[("TOK_SECRET", "short secret")]);
        assert!(matches!(short, EnvKeyError::Key { .. }), "{short:?}");
        assert!(!short.to_string().contains("short secret"), "{short}");
        for list in ["", "1,x", "70000", "2,2"] {
            assert_eq!(
                err(&[("TOK_KEY_IDS", list)]),
                EnvKeyError::BadKeyIds {
                    var: "TOK_KEY_IDS".into()
                },
                "{list:?}"
            );
        }
        assert_eq!(
            err(&[("TOK_KEY_IDS", "2,1"), ("TOK_SECRET_2", SECRET_A_STR)]),
            EnvKeyError::NotSet {
                var: "TOK_SECRET_1".into()
            }
        );
    }

    #[test]
    fn a_closure_is_a_clock_and_time_before_the_epoch_is_zero() {
        let fixed = || UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        assert_eq!(unix_seconds(fixed.now()), 1_800_000_000);
        assert_eq!(unix_seconds(UNIX_EPOCH - Duration::from_secs(1)), 0);
        assert!(unix_seconds(SystemClock.now()) > 1_700_000_000);
    }
}
