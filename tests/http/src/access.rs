//! Who reads what: tenants whose workspace names a collation calls equal stay apart, and the
//! demo's bearer tokens are random per member and kept hashed.

use keyset_diesel::web::PageResponse;
use keyset_feed_server::{EventItem, NewEvent, Settings};

use crate::server::{get, item_ids, token_for, FeedBackend, Server};

/// Two tenants whose workspace names differ only in case, accents or trailing
/// spaces (`W9` and `w9`, `Café` and `Cafe`, `Acme` and `Acme `). Each member reads only its
/// own workspace's events; on MariaDB the identifier columns were `utf8mb4_general_ci`, so the
/// filter `workspace_id = 'w9'` also matched `W9`'s events while Rust had authorized `w9`
/// byte for byte. The server now authorizes in SQL and filters by the workspace id the
/// membership row holds, the MySQL migrations give identifiers a NO PAD binary collation, and
/// an id with a space at either end is refused (404). `identifiers.rs` walks every alias.
pub fn tenants_apart_under_every_collation<B: FeedBackend>() {
    let server = Server::start::<B>(Settings::default());
    let client = reqwest::Client::new();
    let at = |s: u32| {
        chrono::NaiveDate::from_ymd_opt(2026, 10, 11)
            .expect("date")
            .and_hms_opt(12, 0, s)
            .expect("time")
    };
    let mut rows = Vec::new();
    for (n, workspace) in ["w9", "Cafe", "Caf\u{e9}", "Acme"].into_iter().enumerate() {
        let member = format!("member-{n}");
        server
            .rt
            .block_on(server.db.grant(&member, workspace))
            .expect("grant");
        server.issue_token(&member);
        for i in 0..2u32 {
            rows.push(NewEvent {
                event_id: format!("t{n}-{i}"),
                workspace_id: workspace.to_string(),
                occurred_at: at(i),
                message: format!("{workspace} event {i}"),
                attachment: None,
            });
        }
    }
    server
        .rt
        .block_on(server.db.insert_events(&rows))
        .expect("insert");
    server.rt.block_on(async {
        // `member-w9` reads W9's six seeded events and nothing of `w9`'s; `member-0` reads
        // `w9`'s two and nothing of W9's.
        for (member, path, expected) in [
            (
                "member-w9",
                "/workspaces/W9/events?page_size=50",
                vec!["e101", "e102", "e103", "e104", "e105", "e106"],
            ),
            (
                "member-0",
                "/workspaces/w9/events?page_size=50",
                vec!["t0-0", "t0-1"],
            ),
            (
                "member-1",
                "/workspaces/Cafe/events?page_size=50",
                vec!["t1-0", "t1-1"],
            ),
            (
                "member-2",
                "/workspaces/Caf%C3%A9/events?page_size=50",
                vec!["t2-0", "t2-1"],
            ),
            (
                "member-3",
                "/workspaces/Acme/events?page_size=50",
                vec!["t3-0", "t3-1"],
            ),
        ] {
            let answer = get(&client, &server.base, path, Some(member)).await;
            assert_eq!(answer.status, 200, "{member} {path}: {}", answer.body);
            let page: PageResponse<EventItem> = serde_json::from_str(&answer.body).expect("a page");
            assert_eq!(item_ids(&page), expected, "{member} {path}");
        }
        // A member of one never reads the other, however the name is spelled.
        for (member, path) in [
            ("member-0", "/workspaces/W9/events"),
            ("member-w9", "/workspaces/w9/events"),
            ("member-1", "/workspaces/Caf%C3%A9/events"),
            ("member-2", "/workspaces/Cafe/events"),
            ("member-3", "/workspaces/ACME/events"),
        ] {
            let answer = get(&client, &server.base, path, Some(member)).await;
            assert_eq!(answer.status, 404, "{member} {path}: {}", answer.body);
        }
        // A trailing space names no workspace at all: not canonical, 404.
        let answer = get(
            &client,
            &server.base,
            "/workspaces/Acme%20/events",
            Some("member-3"),
        )
        .await;
        assert_eq!(answer.status, 404, "{}", answer.body);
    });
}

/// The demo's bearer tokens are random per member and kept hashed. A member's
/// token reads its workspace; its name, the stored hash or a retired token are 401; a member
/// with a token and no membership gets the same 404 as a non-member. With the public demo
/// secret (no secret set, or the demo secret set explicitly, also as a rotated key) the server
/// listens only on loopback.
pub fn demo_bearer_tokens_are_random_and_hashed<B: FeedBackend>() {
    let server = Server::start::<B>(Settings::default());
    let client = reqwest::Client::new();
    let token = token_for(&server.base, "member-w9");
    assert_eq!(token.len(), 64, "32 random bytes, hex");
    assert_ne!(token, token_for(&server.base, "member-w7"));
    assert_eq!(
        server
            .rt
            .block_on(server.db.member_of_token(&token))
            .expect("lookup")
            .as_deref(),
        Some("member-w9")
    );
    let hash: String = {
        use sha2::{Digest, Sha256};
        Sha256::digest(token.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    };
    assert_eq!(
        server
            .rt
            .block_on(server.db.member_of_token(&hash))
            .expect("lookup"),
        None
    );
    let raw = |bearer: String| {
        let client = client.clone();
        let url = format!("{}/workspaces/W9/events", server.base);
        server.rt.block_on(async move {
            client
                .get(url)
                .header("Authorization", format!("Bearer {bearer}"))
                .send()
                .await
                .expect("answer")
                .status()
                .as_u16()
        })
    };
    assert_eq!(raw(token.clone()), 200);
    for refused in ["member-w9".to_string(), hash, String::new(), "x".repeat(64)] {
        assert_eq!(raw(refused.clone()), 401, "{refused:?}");
    }
    // A new token retires the old one.
    let fresh = server.issue_token("member-w9");
    assert_ne!(fresh, token);
    assert_eq!((raw(token), raw(fresh)), (401, 200));
    // A member without any membership: the same 404 as a member of another workspace.
    let lonely = server.issue_token("member-lonely");
    assert_eq!(raw(lonely), 404);
    assert_eq!(raw(token_for(&server.base, "member-w5")), 404);
    // The public demo secret only on loopback, whether the variables are unset or hold it.
    let at = |s: &str| s.parse::<std::net::SocketAddr>().expect("address");
    let demo = std::str::from_utf8(keyset_feed_server::feed::DEMO_SECRET).expect("ASCII");
    let own = "a secret of one's own, 32 bytes or more";
    for (vars, public_ok) in [
        (vec![], false),
        (vec![("KEYSET_TOKEN_SECRET", demo)], false),
        (
            vec![
                ("KEYSET_TOKEN_KEY_IDS", "2,1"),
                ("KEYSET_TOKEN_SECRET_2", own),
                ("KEYSET_TOKEN_SECRET_1", demo),
            ],
            false,
        ),
        (vec![("KEYSET_TOKEN_SECRET", own)], true),
    ] {
        let lookup = |name: &str| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| std::ffi::OsString::from(v))
        };
        let codec = keyset_feed_server::feed::codec_keys(lookup)
            .expect("keys")
            .build()
            .expect("codec");
        let check = |bind: &str| keyset_feed_server::check_bind(at(bind), &codec, lookup);
        assert!(check("127.0.0.1:3000").is_ok(), "{vars:?}");
        assert!(check("[::1]:3000").is_ok(), "{vars:?}");
        match check("0.0.0.0:3000") {
            Ok(()) => assert!(public_ok, "the demo secret on every interface: {vars:?}"),
            Err(refused) => {
                assert!(!public_ok, "{vars:?}: {refused}");
                assert!(refused.contains("KEYSET_TOKEN_SECRET"), "{refused}");
            }
        }
    }
}
