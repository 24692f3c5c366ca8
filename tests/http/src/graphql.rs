//! The GraphQL endpoint (`POST /graphql`): a Relay connection walked both ways, and its
//! errors carrying the REST problem's code.

use keyset_feed_server::Settings;
use serde_json::Value;

use crate::server::{token_for, FeedBackend, Server};

/// POST a GraphQL document with `variables` to `/graphql` as member `bearer`: the status and
/// the JSON body.
pub(crate) async fn graphql(
    client: &reqwest::Client,
    base: &str,
    bearer: Option<&str>,
    query: &str,
    variables: Value,
) -> (u16, Value) {
    let mut request = client
        .post(format!("{base}/graphql"))
        .json(&serde_json::json!({ "query": query, "variables": variables }));
    if let Some(name) = bearer {
        let token = token_for(base, name);
        request = request.header("Authorization", format!("Bearer {token}"));
    }
    let response = request.send().await.expect("the server answers");
    let status = response.status().as_u16();
    (status, response.json().await.expect("a JSON body"))
}

const EVENTS_DOCUMENT: &str =
    "query($w: String!, $first: Int, $after: String, $last: Int, $before: String) {
  events(workspace: $w, first: $first, after: $after, last: $last, before: $before) {
    edges { cursor node { id occurredAt message } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  }
}";

/// `POST /graphql` with the example's Relay schema. W9 `first: 2` walks forward by
/// `endCursor` to the end, then `last: 2, before: startCursor` walks back to the start, both
/// equal to the plain order, with exact `hasNextPage`/`hasPreviousPage` and `startCursor` /
/// `endCursor` the first and last edges' cursors; `totalCount` when asked; both `first` and
/// `last`, a count over the policy's maximum, a damaged cursor and another member's workspace
/// are errors whose `extensions.code` is the REST problem's, with no token in the body; no
/// bearer is a 401.
pub fn graphql_relay_connection_walks_both_ways<B: FeedBackend>() {
    let server = Server::start::<B>(Settings::default());
    let client = reqwest::Client::new();
    server.rt.block_on(async {
        let base = &server.base;
        let events = |variables: Value| {
            let client = &client;
            async move {
                let (status, body) =
                    graphql(client, base, Some("member-w9"), EVENTS_DOCUMENT, variables).await;
                assert_eq!(status, 200, "{body}");
                assert!(body["errors"].is_null(), "{body}");
                body["data"]["events"].clone()
            }
        };
        let ids = |connection: &Value| -> Vec<String> {
            connection["edges"]
                .as_array()
                .expect("edges")
                .iter()
                .map(|e| e["node"]["id"].as_str().expect("id").to_string())
                .collect()
        };
        let mut forward = Vec::new();
        let mut after = Value::Null;
        let mut first_row = Value::Null;
        // The last page's `endCursor`: after the last row.
        let last_row = loop {
            let c = events(serde_json::json!({ "w": "W9", "first": 2, "after": after })).await;
            let info = &c["pageInfo"];
            if forward.is_empty() {
                first_row = info["startCursor"].clone();
            }
            assert_eq!(info["startCursor"], c["edges"][0]["cursor"]);
            assert_eq!(info["endCursor"], c["edges"][1]["cursor"]);
            assert_eq!(info["hasPreviousPage"], !forward.is_empty(), "{c}");
            assert!(c["edges"][0]["node"]["occurredAt"].is_string());
            forward.extend(ids(&c));
            if info["hasNextPage"] != true {
                break info["endCursor"].clone();
            }
            after = info["endCursor"].clone();
            assert!(forward.len() < 20, "the walk ends");
        };
        assert_eq!(forward, ["e101", "e102", "e103", "e104", "e105", "e106"]);
        let mut backward: Vec<Vec<String>> = Vec::new();
        let mut before = Value::Null;
        loop {
            let c = events(serde_json::json!({ "w": "W9", "last": 2, "before": before })).await;
            backward.push(ids(&c));
            assert_eq!(c["pageInfo"]["hasNextPage"], backward.len() > 1, "{c}");
            if c["pageInfo"]["hasPreviousPage"] != true {
                break;
            }
            before = c["pageInfo"]["startCursor"].clone();
            assert!(backward.len() < 20, "the walk ends");
        }
        backward.reverse();
        assert_eq!(backward.concat(), forward, "last/before back to the start");
        // totalCount when asked.
        let (_, body) = graphql(
            &client,
            base,
            Some("member-w9"),
            "{ events(workspace: \"W9\", first: 1) { totalCount edges { node { id } } } }",
            Value::Null,
        )
        .await;
        assert_eq!(body["data"]["events"]["totalCount"], 6, "{body}");
        // `first: 0` / `last: 0`: no edges and no nodes, exact flags (whether a row lies past
        // the cursor), the count; `nodes` are the edges' nodes on any other page.
        let flags = |variables: Value| {
            let client = &client;
            async move {
                let document = "query($w: String!, $first: Int, $after: String, $last: Int, \
                    $before: String) { events(workspace: $w, first: $first, after: $after, \
                    last: $last, before: $before) { totalCount nodes { id } edges { cursor } \
                    pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }";
                let (status, body) =
                    graphql(client, base, Some("member-w9"), document, variables).await;
                assert_eq!(status, 200, "{body}");
                assert!(body["errors"].is_null(), "{body}");
                let c = body["data"]["events"].clone();
                let info = &c["pageInfo"];
                (
                    c["edges"].as_array().map_or(usize::MAX, Vec::len),
                    c["nodes"].as_array().map_or(usize::MAX, Vec::len),
                    info["hasPreviousPage"].as_bool(),
                    info["hasNextPage"].as_bool(),
                    info["startCursor"].is_null() && info["endCursor"].is_null(),
                    c["totalCount"].as_i64(),
                )
            }
        };
        for (variables, previous, next) in [
            (serde_json::json!({ "w": "W9", "first": 0 }), false, true),
            (
                serde_json::json!({ "w": "W9", "first": 0, "after": first_row }),
                true,
                true,
            ),
            (
                serde_json::json!({ "w": "W9", "first": 0, "after": last_row }),
                true,
                false,
            ),
            (serde_json::json!({ "w": "W9", "last": 0 }), true, false),
            (
                serde_json::json!({ "w": "W9", "last": 0, "before": last_row }),
                true,
                true,
            ),
            (
                serde_json::json!({ "w": "W9", "last": 0, "before": first_row }),
                false,
                true,
            ),
        ] {
            assert_eq!(
                flags(variables.clone()).await,
                (0, 0, Some(previous), Some(next), true, Some(6)),
                "{variables}"
            );
        }
        let (edges, nodes, ..) = flags(serde_json::json!({ "w": "W9", "first": 4 })).await;
        assert_eq!((edges, nodes), (4, 4));
        // Refusals: the REST problem's code, no token in the body.
        let damaged = format!("{}x", after.as_str().expect("a cursor"));
        for (who, variables, code) in [
            (
                "member-w9",
                serde_json::json!({ "w": "W9", "first": 2, "last": 2 }),
                "query_invalid",
            ),
            (
                "member-w9",
                serde_json::json!({ "w": "W9", "first": 1000 }),
                "page_size_invalid",
            ),
            (
                "member-w9",
                serde_json::json!({ "w": "W9", "first": -1 }),
                "page_size_invalid",
            ),
            (
                "member-w9",
                serde_json::json!({ "w": "W9", "first": 2, "after": damaged }),
                "cursor_invalid",
            ),
            (
                "member-w7",
                serde_json::json!({ "w": "W9", "first": 2 }),
                "not_found",
            ),
        ] {
            let (status, body) =
                graphql(&client, base, Some(who), EVENTS_DOCUMENT, variables.clone()).await;
            assert_eq!(status, 200, "{body}");
            assert_eq!(
                body["errors"][0]["extensions"]["code"], code,
                "{variables}: {body}"
            );
            // The REST problem's detail too, where it has one.
            let detail = &body["errors"][0]["extensions"]["detail"];
            match code {
                "query_invalid" => {
                    assert_eq!(detail, "give `first` or `last`, not both", "{body}");
                    // GraphQL's words, not REST's "query string".
                    let message = &body["errors"][0]["message"];
                    assert_eq!(message, "invalid connection arguments", "{body}");
                }
                "page_size_invalid" => assert!(
                    detail.as_str().is_some_and(|d| d.starts_with("page size")),
                    "the page size's limits: {body}"
                ),
                _ => {}
            }
            assert!(body["data"].is_null(), "{body}");
            assert!(
                !body.to_string().contains(&damaged),
                "the token is not echoed: {body}"
            );
        }
        let (status, _) = graphql(&client, base, None, EVENTS_DOCUMENT, Value::Null).await;
        assert_eq!(status, 401);
        // A body that is not a GraphQL request: a problem in GraphQL's words.
        let response = client
            .post(format!("{base}/graphql"))
            .header(
                "Authorization",
                format!("Bearer {}", token_for(base, "member-w9")),
            )
            .header("Content-Type", "application/json")
            .body("[1, 2]")
            .send()
            .await
            .expect("the server answers");
        assert_eq!(response.status().as_u16(), 400);
        let problem: Value = response.json().await.expect("a problem");
        assert_eq!(problem["code"], "query_invalid", "{problem}");
        assert_eq!(
            problem["title"], "the body is not a GraphQL request",
            "{problem}"
        );
        // Each `events` field is a page query: a document of many aliased ones is refused
        // before any runs.
        let many: String = (0..20)
            .map(|i| {
                format!(
                    "e{i}: events(workspace: \"W9\", first: 1) {{ edges {{ node {{ id }} }} }} "
                )
            })
            .collect();
        let (_, body) = graphql(
            &client,
            base,
            Some("member-w9"),
            &format!("{{ {many} }}"),
            Value::Null,
        )
        .await;
        assert!(body["data"].is_null(), "{body}");
        assert_eq!(
            body["errors"][0]["extensions"]["code"], "query_too_complex",
            "{body}"
        );
    });
}

/// `feed(sort: ..)`: the named sorts of the REST feed as a GraphQL enum (`NEWEST`, `OLDEST`,
/// derived with the sorts). Each sort walks in its own order; a cursor without `sort`
/// continues in its token's sort; a cursor of another sort than the one named is
/// `sort_mismatch` with `restartFromFirstPage` and both names in `detail`, as REST answers.
pub fn graphql_feed_sorts_as_rest_with_sort_mismatch<B: FeedBackend>() {
    const FEED: &str = "query($w: String!, $sort: EventSort, $first: Int, $after: String) {
  feed(workspace: $w, sort: $sort, first: $first, after: $after) {
    edges { node { id } }
    pageInfo { hasNextPage endCursor }
  }
}";
    let server = Server::start::<B>(Settings::default());
    let client = reqwest::Client::new();
    server.rt.block_on(async {
        let base = &server.base;
        let feed = |variables: Value| {
            let client = &client;
            async move {
                graphql(client, base, Some("member-w9"), FEED, variables)
                    .await
                    .1
            }
        };
        let ids = |body: &Value| -> Vec<String> {
            body["data"]["feed"]["edges"]
                .as_array()
                .expect("edges")
                .iter()
                .map(|e| e["node"]["id"].as_str().expect("id").to_string())
                .collect()
        };
        for (sort, first_page, second_page) in [
            (Value::Null, ["e106", "e105"], ["e104", "e103"]),
            ("NEWEST".into(), ["e106", "e105"], ["e104", "e103"]),
            ("OLDEST".into(), ["e101", "e102"], ["e103", "e104"]),
        ] {
            let body = feed(serde_json::json!({ "w": "W9", "sort": sort, "first": 2 })).await;
            assert!(body["errors"].is_null(), "{body}");
            assert_eq!(ids(&body), first_page, "{sort}");
            let cursor = body["data"]["feed"]["pageInfo"]["endCursor"].clone();
            // No `sort`: the token's.
            let body = feed(serde_json::json!({ "w": "W9", "first": 2, "after": cursor })).await;
            assert_eq!(ids(&body), second_page, "{sort} then the token's sort");
            // The other sort named with this cursor: refused as REST refuses it.
            let other = if first_page[0] == "e106" {
                "OLDEST"
            } else {
                "NEWEST"
            };
            let body = feed(serde_json::json!({
                "w": "W9", "sort": other, "first": 2, "after": cursor
            }))
            .await;
            let error = &body["errors"][0];
            assert_eq!(error["extensions"]["code"], "sort_mismatch", "{body}");
            assert_eq!(error["extensions"]["restartFromFirstPage"], true, "{body}");
            let detail = error["extensions"]["detail"].as_str().expect("detail");
            assert!(
                detail.contains("newest") && detail.contains("oldest"),
                "{detail}"
            );
            assert!(
                body["data"].is_null() || body["data"]["feed"].is_null(),
                "{body}"
            );
        }
        // The enum's values are the sorts': anything else is GraphQL's own refusal.
        let body = feed(serde_json::json!({ "w": "W9", "sort": "TOP", "first": 2 })).await;
        assert!(!body["errors"].is_null(), "{body}");
    });
}
