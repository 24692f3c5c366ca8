//! What one `POST /graphql` may cost: page reads and total counts per document, counted
//! before any resolver runs; the body's size; syntax errors without the document's text;
//! introspection only when the server is set to answer it.

use keyset_feed_server::{Settings, GRAPHQL_MAX_BODY, GRAPHQL_MAX_COUNTS, GRAPHQL_MAX_PAGES};
use serde_json::Value;

use crate::server::{token_for, FeedBackend, Server};

/// POST `body` to `/graphql` as member-w9: the status, the content type and the JSON body.
async fn post(client: &reqwest::Client, base: &str, body: Vec<u8>) -> (u16, String, Value) {
    let token = token_for(base, "member-w9");
    let response = client
        .post(format!("{base}/graphql"))
        .header("Authorization", format!("Bearer {token}"))
        .header("Content-Type", "application/json")
        .body(body)
        .send()
        .await
        .expect("the server answers");
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().expect("ASCII").to_string())
        .unwrap_or_default();
    let text = response.text().await.expect("a body");
    let json = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, content_type, json)
}

/// POST `document` with `variables` as member-w9: the JSON body of a 200.
async fn graphql(client: &reqwest::Client, base: &str, document: &str, variables: Value) -> Value {
    let body = serde_json::json!({ "query": document, "variables": variables });
    let (status, _, body) = post(client, base, body.to_string().into_bytes()).await;
    assert_eq!(status, 200, "{body}");
    body
}

/// The one error of a refused document, its code, and that no field was resolved.
fn refused_code(body: &Value) -> String {
    assert!(body["data"].is_null(), "nothing ran: {body}");
    let errors = body["errors"].as_array().expect("errors");
    assert_eq!(errors.len(), 1, "{body}");
    errors[0]["extensions"]["code"]
        .as_str()
        .unwrap_or("(no code)")
        .to_string()
}

/// `n` aliased `events` connections of W9, each `first: size`, with `fields` selected.
fn aliased(n: u64, size: u32, fields: &str) -> String {
    let connections: String = (0..n)
        .map(|i| format!("e{i}: events(workspace: \"W9\", first: {size}) {{ {fields} }} "))
        .collect();
    format!("{{ {connections} }}")
}

const FULL: &str = "edges { cursor node { id occurredAt message } } \
                    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }";

/// A document's page reads are counted before anything runs, by connection: a 9th page, even
/// of 1 row, is refused with `query_too_complex` and `data: null`, and so is a 1 KB document
/// of fragments spread in fragments that expands to 65,536 connections; 8 full pages of 100
/// rows pass. (The old limit counted one per field: 9 small pages passed, 8 full ones did
/// not, and the fragments were expanded to be counted.)
pub fn graphql_cost_caps_page_reads<B: FeedBackend>() {
    let server = Server::start::<B>(Settings::default());
    let client = reqwest::Client::new();
    server.rt.block_on(async {
        let base = &server.base;
        let small = aliased(GRAPHQL_MAX_PAGES + 1, 1, "edges { cursor }");
        let body = graphql(&client, base, &small, Value::Null).await;
        assert_eq!(refused_code(&body), "query_too_complex");
        assert_eq!(
            body["errors"][0]["extensions"]["detail"],
            format!("{} page reads; at most {GRAPHQL_MAX_PAGES}", GRAPHQL_MAX_PAGES + 1)
        );
        // Fragments spread twice in each other, 16 deep: 2^16 connections.
        let mut bomb = String::from(
            "query { ...F16 }\nfragment F0 on QueryRoot { events(workspace: \"W9\", first: 1) { totalCount } }\n",
        );
        for i in 1..=16 {
            bomb.push_str(&format!("fragment F{i} on QueryRoot {{ ...F{p} ...F{p} }}\n", p = i - 1));
        }
        assert!(bomb.len() < 1024, "{}", bomb.len());
        let body = graphql(&client, base, &bomb, Value::Null).await;
        assert_eq!(refused_code(&body), "query_too_complex");
        assert_eq!(
            body["errors"][0]["extensions"]["detail"],
            format!("65536 page reads; at most {GRAPHQL_MAX_PAGES}")
        );
        let full = aliased(GRAPHQL_MAX_PAGES, 100, FULL);
        let body = graphql(&client, base, &full, Value::Null).await;
        assert!(body["errors"].is_null(), "{body}");
        let last = format!("e{}", GRAPHQL_MAX_PAGES - 1);
        assert_eq!(body["data"][&last]["edges"].as_array().map(Vec::len), Some(6));
        // A page size through a variable.
        let document =
            "query($n: Int) { a: events(workspace: \"W9\", first: $n) { edges { cursor } } }";
        let one = graphql(&client, base, document, serde_json::json!({ "n": 2 })).await;
        assert_eq!(one["data"]["a"]["edges"].as_array().map(Vec::len), Some(2), "{one}");
    });
}

/// A document's total counts are counted before anything runs: one passes, a second is
/// refused with `query_too_complex` and `data: null`. (The old limit counted a `totalCount`
/// as one field: 2 counts passed, and 32 with the smallest selections.)
pub fn graphql_cost_caps_total_counts<B: FeedBackend>() {
    let server = Server::start::<B>(Settings::default());
    let client = reqwest::Client::new();
    server.rt.block_on(async {
        let base = &server.base;
        let counts = aliased(GRAPHQL_MAX_COUNTS + 1, 1, "totalCount");
        let body = graphql(&client, base, &counts, Value::Null).await;
        assert_eq!(refused_code(&body), "query_too_complex");
        assert_eq!(
            body["errors"][0]["extensions"]["detail"],
            format!(
                "{} total counts; at most {GRAPHQL_MAX_COUNTS}",
                GRAPHQL_MAX_COUNTS + 1
            )
        );
        let counted = aliased(GRAPHQL_MAX_COUNTS, 1, "totalCount");
        let body = graphql(&client, base, &counted, Value::Null).await;
        assert_eq!(body["data"]["e0"]["totalCount"], 6, "{body}");
    });
}

/// A body over `GRAPHQL_MAX_BODY` is a 413 problem+json `body_too_large` whatever it holds
/// (here a valid document and variables it never uses, 4 KiB over the limit); a body just under
/// the limit is run. (The old endpoint parsed bodies up to axum's 2 MB default.) The body is
/// only a little over the limit so that the server has read all of it when it answers: a server
/// that closes a connection with unread request bytes resets it, and the client may lose the
/// answer (a 2 MB body failed this way now and then).
pub fn graphql_body_is_bounded<B: FeedBackend>() {
    let server = Server::start::<B>(Settings::default());
    let client = reqwest::Client::new();
    server.rt.block_on(async {
        let base = &server.base;
        let with_unused = |bytes: usize| {
            let prefix = r#"{"query":"{ events(workspace: \"W9\", first: 1) { edges { cursor } } }","variables":{"unused":["#;
            let zeros = (bytes - prefix.len() - 4) / 2;
            let mut body = prefix.as_bytes().to_vec();
            body.extend(std::iter::repeat_n(b"0,".as_slice(), zeros).flatten());
            body.extend_from_slice(b"0]}}");
            body
        };
        let large = with_unused(GRAPHQL_MAX_BODY + 4 * 1024);
        assert!(large.len() > GRAPHQL_MAX_BODY);
        let (status, content_type, body) = post(&client, base, large).await;
        assert_eq!(status, 413, "{body}");
        assert_eq!(content_type, "application/problem+json");
        assert_eq!(body["code"], "body_too_large", "{body}");
        let (status, _, body) = post(&client, base, with_unused(GRAPHQL_MAX_BODY - 10)).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["data"]["events"]["edges"].as_array().map(Vec::len), Some(1), "{body}");
    });
}

/// A document that does not parse is answered `query_invalid` with its position, never its
/// text: a cursor token written in it is not echoed. (async-graphql's own message quotes the
/// line of the error.)
pub fn graphql_syntax_error_does_not_echo_the_document<B: FeedBackend>() {
    let server = Server::start::<B>(Settings::default());
    let client = reqwest::Client::new();
    server.rt.block_on(async {
        let base = &server.base;
        let page = graphql(
            &client,
            base,
            "{ events(workspace: \"W9\", first: 2) { pageInfo { endCursor } } }",
            Value::Null,
        )
        .await;
        let cursor = page["data"]["events"]["pageInfo"]["endCursor"]
            .as_str()
            .expect("a cursor")
            .to_string();
        // `first: 2` lacks its `)`.
        let broken = format!(
            "{{ events(workspace: \"W9\", after: \"{cursor}\", first: 2 {{ edges {{ cursor }} }} }}"
        );
        let body = graphql(&client, base, &broken, Value::Null).await;
        assert!(
            !body.to_string().contains(&cursor),
            "the token is not echoed: {body}"
        );
        assert_eq!(refused_code(&body), "query_invalid");
        assert_eq!(
            body["errors"][0]["message"],
            "the GraphQL document does not parse"
        );
        assert_eq!(body["errors"][0]["locations"][0]["line"], 1, "{body}");
        assert!(
            !body.to_string().contains(&cursor),
            "the token is not echoed: {body}"
        );
    });
}

/// Introspection (`__schema`, `__type`) is answered `null` by default and answered with
/// `Settings::graphql_introspection`; `__typename` is answered either way.
pub fn graphql_introspection_is_a_setting<B: FeedBackend>() {
    const SCHEMA: &str = "{ __schema { queryType { name } } }";
    const TYPE: &str = "{ __type(name: \"Event\") { fields { name } } }";
    let server = Server::start::<B>(Settings::default());
    let client = reqwest::Client::new();
    server.rt.block_on(async {
        let base = &server.base;
        // async-graphql answers `null` for both, as for a field that is not there.
        for (document, field) in [(SCHEMA, "__schema"), (TYPE, "__type")] {
            let body = graphql(&client, base, document, Value::Null).await;
            assert_eq!(
                body["data"],
                serde_json::json!({ field: null }),
                "{document}: {body}"
            );
        }
        let body = graphql(&client, base, "{ __typename }", Value::Null).await;
        assert_eq!(body["data"]["__typename"], "QueryRoot", "{body}");
    });
    drop(server);
    let client = reqwest::Client::new();
    let server = Server::start::<B>(Settings {
        graphql_introspection: true,
        ..Settings::default()
    });
    server.rt.block_on(async {
        let base = &server.base;
        let body = graphql(&client, base, SCHEMA, Value::Null).await;
        assert_eq!(
            body["data"]["__schema"]["queryType"]["name"], "QueryRoot",
            "{body}"
        );
        let body = graphql(&client, base, TYPE, Value::Null).await;
        let fields = body["data"]["__type"]["fields"].to_string();
        assert!(fields.contains("occurredAt"), "{body}");
    });
}
