//! The feed server example (`examples/feed_server`) started in-process on `127.0.0.1:0` and
//! walked with a real HTTP client (reqwest), on every backend: the token chain followed through
//! `Link` and through `next_cursor`, every refusal as a problem+json 400, 401 and 404, the byte
//! budget, and 32 concurrent walks while a writer inserts rows at the head of the list.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use keyset_diesel::token::SecretKey;
use keyset_diesel::web::{PageResponse, PageSizePolicy};
use keyset_diesel::CursorCodec;
use keyset_feed_server::{feed, AppState, Db, EventItem, NewEvent, Settings};
use serde_json::Value;

/// A database for one server, dropped (schema or database) when the test ends.
pub struct FeedDatabase {
    /// `None`: in-memory SQLite.
    pub url: Option<String>,
    cleanup: Option<Box<dyn FnOnce() + Send>>,
}

impl Drop for FeedDatabase {
    fn drop(&mut self) {
        if let Some(cleanup) = self.cleanup.take() {
            cleanup();
        }
    }
}

/// A backend the feed server runs on: an isolated, empty database for it.
pub trait FeedBackend {
    /// A fresh database (the server migrates and seeds it).
    fn feed_database() -> FeedDatabase;
}

#[cfg(feature = "sqlite")]
impl FeedBackend for diesel::SqliteConnection {
    fn feed_database() -> FeedDatabase {
        FeedDatabase {
            url: None,
            cleanup: None,
        }
    }
}

#[cfg(feature = "postgres")]
impl FeedBackend for diesel::PgConnection {
    fn feed_database() -> FeedDatabase {
        use diesel::connection::SimpleConnection;
        use diesel::Connection;
        let admin_url = keyset_testkit::db::pg_url();
        let connect = {
            let admin_url = admin_url.clone();
            move || {
                diesel::PgConnection::establish(&admin_url).unwrap_or_else(|e| {
                    keyset_testkit::db::server_missing("PostgreSQL", &admin_url, &e)
                })
            }
        };
        let schema = keyset_testkit::db::unique_name();
        connect()
            .batch_execute(&format!("CREATE SCHEMA {schema}"))
            .expect("create schema");
        let sep = if admin_url.contains('?') { '&' } else { '?' };
        let url = format!("{admin_url}{sep}options=-csearch_path%3D{schema}");
        FeedDatabase {
            url: Some(url),
            cleanup: Some(Box::new(move || {
                let _ = connect().batch_execute(&format!("DROP SCHEMA {schema} CASCADE"));
            })),
        }
    }
}

#[cfg(feature = "mysql")]
impl FeedBackend for diesel::MysqlConnection {
    fn feed_database() -> FeedDatabase {
        use diesel::connection::SimpleConnection;
        use diesel::Connection;
        let base = keyset_testkit::db::mysql_url()
            .trim_end_matches('/')
            .to_string();
        let admin_url = format!("{base}/test");
        let connect = move || {
            diesel::MysqlConnection::establish(&admin_url).unwrap_or_else(|e| {
                keyset_testkit::db::server_missing("MySQL/MariaDB", &admin_url, &e)
            })
        };
        let name = keyset_testkit::db::unique_name();
        connect()
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .expect("create database");
        FeedDatabase {
            url: Some(format!("{base}/{name}")),
            cleanup: Some(Box::new(move || {
                let _ = connect().batch_execute(&format!("DROP DATABASE {name}"));
            })),
        }
    }
}

/// The token secret of the tests' servers.
const SECRET: &[u8] = b"feed server test secret, 32 bytes or more";
/// Their token time to live.
const TTL: Duration = Duration::from_secs(600);

/// A feed server listening on `127.0.0.1:<any>` in this process, and its clock.
pub struct Server {
    /// `http://127.0.0.1:<port>`.
    pub base: String,
    /// Seconds added to the codec's clock (expire tokens without waiting).
    pub clock_offset: Arc<AtomicU64>,
    /// The server's database (for loading rows).
    pub db: Db,
    /// The runtime the server and the test's client run on.
    pub rt: tokio::runtime::Runtime,
    _database: FeedDatabase,
}

impl Server {
    /// Starts a server on a fresh database of backend `B`.
    pub fn start<B: FeedBackend>(settings: Settings) -> Server {
        let database = B::feed_database();
        let clock_offset = Arc::new(AtomicU64::new(0));
        let offset = clock_offset.clone();
        let codec = CursorCodec::builder()
            .signing_key(SecretKey::new(1, SECRET).expect("secret"))
            .ttl(TTL)
            .clock(move || SystemTime::now() + Duration::from_secs(offset.load(Ordering::SeqCst)))
            .build()
            .expect("codec");
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(4)
            .enable_all()
            .build()
            .expect("runtime");
        let (db, tokens) = rt
            .block_on(Db::connect(database.url.as_deref(), 16))
            .expect("feed server database");
        let listener = rt
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .expect("bind 127.0.0.1:0");
        let base = format!("http://{}", listener.local_addr().expect("address"));
        let state = AppState::new(db.clone(), codec, settings);
        rt.spawn(async move { keyset_feed_server::serve(listener, state).await });
        for (member, token) in tokens {
            remember_token(&base, &member, token);
        }
        Server {
            base,
            clock_offset,
            db,
            rt,
            _database: database,
        }
    }
}

/// The bearer tokens of the servers this process started: `(base URL, member, token)`.
static TOKENS: std::sync::Mutex<Vec<(String, String, String)>> = std::sync::Mutex::new(Vec::new());

fn remember_token(base: &str, member: &str, token: String) {
    TOKENS
        .lock()
        .expect("tokens")
        .push((base.to_string(), member.to_string(), token));
}

/// The token of `member` on the server at `base`; a name no member of it has is sent as it
/// is (an unknown bearer).
fn token_for(base: &str, member: &str) -> String {
    TOKENS
        .lock()
        .expect("tokens")
        .iter()
        .rev()
        .find(|(b, m, _)| b == base && m == member)
        .map_or_else(|| member.to_string(), |(_, _, t)| t.clone())
}

impl Server {
    /// Gives `member` a new bearer token; [`get`] sends it for `Some(member)`.
    pub fn issue_token(&self, member: &str) -> String {
        let token = self
            .rt
            .block_on(self.db.issue_token(member))
            .expect("token");
        remember_token(&self.base, member, token.clone());
        token
    }
}

/// One answer: status, content type, `Link`, `Cache-Control`, `Vary`, body.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub content_type: String,
    pub link: Option<String>,
    pub cache_control: Option<String>,
    pub vary: Option<String>,
    pub www_authenticate: Option<String>,
    pub body: String,
}

impl Answer {
    fn page(&self) -> PageResponse<EventItem> {
        assert_eq!(self.status, 200, "{}", self.body);
        assert_eq!(self.content_type, "application/json");
        // Issue 34 (7): tokens and one member's rows are never cached.
        assert_eq!(self.cache_control.as_deref(), Some("no-store"));
        assert_eq!(self.vary.as_deref(), Some("Authorization"));
        serde_json::from_str(&self.body).expect("a PageResponse")
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).expect("JSON")
    }
}

/// GET `path_and_query` as member `bearer` (its token; none: no `Authorization`).
pub async fn get(
    client: &reqwest::Client,
    base: &str,
    path_and_query: &str,
    bearer: Option<&str>,
) -> Answer {
    let mut request = client.get(format!("{base}{path_and_query}"));
    if let Some(name) = bearer {
        let token = token_for(base, name);
        request = request.header("Authorization", format!("Bearer {token}"));
    }
    let response = request.send().await.expect("the server answers");
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .map(|v| v.to_str().expect("ASCII header").to_string())
    };
    let status = response.status().as_u16();
    let content_type = header("content-type").unwrap_or_default();
    let link = header("link");
    let cache_control = header("cache-control");
    let vary = header("vary");
    let www_authenticate = header("www-authenticate");
    let body = response.text().await.expect("a body");
    Answer {
        status,
        content_type,
        link,
        cache_control,
        vary,
        www_authenticate,
        body,
    }
}

fn item_ids(page: &PageResponse<EventItem>) -> Vec<String> {
    page.items.iter().map(|e| e.id.clone()).collect()
}

/// The target of `<...>; rel="<rel>"` in a `Link` value, if it has that relation.
fn link_target(link: &str, rel: &str) -> Option<String> {
    link.split(", ").find_map(|part| {
        let (target, relation) = part.split_once(';').expect("<target>; rel=..");
        (relation.trim() == format!("rel=\"{rel}\"")).then(|| {
            target
                .trim()
                .strip_prefix('<')
                .and_then(|t| t.strip_suffix('>'))
                .expect("<target>")
                .to_string()
        })
    })
}

/// Issue 13 (3): W9 at page size 3, following the JSON `next_cursor` in one walk and the
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
                "C29: the resume position on every page"
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

/// Issue 33 (1): the `Link` header both ways. W9 at page size 2 with two parameters the
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

/// Issue 33 (2): the sort travels with the token. `/feed?sort=newest` walks W9 newest first
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

/// Issue 33 (4): `GET /openapi.json` (no bearer needed) describes both routes: their
/// parameters (the path's workspace, `cursor`, `until`, `page_size`, and `sort` on `/feed`),
/// the `Link` header of a page, the problem responses (400, 401 with `WWW-Authenticate`, 404)
/// as `application/problem+json` of the `Problem` schema, and the schemas themselves
/// (`Problem` without the headers it carries outside its body).
pub fn openapi_document_names_parameters_link_and_problems<B: FeedBackend>() {
    let server = Server::start::<B>(Settings::default());
    let client = reqwest::Client::new();
    server.rt.block_on(async {
        let answer = get(&client, &server.base, "/openapi.json", None).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        assert_eq!(answer.content_type, "application/json");
        let doc = answer.json();
        assert!(doc["openapi"].as_str().is_some_and(|v| v.starts_with("3.")));
        for (path, sorted) in [
            ("/workspaces/{workspace}/events", false),
            ("/workspaces/{workspace}/feed", true),
        ] {
            let get = &doc["paths"][path]["get"];
            let names: Vec<&str> = get["parameters"]
                .as_array()
                .unwrap_or_else(|| panic!("{path}: parameters"))
                .iter()
                .filter_map(|p| p["name"].as_str())
                .collect();
            let mut expected = vec!["workspace", "cursor", "until", "page_size"];
            if sorted {
                expected.insert(1, "sort");
            }
            assert_eq!(names, expected, "{path}");
            let ok = &get["responses"]["200"];
            assert!(ok["headers"]["Link"].is_object(), "{path}: the Link header");
            assert_eq!(
                ok["content"]["application/json"]["schema"]["$ref"],
                "#/components/schemas/PageResponse_EventItem"
            );
            for status in ["400", "401", "404"] {
                assert_eq!(
                    get["responses"][status]["content"]["application/problem+json"]["schema"]
                        ["$ref"],
                    "#/components/schemas/Problem",
                    "{path} {status}"
                );
            }
            assert!(get["responses"]["401"]["headers"]["WWW-Authenticate"].is_object());
        }
        let problem = &doc["components"]["schemas"]["Problem"]["properties"];
        for member in [
            "type",
            "title",
            "status",
            "detail",
            "code",
            "restart_from_first_page",
        ] {
            assert!(problem[member].is_object(), "Problem.{member}");
        }
        assert!(problem["headers"].is_null(), "not part of the body");
        let page = &doc["components"]["schemas"]["PageResponse_EventItem"]["properties"];
        for member in [
            "items",
            "next_cursor",
            "has_more",
            "start_cursor",
            "end_cursor",
            "links",
        ] {
            assert!(page[member].is_object(), "PageResponse.{member}");
        }
    });
}

/// POST a GraphQL document with `variables` to `/graphql` as member `bearer`: the status and
/// the JSON body.
async fn graphql(
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

/// Issue 33 (3): `POST /graphql` with the issue's schema. W9 `first: 2` walks forward by
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
        loop {
            let c = events(serde_json::json!({ "w": "W9", "first": 2, "after": after })).await;
            let info = &c["pageInfo"];
            assert_eq!(info["startCursor"], c["edges"][0]["cursor"]);
            assert_eq!(info["endCursor"], c["edges"][1]["cursor"]);
            assert_eq!(info["hasPreviousPage"], !forward.is_empty(), "{c}");
            assert!(c["edges"][0]["node"]["occurredAt"].is_string());
            forward.extend(ids(&c));
            if info["hasNextPage"] != true {
                break;
            }
            after = info["endCursor"].clone();
            assert!(forward.len() < 20, "the walk ends");
        }
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
                serde_json::json!({ "w": "W9", "first": 0 }),
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
            assert!(body["data"].is_null(), "{body}");
            assert!(
                !body.to_string().contains(&damaged),
                "the token is not echoed: {body}"
            );
        }
        let (status, _) = graphql(&client, base, None, EVENTS_DOCUMENT, Value::Null).await;
        assert_eq!(status, 401);
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
        assert!(
            body["errors"][0]["message"]
                .as_str()
                .is_some_and(|m| m.contains("complex")),
            "{body}"
        );
    });
}

/// Issue 13 (3): a tampered token, an expired one (the codec's clock moved on), one made for
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

/// Issue 13 (2): W5's attachments under a 5,000-byte budget at page size 20: pages of small
/// rows hold several rows, a row bigger than the budget comes alone, and the walk yields every
/// row once, in order.
pub fn byte_budget_pages_attachments<B: FeedBackend>() {
    let max_bytes = 5_000;
    let server = Server::start::<B>(Settings {
        max_bytes,
        ..Settings::default()
    });
    // Issue 34 (4): the budget cuts rows already loaded, so the example bounds rows at write.
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
    let size = |e: &EventItem| serde_json::to_vec(e).expect("JSON").len();
    for page in &pages {
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
    assert!(lens.contains(&1), "large rows come alone: {lens:?}");
    let ids: Vec<String> = pages.into_iter().flatten().map(|e| e.id).collect();
    let expected: Vec<String> = keyset_feed_server::attachment_rows()
        .into_iter()
        .map(|e| e.event_id)
        .collect();
    assert_eq!(ids, expected, "every row once, in order");
}

/// Issue 13 (3): 32 concurrent walks of a 10,000-row workspace at page size 100 while a writer
/// inserts rows at the head: every walk returns every row that existed when it started exactly
/// once and in order, and no response is a 5xx. Prints pages per second and the p50 / p99 page
/// latency (figures, not assertions).
pub fn concurrent_walks_under_inserts_at_the_head<B: FeedBackend>() {
    const ROWS: usize = 10_000;
    const WALKS: usize = 32;
    const PAGE_SIZE: usize = 100;
    let server = Server::start::<B>(Settings {
        policy: PageSizePolicy::new(PAGE_SIZE as u32, 1000).expect("policy"),
        max_bytes: usize::MAX,
    });
    let base_time = feed::feed_time("00:00:00") + chrono::Duration::days(30);
    let row = |id: String, at: chrono::NaiveDateTime| NewEvent {
        event_id: id,
        workspace_id: "WL".to_string(),
        occurred_at: at,
        message: "load".to_string(),
        attachment: None,
    };
    let rows: Vec<NewEvent> = (0..ROWS)
        .map(|i| {
            row(
                format!("L{i:05}"),
                base_time + chrono::Duration::seconds(i as i64),
            )
        })
        .collect();
    server
        .rt
        .block_on(server.db.insert_events(&rows))
        .expect("load rows");
    server
        .rt
        .block_on(server.db.grant("member-load", "WL"))
        .expect("membership");
    server.issue_token("member-load");

    let committed = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(WALKS)
        .build()
        .expect("client");
    let started = Instant::now();
    let (walks, written) = server.rt.block_on(async {
        // The writer: each row earlier than every row before it (the new head of the list).
        let writer = {
            let (db, committed, done) = (server.db.clone(), committed.clone(), done.clone());
            tokio::spawn(async move {
                let mut k = 0usize;
                while !done.load(Ordering::SeqCst) && k < 5_000 {
                    let head = row(
                        format!("H{k:05}"),
                        base_time - chrono::Duration::seconds(k as i64 + 1),
                    );
                    db.insert_events(&[head]).await.expect("insert at the head");
                    k += 1;
                    committed.store(k, Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(2)).await;
                }
                k
            })
        };
        let mut tasks = Vec::new();
        for _ in 0..WALKS {
            let (client, base, committed) =
                (client.clone(), server.base.clone(), committed.clone());
            tasks.push(tokio::spawn(async move {
                let at_start = committed.load(Ordering::SeqCst);
                let mut ids = Vec::new();
                let mut latencies = Vec::new();
                let mut path = format!("/workspaces/WL/events?page_size={PAGE_SIZE}");
                loop {
                    let t = Instant::now();
                    let answer = get(&client, &base, &path, Some("member-load")).await;
                    latencies.push(t.elapsed());
                    assert!(answer.status < 500, "a 5xx: {}", answer.body);
                    let page = answer.page();
                    ids.extend(page.items.into_iter().map(|e| e.id));
                    match page.next_cursor {
                        Some(token) => path = format!("/workspaces/WL/events?cursor={token}"),
                        None => break,
                    }
                }
                (at_start, ids, latencies)
            }));
        }
        let mut walks = Vec::new();
        for task in tasks {
            walks.push(task.await.expect("walk"));
        }
        done.store(true, Ordering::SeqCst);
        (walks, writer.await.expect("writer"))
    });
    let elapsed = started.elapsed();
    let base_ids: Vec<String> = rows.iter().map(|r| r.event_id.clone()).collect();
    let mut latencies = Vec::new();
    for (n, (at_start, ids, times)) in walks.into_iter().enumerate() {
        // Head rows come first, newest first (each earlier than the one before); the rows of
        // the load follow, all of them, in order.
        let (head, body) = ids.split_at(ids.len() - ROWS.min(ids.len()));
        assert_eq!(
            body,
            &base_ids[..],
            "walk {n}: the 10,000 rows, once, in order"
        );
        let ks: Vec<usize> = head
            .iter()
            .map(|id| {
                id.strip_prefix('H')
                    .and_then(|k| k.parse().ok())
                    .expect("a head row")
            })
            .collect();
        assert!(
            ks.windows(2).all(|w| w[0] > w[1]),
            "walk {n}: head rows in order, once"
        );
        // Every head row that existed when the walk started is there.
        let expected_head: Vec<usize> = (0..at_start).rev().collect();
        assert!(
            ks.ends_with(&expected_head),
            "walk {n}: head rows {ks:?} miss some of the {at_start} that existed at its start"
        );
        latencies.extend(times);
    }
    latencies.sort();
    let pct = |p: f64| latencies[((latencies.len() as f64 * p) as usize).min(latencies.len() - 1)];
    eprintln!(
        "feed_server concurrent walks ({}): {WALKS} walks of {ROWS} rows at page size \
         {PAGE_SIZE}, {written} rows inserted at the head meanwhile; {} pages in {:.2} s = \
         {:.0} pages/s; page latency p50 {:.2} ms, p99 {:.2} ms",
        std::any::type_name::<B>(),
        latencies.len(),
        elapsed.as_secs_f64(),
        latencies.len() as f64 / elapsed.as_secs_f64(),
        pct(0.50).as_secs_f64() * 1e3,
        pct(0.99).as_secs_f64() * 1e3,
    );
}

/// The feed server's HTTP tests for backend `$db`.
/// Issue 34 (1): two tenants whose workspace names differ only in case, accents or trailing
/// spaces (`W9` and `w9`, `Café` and `Cafe`, `Acme` and `Acme `). Each member reads only its
/// own workspace's events; on MariaDB the identifier columns were `utf8mb4_general_ci`, so the
/// filter `workspace_id = 'w9'` also matched `W9`'s events while Rust had authorized `w9`
/// byte for byte. The server now authorizes in SQL and filters by the workspace id the
/// membership row holds, and the MySQL migrations give identifiers a binary collation.
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
        // A trailing space names no other tenant: its events are the workspace's own, or none.
        let answer = get(
            &client,
            &server.base,
            "/workspaces/Acme%20/events",
            Some("member-3"),
        )
        .await;
        if answer.status == 200 {
            let page: PageResponse<EventItem> = serde_json::from_str(&answer.body).expect("a page");
            assert_eq!(item_ids(&page), ["t3-0", "t3-1"]);
        } else {
            assert_eq!(answer.status, 404, "{}", answer.body);
        }
    });
}

/// Issue 34 (6): the demo's bearer tokens are random per member and kept hashed. A member's
/// token reads its workspace; its name, the stored hash or a retired token are 401; a member
/// with a token and no membership gets the same 404 as a non-member. Without a secret the
/// server listens only on loopback.
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
    // The public demo secret only on loopback.
    let at = |s: &str| s.parse::<std::net::SocketAddr>().expect("address");
    assert!(keyset_feed_server::check_bind(at("127.0.0.1:3000"), false).is_ok());
    assert!(keyset_feed_server::check_bind(at("[::1]:3000"), false).is_ok());
    let refused = keyset_feed_server::check_bind(at("0.0.0.0:3000"), false).expect_err("public");
    assert!(refused.contains("KEYSET_TOKEN_SECRET"), "{refused}");
    assert!(keyset_feed_server::check_bind(at("0.0.0.0:3000"), true).is_ok());
}

/// Issue 32 (3): the stored export over HTTP, on the async store. `POST .../exports` stores
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

#[macro_export]
macro_rules! feed_server_suite {
    ($db:ty) => {
        #[test]
        fn feed_server_stored_export_over_http() {
            $crate::stored_export_over_http::<$db>();
        }

        #[test]
        fn feed_server_token_chain_walks_follow_next_cursor_and_link() {
            $crate::token_chain_walks_follow_next_cursor_and_link::<$db>();
        }

        #[test]
        fn feed_server_link_headers_walk_next_to_the_end_and_prev_back() {
            $crate::link_headers_walk_next_to_the_end_and_prev_back::<$db>();
        }

        #[test]
        fn feed_server_named_sort_travels_with_the_token() {
            $crate::named_sort_travels_with_the_token::<$db>();
        }

        #[test]
        fn feed_server_openapi_document_names_parameters_link_and_problems() {
            $crate::openapi_document_names_parameters_link_and_problems::<$db>();
        }

        #[test]
        fn feed_server_graphql_relay_connection_walks_both_ways() {
            $crate::graphql_relay_connection_walks_both_ways::<$db>();
        }
        #[test]
        fn feed_server_refusals_are_problem_json_400_401_404() {
            $crate::refusals_are_problem_json::<$db>();
        }
        #[test]
        fn feed_server_tenants_apart_under_every_collation() {
            $crate::tenants_apart_under_every_collation::<$db>();
        }
        #[test]
        fn feed_server_demo_bearer_tokens_are_random_and_hashed() {
            $crate::demo_bearer_tokens_are_random_and_hashed::<$db>();
        }
        #[test]
        fn feed_server_byte_budget_pages_attachments() {
            $crate::byte_budget_pages_attachments::<$db>();
        }
        #[test]
        fn feed_server_concurrent_walks_under_inserts_at_the_head() {
            $crate::concurrent_walks_under_inserts_at_the_head::<$db>();
        }
    };
}
