//! The activity feed the examples serve: the `events` table, its keyset, the rows of
//! workspaces W9 and W7, and the token codec's keys. Shared by the `activity_feed` and
//! `feed_server` examples.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use keyset_diesel::token::{CursorCodecBuilder, EnvKeyError, SecretKey};
use keyset_diesel::Keyset;

diesel::table! {
    events (event_id) {
        event_id -> Text,
        workspace_id -> Text,
        occurred_at -> Timestamp,
        message -> Text,
        attachment -> Nullable<Text>,
    }
}

diesel::table! {
    memberships (member, workspace_id) {
        member -> Text,
        workspace_id -> Text,
    }
}

/// One feed event. The keyset: `occurred_at ASC, event_id ASC` (event_id is the primary key,
/// so it is the unique tie-breaker). Two named sorts a request may choose (`?sort=newest` or
/// `?sort=oldest`): row types `EventByNewest` and `EventByOldest`, enum `EventSort` (with the
/// `graphql` feature also the GraphQL enum `EventSort { NEWEST OLDEST }`).
#[derive(Debug, Clone, Queryable, Selectable, Keyset)]
#[diesel(table_name = events)]
#[keyset(sort(
    Newest(occurred_at(desc), event_id(desc)),
    Oldest(occurred_at(asc), event_id(asc))
))]
#[cfg_attr(feature = "graphql", keyset(graphql_sort))]
pub struct Event {
    pub workspace_id: String,
    #[keyset(asc)]
    pub occurred_at: NaiveDateTime,
    #[keyset(asc, unique)]
    pub event_id: String,
    pub message: String,
    pub attachment: Option<String>,
}

/// A row to insert.
#[derive(Debug, Clone, Insertable)]
#[diesel(table_name = events)]
pub struct NewEvent {
    pub event_id: String,
    pub workspace_id: String,
    pub occurred_at: NaiveDateTime,
    pub message: String,
    pub attachment: Option<String>,
}

/// (event id, workspace, time on 2026-10-10 UTC, message)
pub const FEED: &[(&str, &str, &str, &str)] = &[
    ("e101", "W9", "12:00:01", "Ada created the workspace"),
    ("e102", "W9", "12:00:02", "Ada invited Grace"),
    ("e103", "W9", "12:00:02", "Ada invited Linus"),
    ("e104", "W9", "12:00:02", "Ada invited Barbara"),
    ("e105", "W9", "12:00:03", "Grace joined"),
    ("e106", "W9", "12:00:04", "Grace uploaded report.pdf"),
    ("e201", "W7", "12:00:01", "Ken created the workspace"),
    ("e202", "W7", "12:00:02", "Ken invited Dennis"),
    ("e203", "W7", "12:00:03", "Dennis joined"),
];

/// 2026-10-10 at `time` (`HH:MM:SS`), UTC.
pub fn feed_time(time: &str) -> NaiveDateTime {
    NaiveDateTime::parse_from_str(&format!("2026-10-10 {time}"), "%F %T")
        .expect("the feed's times are valid")
}

/// The rows of [`FEED`], without attachments.
pub fn feed_rows() -> Vec<NewEvent> {
    FEED.iter()
        .map(|&(id, ws, time, message)| NewEvent {
            event_id: id.to_string(),
            workspace_id: ws.to_string(),
            occurred_at: feed_time(time),
            message: message.to_string(),
            attachment: None,
        })
        .collect()
}

/// The prefix of the token key variables: `KEYSET_TOKEN_SECRET` (raw bytes, or `base64:...`;
/// key id 1), or `KEYSET_TOKEN_KEY_IDS=2,1` with `KEYSET_TOKEN_SECRET_2`, `KEYSET_TOKEN_SECRET_1`
/// for rotation ([`CursorCodecBuilder::keys_from_env`]).
pub const TOKEN_ENV: &str = "KEYSET_TOKEN";

/// The demo's fixed secret, used only when no token key variable is set. Public: it is in
/// this file.
pub const DEMO_SECRET: &[u8] = b"demo secret, public: set KEYSET_TOKEN_SECRET instead";

/// The codec builder with the keys from the variables `lookup` reads (the process
/// environment in the examples); when none is set, the demo secret and a loud warning on
/// standard error. A variable that is set but unusable (too short, bad base64) is an error.
pub fn codec_keys(
    lookup: impl Fn(&str) -> Option<std::ffi::OsString>,
) -> Result<CursorCodecBuilder, EnvKeyError> {
    let unset = |name: &str| lookup(name).is_none();
    if unset(&format!("{TOKEN_ENV}_SECRET")) && unset(&format!("{TOKEN_ENV}_KEY_IDS")) {
        eprintln!(
            "WARNING: {TOKEN_ENV}_SECRET is not set: tokens are signed with the example's \
             PUBLIC demo secret, which anyone can read in its source and use to forge \
             tokens. Never run it so outside this demo."
        );
        let key = SecretKey::new(1, DEMO_SECRET).expect("the demo secret is long enough");
        return Ok(keyset_diesel::CursorCodec::builder().signing_key(key));
    }
    keyset_diesel::CursorCodec::builder().keys_from_vars(TOKEN_ENV, lookup)
}

/// Whether `codec` accepts tokens signed with the public [`DEMO_SECRET`]: under any key id the
/// variables `lookup` reads name (`KEYSET_TOKEN_KEY_IDS`, else key id 1), as its signing or
/// a verifying key. True for the fallback of [`codec_keys`] (no variable set) and for a
/// variable set to the demo secret itself, raw or as `base64:...`; anyone can forge such a
/// codec's tokens. Decided by the codec itself: a token the demo secret signs under each of
/// those key ids, decoded by `codec`.
pub fn accepts_demo_secret(
    codec: &keyset_diesel::CursorCodec,
    lookup: impl Fn(&str) -> Option<std::ffi::OsString>,
) -> bool {
    let ids: Vec<u16> = match lookup(&format!("{TOKEN_ENV}_KEY_IDS")) {
        None => vec![1],
        Some(list) => list
            .to_string_lossy()
            .split(',')
            .filter_map(|id| id.trim().parse().ok())
            .collect(),
    };
    let probe = ("demo secret probe",);
    let cursor = keyset_diesel::Cursor::<Event>::after((feed_time("00:00:00"), String::new()));
    ids.into_iter().any(|id| {
        let Ok(key) = SecretKey::new(id, DEMO_SECRET) else {
            return false;
        };
        let Ok(demo) = keyset_diesel::CursorCodec::builder()
            .signing_key(key)
            .build()
        else {
            return false;
        };
        demo.encode(&cursor, &probe)
            .is_ok_and(|token| codec.decode::<Event>(&token, &probe).is_ok())
    })
}

#[cfg(test)]
mod feed_tests {
    use super::*;
    use std::ffi::OsString;

    fn env(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<OsString> {
        move |name| {
            pairs
                .iter()
                .find(|p| p.0 == name)
                .map(|p| OsString::from(p.1))
        }
    }

    /// A set but unusable secret stops the example; only an unset one falls back to the demo
    /// secret.
    #[test]
    fn the_secret_comes_from_the_environment_and_is_checked() {
        let demo = codec_keys(env(&[])).unwrap().build().unwrap();
        assert!(format!("{demo:?}").contains("signing_key_id: 1"));
        let short = codec_keys(env(&[("KEYSET_TOKEN_SECRET", "short")])).unwrap_err();
        assert!(short.to_string().contains("at least 32"), "{short}");
        let rotated = codec_keys(env(&[
            ("KEYSET_TOKEN_KEY_IDS", "3,1"),
            (
                "KEYSET_TOKEN_SECRET_3",
                "base64:c2VjcmV0IG51bWJlciB0aHJlZSwgMzIgYnl0ZXMgb3IgbW9yZQ",
            ),
            (
                "KEYSET_TOKEN_SECRET_1",
                "secret number one, 32 bytes or more",
            ),
        ]))
        .unwrap()
        .build()
        .unwrap();
        assert!(format!("{rotated:?}").contains("signing_key_id: 3"));
    }

    /// The demo secret is recognised however it reaches the codec: unset variables, the
    /// secret set explicitly (raw or base64), or among rotated keys; a secret of one's own is
    /// not taken for it.
    #[test]
    fn the_demo_secret_is_recognised_however_it_is_set() {
        let demo = std::str::from_utf8(DEMO_SECRET).expect("ASCII");
        let demo_b64 =
            "base64:ZGVtbyBzZWNyZXQsIHB1YmxpYzogc2V0IEtFWVNFVF9UT0tFTl9TRUNSRVQgaW5zdGVhZA";
        let own = "a secret of one's own, 32 bytes or more";
        let cases: Vec<(Vec<(&str, &str)>, bool)> = vec![
            (vec![], true),
            (vec![("KEYSET_TOKEN_SECRET", demo)], true),
            (vec![("KEYSET_TOKEN_SECRET", demo_b64)], true),
            (vec![("KEYSET_TOKEN_SECRET", own)], false),
            (
                vec![
                    ("KEYSET_TOKEN_KEY_IDS", "2,1"),
                    ("KEYSET_TOKEN_SECRET_2", own),
                    ("KEYSET_TOKEN_SECRET_1", demo),
                ],
                true,
            ),
            (
                vec![
                    ("KEYSET_TOKEN_KEY_IDS", "7"),
                    ("KEYSET_TOKEN_SECRET_7", demo),
                ],
                true,
            ),
            (
                vec![
                    ("KEYSET_TOKEN_KEY_IDS", "7"),
                    ("KEYSET_TOKEN_SECRET_7", own),
                ],
                false,
            ),
        ];
        for (vars, expected) in cases {
            let lookup = |name: &str| {
                vars.iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| OsString::from(v))
            };
            let codec = codec_keys(lookup).unwrap().build().unwrap();
            assert_eq!(accepts_demo_secret(&codec, lookup), expected, "{vars:?}");
        }
    }
}
