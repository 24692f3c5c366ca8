//! Every refusal as problem+json: damaged, expired and foreign tokens, bad page sizes
//! (400), a workspace the caller is no member of (404), no or an unknown bearer (401).

use std::sync::atomic::Ordering;

use keyset_feed_server::Settings;
use serde_json::Value;

use crate::server::{get, item_ids, FeedBackend, Server, TTL};

/// A tampered token, an expired one (the codec's clock moved on), one made for
/// W7, and page sizes `0`, `-1`, `abc` and one above the maximum: each a 400 problem+json,
/// with `restart_from_first_page` for the tokens only; the body never echoes the token.
/// A valid W9 token from a caller without W9 membership: 404; no or an unknown bearer: 401.
pub fn refusals_are_problem_json<B: FeedBackend>() {
    let server = Server::start::<B>(Settings::default());
    let client = reqwest::Client::new();
    server.rt.block_on(async {
        let base = &server.base;
        let first = get(
            &client,
            base,
            "/workspaces/W9/events?page_size=3",
            Some("member-w9"),
        )
        .await
        .page();
        let token = first.next_cursor.expect("a next page");
        let w7 = get(
            &client,
            base,
            "/workspaces/W7/events?page_size=2",
            Some("member-w9"),
        )
        .await
        .page();
        let w7_token = w7.next_cursor.expect("W7 has a next page");
        let mut tampered: Vec<char> = token.chars().collect();
        let middle = tampered.len() / 2;
        tampered[middle] = if tampered[middle] == 'A' { 'B' } else { 'A' };
        let tampered: String = tampered.into_iter().collect();

        // (request after the host, bearer, status, problem code, restart member, clock moved
        // past the token's lifetime, what is being refused)
        let w9 = |query: &str| format!("/workspaces/W9/events?{query}");
        let mut refusals = vec![
            (
                w9(&format!("cursor={tampered}")),
                Some("member-w9"),
                400,
                "cursor_invalid",
                true,
                false,
                "tampered".to_string(),
            ),
            (
                w9(&format!("cursor={w7_token}")),
                Some("member-w9"),
                400,
                "cursor_invalid",
                true,
                false,
                "a W7 token for W9".to_string(),
            ),
            (
                w9(&format!("cursor={token}")),
                Some("member-w9"),
                400,
                "cursor_expired",
                true,
                true,
                "expired".to_string(),
            ),
        ];
        for size in ["0", "-1", "abc", "101"] {
            refusals.push((
                w9(&format!("page_size={size}")),
                Some("member-w9"),
                400,
                "page_size_invalid",
                false,
                false,
                format!("page_size={size}"),
            ));
            refusals.push((
                w9(&format!("page_size={size}&cursor={token}")),
                Some("member-w9"),
                400,
                "page_size_invalid",
                false,
                false,
                format!("page_size={size} with a token"),
            ));
        }
        // Not a member of W9: 404, whether the workspace exists or not. No bearer, an unknown
        // one: 401.
        refusals.extend([
            (
                w9(&format!("cursor={token}")),
                Some("member-w7"),
                404,
                "not_found",
                false,
                false,
                "valid token, no membership".to_string(),
            ),
            (
                "/workspaces/W404/events".to_string(),
                Some("member-w9"),
                404,
                "not_found",
                false,
                false,
                "no such workspace".to_string(),
            ),
            (
                w9(&format!("cursor={token}")),
                None,
                401,
                "unauthorized",
                false,
                false,
                "no bearer".to_string(),
            ),
            (
                w9(""),
                Some("nobody"),
                401,
                "unauthorized",
                false,
                false,
                "unknown bearer".to_string(),
            ),
        ]);
        for (path, bearer, status, code, restart, expired, what) in refusals {
            let offset = if expired { TTL.as_secs() + 1 } else { 0 };
            server.clock_offset.store(offset, Ordering::SeqCst);
            let answer = get(&client, base, &path, bearer).await;
            assert_eq!(answer.status, status, "{what}: {}", answer.body);
            assert_eq!(answer.content_type, "application/problem+json", "{what}");
            assert_eq!(answer.cache_control.as_deref(), Some("no-store"), "{what}");
            // RFC 9110 15.5.2: a 401 carries a challenge; other problems do not.
            assert_eq!(
                answer.www_authenticate.as_deref(),
                (status == 401).then_some("Bearer"),
                "{what}"
            );
            let json = answer.json();
            assert_eq!(json["status"], status, "{what}");
            assert_eq!(json["code"], code, "{what}");
            assert_eq!(
                json["type"],
                format!("tag:keyset-diesel,2026:problem/{code}"),
                "{what}"
            );
            assert!(json["title"].is_string(), "{what}");
            assert_eq!(
                json.get("restart_from_first_page") == Some(&Value::Bool(true)),
                restart,
                "{what}: restart member"
            );
            for t in [&token, &tampered, &w7_token] {
                assert!(
                    !answer.body.contains(t.as_str()),
                    "{what}: the token is echoed"
                );
            }
        }
        server.clock_offset.store(0, Ordering::SeqCst);
        // The same token is still good for its caller.
        let next = get(
            &client,
            base,
            &w9(&format!("cursor={token}")),
            Some("member-w9"),
        )
        .await;
        assert_eq!(item_ids(&next.page()), ["e104", "e105", "e106"]);
    });
}
