//! Token chains over HTTP: the JSON `next_cursor` and the `Link` header walk the same pages,
//! `Link` both ways keeps the request's other parameters, and a named sort travels with the
//! token.

use keyset_feed_server::Settings;

use crate::server::{get, item_ids, link_target, FeedBackend, Server};

/// W9 at page size 3, following the JSON `next_cursor` in one walk and the
/// `Link` header in another: `[e101, e102, e103]`, then `[e104, e105, e106]`, then no token.
pub fn token_chain_walks_follow_next_cursor_and_link<B: FeedBackend>() {
    let server = Server::start::<B>(Settings::default());
    let client = reqwest::Client::new();
    let expected = [["e101", "e102", "e103"], ["e104", "e105", "e106"]];
    server.rt.block_on(async {
        // By next_cursor.
        let mut pages = Vec::new();
        let mut path = "/workspaces/W9/events?page_size=3".to_string();
        loop {
            let answer = get(&client, &server.base, &path, Some("member-w9")).await;
            let page = answer.page();
            assert_eq!(page.page_size, 3);
            assert!(
                page.end_cursor.is_some(),
                "the end cursor, the resume position, on every page"
            );
            pages.push(item_ids(&page));
            assert_eq!(page.has_more, page.next_cursor.is_some());
            let link = answer.link.as_deref().expect("a Link header on every page");
            assert_eq!(
                link_target(link, "next").is_some(),
                page.has_more,
                "rel=next iff a next page"
            );
            match page.next_cursor {
                Some(token) => path = format!("/workspaces/W9/events?page_size=3&cursor={token}"),
                None => break,
            }
            assert!(pages.len() < 10, "the walk ends");
        }
        assert_eq!(pages, expected);
        // By Link (which carries only the token: the page size comes with it).
        let mut pages = Vec::new();
        let mut path = "/workspaces/W9/events?page_size=3".to_string();
        loop {
            let answer = get(&client, &server.base, &path, Some("member-w9")).await;
            pages.push(item_ids(&answer.page()));
            match link_target(answer.link.as_deref().expect("Link"), "next") {
                Some(next) => path = next,
                None => break,
            }
            assert!(pages.len() < 10, "the walk ends");
        }
        assert_eq!(pages, expected);
    });
}

/// The `Link` header both ways. W9 at page size 2 with two parameters the
/// server ignores: `rel="next"` to the end, then `rel="prev"` back to the
/// first page. Each link is the request's URL with only the cursor changed (the other
/// parameters in their order, the page size kept), `rel="first"` is the URL without a cursor,
/// the JSON `links` carry the same URLs, and the rows of the prev walk are the next walk's.
pub fn link_headers_walk_next_to_the_end_and_prev_back<B: FeedBackend>() {
    let server = Server::start::<B>(Settings::default());
    let client = reqwest::Client::new();
    let start = "/workspaces/W9/events?view=full&page_size=2&lang=en%20GB";
    server.rt.block_on(async {
        let read = |path: String| {
            let client = &client;
            let base = &server.base;
            async move {
                let answer = get(client, base, &path, Some("member-w9")).await;
                let page = answer.page();
                let link = answer.link.clone().expect("a Link header on every page");
                let links = page.links.clone().expect("links in the body");
                for (rel, url) in [("next", &links.next), ("prev", &links.prev)] {
                    assert_eq!(link_target(&link, rel).as_ref(), url.as_ref(), "{link}");
                }
                assert_eq!(
                    link_target(&link, "first").as_deref(),
                    Some(start),
                    "{link}"
                );
                assert_eq!(links.first, start);
                // The first request has no cursor: the links add it last, and keep it there.
                for url in links.next.iter().chain(&links.prev) {
                    let token = url
                        .strip_prefix(&format!("{start}&cursor="))
                        .expect("the other parameters unchanged, in order");
                    assert!(!token.is_empty() && !token.contains('&'), "{url}");
                }
                (item_ids(&page), links)
            }
        };
        let mut forward = Vec::new();
        let mut path = start.to_string();
        let last = loop {
            let (ids, links) = read(path).await;
            assert_eq!(
                links.prev.is_some(),
                !forward.is_empty(),
                "prev iff not the first"
            );
            forward.push(ids);
            match links.next {
                Some(next) => path = next,
                None => break links,
            }
            assert!(forward.len() < 10, "the walk ends");
        };
        assert_eq!(
            forward,
            [["e101", "e102"], ["e103", "e104"], ["e105", "e106"]],
            "next to the end"
        );
        let mut backward = Vec::new();
        let mut prev = last.prev;
        while let Some(path) = prev {
            let (ids, links) = read(path).await;
            assert!(
                links.next.is_some(),
                "a page before the last has a next page"
            );
            backward.push(ids);
            prev = links.prev;
            assert!(backward.len() < 10, "the walk ends");
        }
        backward.reverse();
        assert_eq!(
            backward,
            forward[..forward.len() - 1],
            "prev back to the first page"
        );
        // A window: after e101, until (strictly before) e104. `next` and `first` keep the
        // window's end; `prev` reads the other way and drops it.
        let page = |path: String| {
            let client = &client;
            let base = &server.base;
            async move { get(client, base, &path, Some("member-w9")).await.page() }
        };
        let one = page("/workspaces/W9/events?page_size=1".into()).await;
        let four = page("/workspaces/W9/events?page_size=4".into()).await;
        let (after_e101, until) = (
            one.end_cursor.expect("e101"),
            four.end_cursor.expect("e104"),
        );
        let windowed = page(format!(
            "/workspaces/W9/events?page_size=10&cursor={after_e101}&until={until}"
        ))
        .await;
        assert_eq!(item_ids(&windowed), ["e102", "e103"], "the window");
        let links = windowed.links.expect("links");
        assert!(links.first.contains("&until="), "{links:?}");
        let prev = links.prev.expect("rows before the window's start");
        assert!(!prev.contains("until="), "{prev}");
    });
}

/// The sort travels with the token. `/feed?sort=newest` walks W9 newest first
/// through its `next` links (which keep `sort`); the same token without `?sort=` continues in
/// the token's sort; with `?sort=oldest` it is a 400 `sort_mismatch` (restart, no token in the
/// body); `?sort=oldest` alone pages oldest first; a token of `/events`, whose keyset orders
/// as `oldest` does, continues as `oldest`.
pub fn named_sort_travels_with_the_token<B: FeedBackend>() {
    let server = Server::start::<B>(Settings::default());
    let client = reqwest::Client::new();
    server.rt.block_on(async {
        let base = &server.base;
        let read = |path: String| {
            let client = &client;
            async move { get(client, base, &path, Some("member-w9")).await }
        };
        let mut pages = Vec::new();
        let mut path = "/workspaces/W9/feed?sort=newest&page_size=2".to_string();
        let mut second_token = None;
        loop {
            let page = read(path.clone()).await.page();
            if pages.len() == 1 {
                second_token = page.next_cursor.clone();
            }
            pages.push(item_ids(&page));
            match page.links.and_then(|l| l.next) {
                Some(next) => {
                    assert!(next.contains("sort=newest"), "{next}");
                    path = next;
                }
                None => break,
            }
            assert!(pages.len() < 10, "the walk ends");
        }
        assert_eq!(
            pages,
            [["e106", "e105"], ["e104", "e103"], ["e102", "e101"]],
            "newest first"
        );
        let token = second_token.expect("the second page has a next page");
        // No sort: the token's.
        let page = read(format!("/workspaces/W9/feed?cursor={token}"))
            .await
            .page();
        assert_eq!(item_ids(&page), ["e102", "e101"]);
        assert_eq!(page.page_size, 2, "the token's page size");
        // Another sort than the token's: its own problem.
        let refused = read(format!("/workspaces/W9/feed?sort=oldest&cursor={token}")).await;
        assert_eq!(refused.status, 400, "{}", refused.body);
        let json = refused.json();
        assert_eq!(json["code"], "sort_mismatch");
        assert_eq!(json["restart_from_first_page"], true);
        assert!(!refused.body.contains(&token), "the token is not echoed");
        // Oldest first on its own.
        let page = read("/workspaces/W9/feed?sort=oldest&page_size=2".into())
            .await
            .page();
        assert_eq!(item_ids(&page), ["e101", "e102"]);
        // A token of `/events` (the model's own keyset, `occurred_at ASC, event_id ASC`) is
        // one of `oldest` too: a sort signature names the ordering, not the Rust type.
        let events = read("/workspaces/W9/events?page_size=2".into())
            .await
            .page();
        let own = events.next_cursor.expect("more events");
        let page = read(format!("/workspaces/W9/feed?cursor={own}"))
            .await
            .page();
        assert_eq!(item_ids(&page), ["e103", "e104"]);
    });
}
