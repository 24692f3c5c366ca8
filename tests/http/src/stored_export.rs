//! The stored export over HTTP, on the async store: create, read page by page, end, and the
//! refusals of other members, other workspaces and other exports' tokens.

use keyset_feed_server::{feed, NewEvent, Settings};
use serde_json::Value;

use crate::server::{token_for, FeedBackend, Server};

/// The stored export over HTTP, on the async store. `POST .../exports` stores
/// W9's six events (201); its pages (page size 4, then the token) are the events in the
/// model's order, exactly, even after a new W9 event that sorts first; another member's
/// workspace is 404 for all three routes, an export read or ended under another workspace of
/// its member is 404, and a token of one export is refused for another;
/// `DELETE` ends it (204) and a read is then 410 `export_expired`; no bearer is 401.
pub fn stored_export_over_http<B: FeedBackend>() {
    let server = Server::start::<B>(Settings::default());
    let client = reqwest::Client::new();
    server.rt.block_on(async {
        let send = |method: reqwest::Method, path: String, member: Option<&str>| {
            let mut request = client.request(method, format!("{}{path}", server.base));
            if let Some(name) = member {
                request = request.header(
                    "Authorization",
                    format!("Bearer {}", token_for(&server.base, name)),
                );
            }
            async move {
                let response = request.send().await.expect("the server answers");
                let status = response.status().as_u16();
                let body = response.text().await.expect("a body");
                (status, body)
            }
        };
        let (status, body) = send(
            reqwest::Method::POST,
            "/workspaces/W9/exports".into(),
            Some("member-w9"),
        )
        .await;
        assert_eq!(status, 201, "{body}");
        let export: Value = serde_json::from_str(&body).expect("JSON");
        assert_eq!(export["rows"], 6, "{export}");
        let id = export["id"].as_str().expect("an id").to_string();
        let other = {
            let (status, body) = send(
                reqwest::Method::POST,
                "/workspaces/W9/exports".into(),
                Some("member-w9"),
            )
            .await;
            assert_eq!(status, 201, "{body}");
            serde_json::from_str::<Value>(&body).expect("JSON")["id"]
                .as_str()
                .expect("id")
                .to_string()
        };

        // W9 changes after creation: the export does not.
        server
            .db
            .insert_events(&[NewEvent {
                event_id: "e100".into(),
                workspace_id: "W9".into(),
                occurred_at: feed::feed_time("11:00:00"),
                message: "late".into(),
                attachment: None,
            }])
            .await
            .expect("insert");

        let mut ids = Vec::new();
        let mut token: Option<String> = None;
        let mut pages = 0;
        loop {
            let path = match &token {
                Some(t) => format!("/workspaces/W9/exports/{id}?page_size=4&cursor={t}"),
                None => format!("/workspaces/W9/exports/{id}?page_size=4"),
            };
            let (status, body) = send(reqwest::Method::GET, path, Some("member-w9")).await;
            assert_eq!(status, 200, "{body}");
            let page: Value = serde_json::from_str(&body).expect("JSON");
            assert_eq!(page["total"], 6);
            assert_eq!(page["first_position"], ids.len() as u64 + 1);
            for item in page["items"].as_array().expect("items") {
                ids.push(item["id"].as_str().expect("id").to_string());
            }
            pages += 1;
            match page["next_token"].as_str() {
                Some(next) => token = Some(next.to_string()),
                None => break,
            }
        }
        assert_eq!(pages, 2);
        assert_eq!(ids, ["e101", "e102", "e103", "e104", "e105", "e106"]);

        // Another member's workspace: 404 whatever the route; a token of one export for another.
        for (method, path) in [
            (reqwest::Method::POST, "/workspaces/W9/exports".to_string()),
            (reqwest::Method::GET, format!("/workspaces/W9/exports/{id}")),
            (
                reqwest::Method::DELETE,
                format!("/workspaces/W9/exports/{id}"),
            ),
        ] {
            let (status, body) = send(method.clone(), path.clone(), Some("member-w7")).await;
            assert_eq!(status, 404, "{method} {path}: {body}");
        }
        let (status, body) = send(
            reqwest::Method::GET,
            format!("/workspaces/W7/exports/{id}"),
            Some("member-w9"),
        )
        .await;
        assert_eq!(status, 404, "an export of W9 read as W7's: {body}");
        let (status, body) = send(
            reqwest::Method::DELETE,
            format!("/workspaces/W7/exports/{id}"),
            Some("member-w9"),
        )
        .await;
        assert_eq!(status, 404, "an export of W9 ended as W7's: {body}");
        let first = send(
            reqwest::Method::GET,
            format!("/workspaces/W9/exports/{id}?page_size=2"),
            Some("member-w9"),
        )
        .await;
        let first_token = serde_json::from_str::<Value>(&first.1).expect("JSON")["next_token"]
            .as_str()
            .expect("a token")
            .to_string();
        let (status, body) = send(
            reqwest::Method::GET,
            format!("/workspaces/W9/exports/{other}?page_size=2&cursor={first_token}"),
            Some("member-w9"),
        )
        .await;
        assert_eq!(status, 400, "{body}");
        assert!(!body.contains(&first_token), "the token is not echoed");
        let (status, _) = send(
            reqwest::Method::GET,
            format!("/workspaces/W9/exports/{id}"),
            None,
        )
        .await;
        assert_eq!(status, 401);
        // A query string that does not parse: 401 without a bearer, then a problem+json 400.
        let bad = format!("/workspaces/W9/exports/{id}?page_size=-1");
        let (status, _) = send(reqwest::Method::GET, bad.clone(), None).await;
        assert_eq!(status, 401, "authentication before the query string");
        let (status, body) = send(reqwest::Method::GET, bad, Some("member-w9")).await;
        assert_eq!(status, 400, "{body}");
        assert!(body.contains("query_invalid"), "{body}");

        // Ended: 204, then 410.
        let (status, body) = send(
            reqwest::Method::DELETE,
            format!("/workspaces/W9/exports/{id}"),
            Some("member-w9"),
        )
        .await;
        assert_eq!(status, 204, "{body}");
        let (status, body) = send(
            reqwest::Method::GET,
            format!("/workspaces/W9/exports/{id}"),
            Some("member-w9"),
        )
        .await;
        assert_eq!(status, 410, "{body}");
        assert!(body.contains("export_expired"), "{body}");
    });
}
