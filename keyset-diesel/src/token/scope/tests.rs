//! Scope digests: which filters bind a token, and which changes refuse it.

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde::Serialize;

use super::*;
use crate::token::error::CursorError;
use crate::token::fixtures::{codec, cursor, Row, SECRET_A, SECRET_B};

#[test]
fn scope_is_canonical_and_binding() {
    let codec = codec();
    #[derive(Serialize)]
    struct Filters<'a> {
        workspace: &'a str,
        status: Vec<&'a str>,
    }
    #[derive(Serialize)]
    #[serde(rename = "Filters")]
    struct Reordered<'a> {
        status: Vec<&'a str>,
        workspace: &'a str,
    }
    let scope = Filters {
        workspace: "W9",
        status: vec!["a", "d"],
    };
    let token = codec.encode(&cursor(), &scope).unwrap();
    // Same filters: the same struct with its fields declared in another order.
    let same = Reordered {
        status: vec!["a", "d"],
        workspace: "W9",
    };
    assert!(codec.decode::<Row>(&token, &same).is_ok());
    // A map is not a struct (a map's entries are not a struct's fields): the same entries as a map are another scope.
    for other in [
        serde_json::json!({"status": ["a", "d"], "workspace": "W9"}),
        serde_json::json!({"status": ["a", "d"], "workspace": "W7"}),
        serde_json::json!(null),
    ] {
        assert_eq!(
            codec.decode::<Row>(&token, &other),
            Err(CursorError::ScopeMismatch)
        );
    }
    // Maps in any order are one map.
    let map_token = codec
        .encode(&cursor(), &serde_json::json!({"b": 1, "a": 2}))
        .unwrap();
    let reversed: BTreeMap<&str, i32> = [("b", 1), ("a", 2)].into_iter().collect();
    assert!(codec.decode::<Row>(&map_token, &reversed).is_ok());
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

/// A `#[serde(flatten)]` map holding a field of the outer struct is an error
/// at encode and at decode. Before, JSON kept the later value: a W7 token passed for W9.
#[test]
fn duplicate_keys_are_refused_not_picked() {
    #[derive(Serialize)]
    struct Scope {
        workspace: &'static str,
        #[serde(flatten)]
        extra: BTreeMap<&'static str, &'static str>,
    }
    let dup = Scope {
        workspace: "W9",
        extra: [("workspace", "W7")].into_iter().collect(),
    };
    let codec = codec();
    match codec.encode(&cursor(), &dup) {
        Err(EncodeError::Scope(text)) => assert!(text.contains("\"workspace\""), "{text}"),
        other => panic!("expected a scope error, got {other:?}"),
    }
    let w7 = codec
        .encode(&cursor(), &serde_json::json!({"workspace": "W7"}))
        .unwrap();
    assert_eq!(
        codec.decode::<Row>(&w7, &dup),
        Err(CursorError::ScopeNotSerializable)
    );
    // Without the clash, flatten is fine.
    let fine = Scope {
        workspace: "W9",
        extra: [("kind", "all")].into_iter().collect(),
    };
    assert!(scope_digest(&fine).is_ok());
}

#[test]
fn a_scope_that_does_not_serialize_is_a_server_error() {
    struct Failing;
    impl Serialize for Failing {
        fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
            Err(serde::ser::Error::custom("no"))
        }
    }
    let codec = codec();
    let token = codec.encode(&cursor(), &"W9").unwrap();
    let error = codec.decode::<Row>(&token, &Failing).unwrap_err();
    assert_eq!(error, CursorError::ScopeNotSerializable);
    assert!(!error.restart_from_first_page());
    assert!(matches!(
        codec.encode(&cursor(), &Failing),
        Err(EncodeError::Scope(_))
    ));
}

/// What JSON conflated. Before, each pair shared a digest.
#[test]
fn types_and_the_set_tag_are_kept() {
    #[derive(Serialize)]
    enum Kind {
        All,
    }
    #[derive(Serialize)]
    struct Pair {
        a: i32,
    }
    #[derive(Serialize)]
    #[serde(rename = "$keyset_diesel::Unordered")]
    struct Impostor(Vec<&'static str>);
    let d = |s: &dyn erased::Scope| s.digest();
    let pairs: Vec<(Box<dyn erased::Scope>, Box<dyn erased::Scope>)> = vec![
        (
            Box::new(Unordered(vec!["d", "a"])),
            Box::new(serde_json::json!({"$unordered": ["a", "d"]})),
        ),
        (
            Box::new(Unordered(vec!["d", "a"])),
            Box::new(Impostor(vec!["a", "d"])),
        ),
        (Box::new(Kind::All), Box::new("All")),
        (
            Box::new(Pair { a: 1 }),
            Box::new(serde_json::json!({"a": 1})),
        ),
        (Box::new(None::<()>), Box::new(())),
        (
            Box::new(BTreeMap::from([(1, "x")])),
            Box::new(BTreeMap::from([("1", "x")])),
        ),
        (Box::new(Some(f64::NAN)), Box::new(None::<f64>)),
        (Box::new(vec!["ab"]), Box::new(vec!["a", "b"])),
    ];
    for (a, b) in &pairs {
        assert_ne!(d(&**a), d(&**b));
    }
    // One integer whatever its type; a char is a one-character string.
    assert_eq!(d(&5u8), d(&5i64));
    assert_eq!(d(&'x'), d(&"x"));
}

/// Tokens carry a digest keyed with the secret, not the plain SHA-256 of
/// the scope. Before, the payload held `scope_digest(scope)` itself, so anyone with a
/// leaked token could test guesses of its filters.
#[test]
fn the_scope_digest_in_tokens_is_keyed() {
    let scope = serde_json::json!({"kind": "all", "workspace": "W9"});
    let a = keyed_scope_digest(&SecretKey::new(1, SECRET_A).unwrap(), &scope).unwrap();
    let b = keyed_scope_digest(&SecretKey::new(1, SECRET_B).unwrap(), &scope).unwrap();
    assert_ne!(a, b);
    let plain = scope_digest(&scope).unwrap();
    assert_ne!(a[..], plain[..16]);
    // The token's payload holds the keyed digest (bytes 3+16 .. 3+32 of a signed token).
    let token = codec().encode(&cursor(), &scope).unwrap();
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(token)
        .unwrap();
    assert_eq!(bytes[19..35], a);
}

/// Type-erased scopes for the tests (`Serialize` is not object safe).
mod erased {
    pub trait Scope {
        fn digest(&self) -> [u8; 32];
    }
    impl<T: serde::Serialize> Scope for T {
        fn digest(&self) -> [u8; 32] {
            super::scope_digest(self).unwrap()
        }
    }
}

/// A generated scope value of every kind a scope may hold: maps (string or integer keys),
/// structs, enum variants, options, unit, sequences, sets, strings and integers.
#[derive(Debug, Clone, PartialEq, Serialize)]
enum Value {
    Str(String),
    Int(i64),
    Unit,
    None,
    Some(Box<Value>),
    Seq(Vec<Value>),
    Set(Unordered<Value>),
    StrMap(BTreeMap<String, Value>),
    IntMap(BTreeMap<i64, Value>),
    Struct {
        workspace: Box<Value>,
        kind: Box<Value>,
    },
    UnitVariant,
}

/// The value as it serializes, not as the enum wraps it: each variant's content alone.
#[derive(Debug, Clone, PartialEq)]
struct Bare(Value);

impl Serialize for Bare {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        #[serde(rename = "Filters")]
        struct Filters<'a> {
            workspace: &'a Bare,
            kind: &'a Bare,
        }
        #[derive(Serialize)]
        enum Kind {
            All,
        }
        match &self.0 {
            Value::Str(v) => v.serialize(s),
            Value::Int(v) => v.serialize(s),
            Value::Unit => ().serialize(s),
            Value::None => None::<()>.serialize(s),
            Value::Some(v) => Some(Bare((**v).clone())).serialize(s),
            Value::Seq(v) => v
                .iter()
                .map(|v| Bare(v.clone()))
                .collect::<Vec<_>>()
                .serialize(s),
            Value::Set(v) => Unordered(v.0.iter().map(|v| Bare(v.clone())).collect()).serialize(s),
            Value::StrMap(m) => m
                .iter()
                .map(|(k, v)| (k, Bare(v.clone())))
                .collect::<BTreeMap<_, _>>()
                .serialize(s),
            Value::IntMap(m) => m
                .iter()
                .map(|(k, v)| (k, Bare(v.clone())))
                .collect::<BTreeMap<_, _>>()
                .serialize(s),
            Value::Struct { workspace, kind } => Filters {
                workspace: &Bare((**workspace).clone()),
                kind: &Bare((**kind).clone()),
            }
            .serialize(s),
            Value::UnitVariant => Kind::All.serialize(s),
        }
    }
}

/// Equality of scopes as the digest should see it: sets compared as sorted, deduplicated
/// lists (by their own canonical order), everything else structurally.
fn normalize(v: &Value) -> Value {
    match v {
        Value::Some(v) => Value::Some(Box::new(normalize(v))),
        Value::Seq(items) => Value::Seq(items.iter().map(normalize).collect()),
        Value::Set(items) => {
            let mut items: Vec<(Vec<u8>, Value)> = items
                .0
                .iter()
                .map(|v| {
                    let n = normalize(v);
                    (canonical(&Bare(n.clone())).unwrap(), n)
                })
                .collect();
            items.sort_by(|a, b| a.0.cmp(&b.0));
            items.dedup_by(|a, b| a.0 == b.0);
            Value::Set(Unordered(items.into_iter().map(|i| i.1).collect()))
        }
        Value::StrMap(m) => {
            Value::StrMap(m.iter().map(|(k, v)| (k.clone(), normalize(v))).collect())
        }
        // An empty map has no keys to tell their type.
        Value::IntMap(m) if m.is_empty() => Value::StrMap(BTreeMap::new()),
        Value::IntMap(m) => Value::IntMap(m.iter().map(|(k, v)| (*k, normalize(v))).collect()),
        Value::Struct { workspace, kind } => Value::Struct {
            workspace: Box::new(normalize(workspace)),
            kind: Box::new(normalize(kind)),
        },
        other => other.clone(),
    }
}

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        prop_oneof![
            Just("W7"),
            Just("W9"),
            Just("All"),
            Just("1"),
            Just(""),
            Just("$unordered")
        ]
        .prop_map(|s| Value::Str(s.to_string())),
        (0i64..3).prop_map(Value::Int),
        Just(Value::Unit),
        Just(Value::None),
        Just(Value::UnitVariant),
    ];
    leaf.prop_recursive(3, 16, 3, |inner| {
        let key = prop_oneof![
            Just("workspace"),
            Just("kind"),
            Just("1"),
            Just("$unordered")
        ]
        .prop_map(str::to_string);
        prop_oneof![
            inner.clone().prop_map(|v| Value::Some(Box::new(v))),
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Seq),
            prop::collection::vec(inner.clone(), 0..3).prop_map(|v| Value::Set(Unordered(v))),
            prop::collection::btree_map(key, inner.clone(), 0..3).prop_map(Value::StrMap),
            prop::collection::btree_map(0i64..3, inner.clone(), 0..3).prop_map(Value::IntMap),
            (inner.clone(), inner).prop_map(|(w, k)| Value::Struct {
                workspace: Box::new(w),
                kind: Box::new(k),
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, failure_persistence: None, ..ProptestConfig::default() })]

    /// Two scopes that differ (maps vs structs, variants vs strings, `None` vs `()`,
    /// integer vs string keys, sets vs sequences vs maps with a `$unordered` key, order of
    /// sequences) never share a digest; two that are the same (sets in another order or
    /// with repeats) always do.
    #[test]
    fn distinct_scopes_never_share_a_digest(a in value(), b in value()) {
        let (da, db) = (scope_digest(&Bare(a.clone())).unwrap(), scope_digest(&Bare(b.clone())).unwrap());
        prop_assert_eq!(da == db, normalize(&a) == normalize(&b), "{:?} / {:?}", a, b);
    }
}
