//! The byte budget over HTTP: pages of an attachments workspace cut by their JSON size.

use keyset_feed_server::{EventItem, NewEvent, Settings};

use crate::server::{get, FeedBackend, Server};

/// W5's attachments under a 5,000-byte budget at page size 20: pages of small
/// rows hold several rows, a row bigger than the budget comes alone, and the walk yields every
/// row once, in order.
pub fn byte_budget_pages_attachments<B: FeedBackend>() {
    let max_bytes = 5_000;
    let server = Server::start::<B>(Settings {
        max_bytes,
        ..Settings::default()
    });
    // The budget cuts rows already loaded, so the example bounds rows at write.
    let big = |size: usize| NewEvent {
        event_id: format!("big{size}"),
        workspace_id: "W5".to_string(),
        occurred_at: chrono::NaiveDate::from_ymd_opt(2026, 10, 12)
            .expect("date")
            .and_hms_opt(0, 0, 0)
            .expect("time"),
        message: "big".to_string(),
        attachment: Some("a".repeat(size)),
    };
    let refused = server
        .rt
        .block_on(
            server
                .db
                .insert_events(&[big(keyset_feed_server::MAX_ATTACHMENT_BYTES + 1)]),
        )
        .expect_err("over the limit");
    assert!(refused.to_string().contains("over the limit"), "{refused}");
    let client = reqwest::Client::new();
    let pages: Vec<Vec<EventItem>> = server.rt.block_on(async {
        let mut pages = Vec::new();
        let mut path = "/workspaces/W5/events?page_size=20".to_string();
        loop {
            let page = get(&client, &server.base, &path, Some("member-w5"))
                .await
                .page();
            pages.push(page.items);
            match page.next_cursor {
                Some(token) => path = format!("/workspaces/W5/events?cursor={token}"),
                None => break pages,
            }
        }
    });
    let lens = assert_pages_keep_the_budget(&pages, max_bytes);
    assert!(lens.contains(&1), "large rows come alone: {lens:?}");
    assert_every_attachment_row_once(pages);
}

/// The byte budget's rules on `pages` (the items of each page, in order) read under
/// `max_bytes` of JSON: a page of several rows keeps the budget, a row larger than the budget
/// comes alone, and small rows share pages. Returns the page lengths.
pub(crate) fn assert_pages_keep_the_budget(
    pages: &[Vec<EventItem>],
    max_bytes: usize,
) -> Vec<usize> {
    let size = |e: &EventItem| serde_json::to_vec(e).expect("JSON").len();
    for page in pages {
        let bytes: usize = page.iter().map(size).sum();
        assert!(
            page.len() == 1 || bytes <= max_bytes,
            "{bytes} bytes in {} rows",
            page.len()
        );
        if page.iter().any(|e| size(e) > max_bytes) {
            assert_eq!(page.len(), 1, "a row bigger than the budget comes alone");
        }
    }
    let lens: Vec<usize> = pages.iter().map(Vec::len).collect();
    assert!(
        lens.iter().any(|&n| n >= 2),
        "small rows share pages: {lens:?}"
    );
    lens
}

/// `pages` hold every row of `keyset_feed_server::attachment_rows()` once, in order.
pub(crate) fn assert_every_attachment_row_once(pages: Vec<Vec<EventItem>>) {
    let ids: Vec<String> = pages.into_iter().flatten().map(|e| e.id).collect();
    let expected: Vec<String> = keyset_feed_server::attachment_rows()
        .into_iter()
        .map(|e| e.event_id)
        .collect();
    assert_eq!(ids, expected, "every row once, in order");
}
