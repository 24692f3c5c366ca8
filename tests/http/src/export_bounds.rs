//! What one request to the stored exports may cost over HTTP: an export page keeps the
//! server's byte budget, an export over the row limit is 422, and a creation past the
//! concurrent ones is 503 with `Retry-After`, never queued.

use keyset_feed_server::{EventItem, Settings};
use serde_json::Value;

use crate::byte_budget::{assert_every_attachment_row_once, assert_pages_keep_the_budget};
use crate::server::{token_for, FeedBackend, Server};

/// One request's answer: status, `Content-Type`, `Retry-After`, body.
struct Reply {
    status: u16,
    content_type: String,
    retry_after: Option<String>,
    body: String,
}

/// Sends `method path` as `member` to `server`.
async fn send(server: &Server, method: reqwest::Method, path: &str, member: &str) -> Reply {
    let response = reqwest::Client::new()
        .request(method, format!("{}{path}", server.base))
        .header(
            "Authorization",
            format!("Bearer {}", token_for(&server.base, member)),
        )
        .send()
        .await
        .expect("the server answers");
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .map(|v| v.to_str().expect("ASCII header").to_string())
    };
    let (content_type, retry_after) = (
        header("content-type").unwrap_or_default(),
        header("retry-after"),
    );
    let status = response.status().as_u16();
    let body = response.text().await.expect("a body");
    Reply {
        status,
        content_type,
        retry_after,
        body,
    }
}

/// An export of W5's attachments (rows of 10 bytes to 9 KB) read at page size 1,000 under a
/// 5,000-byte budget: every page holds at most 5,000 bytes of item JSON or one row, a row
/// bigger than the budget comes alone, and the pages yield every row once, in order, as the
/// live pages do.
pub fn export_pages_keep_the_byte_budget<B: FeedBackend>() {
    let max_bytes = 5_000;
    let server = Server::start::<B>(Settings {
        max_bytes,
        ..Settings::default()
    });
    let pages: Vec<Vec<EventItem>> = server.rt.block_on(async {
        let created = send(
            &server,
            reqwest::Method::POST,
            "/workspaces/W5/exports",
            "member-w5",
        )
        .await;
        assert_eq!(created.status, 201, "{}", created.body);
        let id = serde_json::from_str::<Value>(&created.body).expect("JSON")["id"]
            .as_str()
            .expect("an id")
            .to_string();
        let mut pages = Vec::new();
        let mut path = format!("/workspaces/W5/exports/{id}?page_size=1000");
        loop {
            let page = send(&server, reqwest::Method::GET, &path, "member-w5").await;
            assert_eq!(page.status, 200, "{}", page.body);
            let page: Value = serde_json::from_str(&page.body).expect("JSON");
            pages.push(serde_json::from_value(page["items"].clone()).expect("items"));
            match page["next_token"].as_str() {
                Some(token) => {
                    path = format!("/workspaces/W5/exports/{id}?page_size=1000&cursor={token}");
                }
                None => break pages,
            }
        }
    });
    assert_pages_keep_the_budget(&pages, max_bytes);
    assert_every_attachment_row_once(pages);
}

/// Export creation refusals. With at most 6 rows an export: W5 (12 rows) is 422
/// `export_too_large` (the limit in `detail`), W9 (6 rows) is created. Two creations may run at
/// once: with one slot held by the test, and after the refused one gave its slot back, a
/// creation still runs; with both held, it is 503 `busy` with `Retry-After: 5` at once; once
/// they are free again, it is created.
pub fn export_creation_refusals_are_422_and_503<B: FeedBackend>() {
    let server = Server::start::<B>(Settings {
        max_export_rows: 6,
        ..Settings::default()
    });
    let post = |workspace: &str, member: &str| {
        let path = format!("/workspaces/{workspace}/exports");
        server
            .rt
            .block_on(send(&server, reqwest::Method::POST, &path, member))
    };
    let too_large = post("W5", "member-w5");
    assert_eq!(too_large.status, 422, "{}", too_large.body);
    assert_eq!(too_large.content_type, "application/problem+json");
    let problem: Value = serde_json::from_str(&too_large.body).expect("JSON");
    assert_eq!(problem["code"], "export_too_large", "{problem}");
    assert_eq!(
        problem["detail"], "an export holds at most 6 rows",
        "{problem}"
    );

    let one = server
        .export_slots
        .clone()
        .try_acquire_owned()
        .expect("a free slot");
    let created = post("W9", "member-w9");
    assert_eq!(created.status, 201, "{}", created.body);
    assert_eq!(
        serde_json::from_str::<Value>(&created.body).expect("JSON")["rows"],
        6
    );

    let two = server
        .export_slots
        .clone()
        .try_acquire_owned()
        .expect("the second slot is free again");
    let busy = post("W9", "member-w9");
    assert_eq!(busy.status, 503, "{}", busy.body);
    assert_eq!(busy.content_type, "application/problem+json");
    assert_eq!(busy.retry_after.as_deref(), Some("5"));
    let problem: Value = serde_json::from_str(&busy.body).expect("JSON");
    assert_eq!(problem["code"], "busy", "{problem}");
    // Authorization before the slots: another member's workspace is 404, busy or not.
    assert_eq!(post("W9", "member-w7").status, 404);

    drop((one, two));
    let created = post("W9", "member-w9");
    assert_eq!(created.status, 201, "{}", created.body);
}
