//! The scope a token is bound to: the request's filters, reduced to one digest that does not
//! depend on how the same filters were written down.

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::error::EncodeError;

/// SHA-256 of the canonical JSON of `scope`, the digest tokens are bound to.
///
/// Canonical: objects (structs, maps) with their keys sorted and no insignificant white space,
/// so the same fields listed in another order give the same digest. Sequences and tuples keep
/// their order (`("alice", "bob")` is not `("bob", "alice")`). For a set-valued filter (an
/// `IN` list), wrap it in [`Unordered`]: its members are sorted and deduplicated, so
/// `Unordered(vec!["a", "d"])` and `Unordered(vec!["d", "a", "a"])` give the same digest.
///
/// Limits of JSON: non-finite floats serialize as `null` (so `Some(f64::NAN)` and `None`
/// collide: keep floats out of scopes) and map keys become strings (`{1: x}` and `{"1": x}`
/// collide).
///
/// # Errors
/// [`EncodeError`] when `scope` does not serialize to JSON.
pub fn scope_digest<S: Serialize + ?Sized>(scope: &S) -> Result<[u8; 32], EncodeError> {
    let value = serde_json::to_value(scope)?;
    let mut text = Vec::with_capacity(128);
    text.extend_from_slice(b"keyset-diesel scope v1\0");
    write_canonical(&value, &mut text)?;
    Ok(Sha256::digest(&text).into())
}

/// Writes the canonical JSON text of `value` (see [`scope_digest`]).
fn write_canonical(value: &serde_json::Value, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_unstable();
            out.push(b'{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                serde_json::to_writer(&mut *out, key)?;
                out.push(b':');
                write_canonical(&map[key], out)?;
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_canonical(item, out)?;
            }
            out.push(b']');
        }
        other => serde_json::to_writer(&mut *out, other)?,
    }
    Ok(())
}

/// A set-valued part of a scope (an `IN` list): serialized with its members sorted by their
/// canonical JSON and deduplicated, so the same set in any order, with repeats or not, gives
/// the same [`scope_digest`]. Plain `Vec`s, slices and tuples keep their order.
///
/// ```
/// use keyset_diesel::{scope_digest, Unordered};
/// let a = scope_digest(&("tasks", Unordered(vec!["a", "d"]))).unwrap();
/// let b = scope_digest(&("tasks", Unordered(vec!["d", "a", "a"]))).unwrap();
/// assert_eq!(a, b);
/// assert_ne!(scope_digest(&("a", "d")).unwrap(), scope_digest(&("d", "a")).unwrap());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Unordered<T>(pub Vec<T>);

impl<T: Serialize> Serialize for Unordered<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error as _, SerializeMap};
        let mut members = Vec::with_capacity(self.0.len());
        for member in &self.0 {
            let value = serde_json::to_value(member).map_err(S::Error::custom)?;
            let mut text = Vec::new();
            write_canonical(&value, &mut text).map_err(S::Error::custom)?;
            members.push((text, value));
        }
        members.sort_by(|a, b| a.0.cmp(&b.0));
        members.dedup_by(|a, b| a.0 == b.0);
        let mut map = serializer.serialize_map(Some(1))?;
        let values: Vec<&serde_json::Value> = members.iter().map(|m| &m.1).collect();
        map.serialize_entry("$unordered", &values)?;
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token::error::CursorError;
    use crate::token::fixtures::{codec, cursor, Row};

    #[test]
    fn scope_is_canonical_and_binding() {
        let codec = codec();
        #[derive(Serialize)]
        struct Filters<'a> {
            workspace: &'a str,
            status: Vec<&'a str>,
        }
        let scope = Filters {
            workspace: "W9",
            status: vec!["a", "d"],
        };
        let token = codec.encode(&cursor(), &scope).unwrap();
        // Same filters: another field order (a map).
        let same = serde_json::json!({"status": ["a", "d"], "workspace": "W9"});
        assert!(codec.decode::<Row>(&token, &same).is_ok());
        for other in [
            serde_json::json!({"status": ["a", "d"], "workspace": "W7"}),
            serde_json::json!({"status": ["a"], "workspace": "W9"}),
            serde_json::json!({"status": ["d", "a"], "workspace": "W9"}),
            serde_json::json!({"status": ["a", "d"], "workspace": "W9", "kind": "all"}),
            serde_json::json!(null),
        ] {
            assert_eq!(
                codec.decode::<Row>(&token, &other),
                Err(CursorError::ScopeMismatch)
            );
        }
        // Tuples keep their order: a token for ("alice", "bob") is not one for ("bob", "alice").
        let pair = codec.encode(&cursor(), &("alice", "bob")).unwrap();
        for other in [("bob", "alice"), ("alice", "alice")] {
            assert_eq!(
                codec.decode::<Row>(&pair, &other),
                Err(CursorError::ScopeMismatch)
            );
        }
        // Sets are explicit: `Unordered` ignores order and repeats.
        let set = codec
            .encode(&cursor(), &("W9", Unordered(vec!["a", "d"])))
            .unwrap();
        assert!(codec
            .decode::<Row>(&set, &("W9", Unordered(vec!["d", "a", "a"])))
            .is_ok());
        assert_eq!(
            codec.decode::<Row>(&set, &("W9", vec!["a", "d"])),
            Err(CursorError::ScopeMismatch)
        );
    }

    #[test]
    fn a_scope_that_does_not_serialize_is_a_server_error() {
        let codec = codec();
        let token = codec.encode(&cursor(), &"W9").unwrap();
        let mut map = std::collections::HashMap::new();
        map.insert((1, 2), "not a JSON object key");
        let error = codec.decode::<Row>(&token, &map).unwrap_err();
        assert_eq!(error, CursorError::ScopeNotSerializable);
        assert_eq!(error.http_status(), 500);
        assert!(!error.restart_from_first_page());
        assert!(matches!(
            codec.encode(&cursor(), &map),
            Err(EncodeError::Scope(_))
        ));
    }

    /// The canonical text itself: keys sorted at every depth, no white space, arrays in order.
    #[test]
    fn canonical_json_sorts_keys_at_every_depth() {
        let value = serde_json::json!({"b": [2, {"z": 1, "a": null}], "a": "x y"});
        let mut text = Vec::new();
        write_canonical(&value, &mut text).unwrap();
        assert_eq!(
            String::from_utf8(text).unwrap(),
            r#"{"a":"x y","b":[2,{"a":null,"z":1}]}"#
        );
    }
}
