//! `cargo bench -p keyset-bench --bench http` (or `bash scripts/bench.sh http`): the HTTP path
//! end to end. The feed server's `GET /workspaces/{w}/events` (its router, in this
//! process, on a deadpool pool of `AsyncPgConnection`s) against a minimal axum handler written
//! by hand that runs the same statements (bearer look-up, membership, the byte budget's size
//! probe, the page) as hand-written SQL on the same pool, loaded with `wrk` (Debian's package)
//! over loopback at 1 and 32 concurrent clients, first page and a deep page (90,000 rows in).
//! Requests/s and the latency percentiles p50 and p99 are wrk's; each configuration runs three
//! times, feed server and hand handler alternating, and the medians are reported. Rewrites
//! section 4e of reports/PERFORMANCE.md.
//!
//! The hand handler is what a user of no pagination crate would write: one pooled connection
//! per request, the four statements, the items as JSON and an unsigned `next` cursor
//! (`<microseconds>~<event id>`). The feed server also signs and checks cursor tokens, writes
//! RFC 8288 links, cuts the page to the item JSON's byte budget and takes a pooled connection
//! per statement.

#[path = "pagination/section.rs"]
mod section;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use axum::extract::{Path, Query, State};
use axum::http::{header::AUTHORIZATION, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use chrono::NaiveDateTime;
use diesel::connection::SimpleConnection;
use diesel::sql_types::{BigInt, Nullable, Text, Timestamp};
use diesel::{Connection, OptionalExtension, PgConnection, QueryableByName};
use diesel_async::pooled_connection::deadpool::Pool;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use keyset_diesel::token::SecretKey;
use keyset_diesel::{Cursor, CursorCodec};
use keyset_example_feed::Event;
use keyset_feed_server::{AppState, Db, Settings};
use sha2::{Digest, Sha256};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The bench's workspace, its rows, and the deep page's depth.
const WORKSPACE: &str = "WB";
/// (100,000: the report's text says so.)
const ROWS: i64 = 100_000;
const DEEP: i64 = 90_000;
/// The page size (the feed server's default).
const PAGE: usize = 20;
/// Seconds per wrk run, and runs per configuration.
const SECONDS: u32 = 4;
const ROUNDS: usize = 3;
/// The database this bench owns on the PostgreSQL server.
const DATABASE: &str = "keyset_http_bench";
/// The member the feed server's start-up creates (it may read W9 and W7); granted `WB` here.
const MEMBER: &str = "member-w9";

fn main() {
    let started = Instant::now();
    let base = std::env::var("KEYSET_PG_URL")
        .map(|u| u.rsplit_once('/').map_or(u.clone(), |(b, _)| b.to_string()))
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432".to_string());
    let mut admin = PgConnection::establish(&format!("{base}/test")).expect("PostgreSQL");
    let exists: i64 = diesel::RunQueryDsl::get_result(
        diesel::sql_query(format!(
            "SELECT count(*) AS n FROM pg_database WHERE datname = '{DATABASE}'"
        )),
        &mut admin,
    )
    .map(|c: Count| c.n)
    .expect("pg_database");
    if exists == 0 {
        admin
            .batch_execute(&format!("CREATE DATABASE {DATABASE}"))
            .expect("create database");
    }
    let url = format!("{base}/{DATABASE}");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let (state, token) = runtime.block_on(async {
        let (db, tokens) = Db::connect(Some(&url), 16)
            .await
            .expect("feed server database");
        db.grant(MEMBER, WORKSPACE).await.expect("grant");
        let token = tokens
            .into_iter()
            .find(|(m, _)| m == MEMBER)
            .map(|(_, t)| t)
            .expect("the demo member's token");
        let codec = CursorCodec::builder()
            .signing_key(SecretKey::new(1, b"keyset http bench, loopback only").expect("key"))
            .build()
            .expect("codec");
        (AppState::new(db, codec, Settings::default()), token)
    });
    let mut conn = PgConnection::establish(&url).expect("bench database");
    load_rows(&mut conn);
    let deep: Deep = diesel::RunQueryDsl::get_result(
        diesel::sql_query(format!(
            "SELECT occurred_at, event_id FROM events WHERE workspace_id = '{WORKSPACE}' \
             ORDER BY occurred_at, event_id OFFSET {} LIMIT 1",
            DEEP - 1
        )),
        &mut conn,
    )
    .expect("deep cursor row");
    let feed_token = state
        .codec
        .encode(
            &Cursor::<Event>::after((deep.occurred_at, deep.event_id.clone())),
            &("events", WORKSPACE),
        )
        .expect("token");
    let hand_cursor = format!(
        "{}~{}",
        deep.occurred_at.and_utc().timestamp_micros(),
        deep.event_id
    );
    let pool = match state.db.clone() {
        Db::Postgres(pool) => pool,
        // Other backends' variants exist when another crate enables their features.
        #[allow(unreachable_patterns)]
        _ => panic!("the bench runs the feed server on PostgreSQL"),
    };
    let hand = Router::new()
        .route("/hand/workspaces/{workspace}/events", get(hand_page))
        .with_state(Hand {
            pool,
            max_bytes: i64::try_from(state.settings.max_bytes).expect("budget"),
        });
    let app = keyset_feed_server::router(state).merge(hand);
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("listen");
    let addr = listener.local_addr().expect("address");
    runtime.spawn(async move { axum::serve(listener, app).await });

    let feed_url = |cursor: Option<&str>| match cursor {
        None => format!("http://{addr}/workspaces/{WORKSPACE}/events?page_size={PAGE}"),
        Some(c) => {
            format!("http://{addr}/workspaces/{WORKSPACE}/events?page_size={PAGE}&cursor={c}")
        }
    };
    let hand_url = |cursor: Option<&str>| match cursor {
        None => format!("http://{addr}/hand/workspaces/{WORKSPACE}/events"),
        Some(c) => format!("http://{addr}/hand/workspaces/{WORKSPACE}/events?after={c}"),
    };
    let pages = [
        ("first page", feed_url(None), hand_url(None)),
        (
            "deep page (90,000 rows in)",
            feed_url(Some(&feed_token)),
            hand_url(Some(&hand_cursor)),
        ),
    ];
    // Both answer the same rows, in the same order, before anything is timed.
    for (name, feed, hand) in &pages {
        let feed_ids = runtime.block_on(item_ids(feed, &token, "id"));
        let hand_ids = runtime.block_on(item_ids(hand, &token, "event_id"));
        assert_eq!(feed_ids.len(), PAGE, "{name}: a full page");
        assert_eq!(feed_ids, hand_ids, "{name}: the same rows");
    }
    let mut rows = Vec::new();
    for (name, feed, hand) in &pages {
        for clients in [1u32, 32] {
            let mut runs = (Vec::new(), Vec::new());
            for _ in 0..ROUNDS {
                runs.0.push(wrk(feed, &token, clients));
                runs.1.push(wrk(hand, &token, clients));
            }
            let row = Row {
                page: name,
                clients,
                feed: median(runs.0),
                hand: median(runs.1),
            };
            eprintln!(
                "[http] {name}, {clients} clients: feed {:.0} req/s, hand {:.0} req/s",
                row.feed.per_second, row.hand.per_second
            );
            rows.push(row);
        }
    }
    let text = render(&rows, started.elapsed().as_secs_f64());
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../reports/PERFORMANCE.md");
    let doc = std::fs::read_to_string(&path).unwrap_or_default();
    std::fs::write(&path, section::HTTP.replace(&doc, &text)).expect("write PERFORMANCE.md");
    eprintln!("[http] wrote section 4e of {}", path.display());
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

#[derive(QueryableByName)]
struct Deep {
    #[diesel(sql_type = Timestamp)]
    occurred_at: NaiveDateTime,
    #[diesel(sql_type = Text)]
    event_id: String,
}

/// `ROWS` events in `WORKSPACE`, three per second (ties on `occurred_at`), loaded once.
fn load_rows(conn: &mut PgConnection) {
    let count: Count = diesel::RunQueryDsl::get_result(
        diesel::sql_query(format!(
            "SELECT count(*) AS n FROM events WHERE workspace_id = '{WORKSPACE}'"
        )),
        conn,
    )
    .expect("count");
    if count.n == ROWS {
        return;
    }
    conn.batch_execute(&format!(
        "DELETE FROM events WHERE workspace_id = '{WORKSPACE}';
         INSERT INTO events (event_id, workspace_id, occurred_at, message, attachment)
         SELECT 'b' || lpad(g::text, 7, '0'), '{WORKSPACE}',
                timestamp '2026-01-01' + (g / 3) * interval '1 second',
                'bench event number ' || g, NULL
         FROM generate_series(1, {ROWS}) AS g;"
    ))
    .expect("load rows");
    conn.batch_execute("ANALYZE events").expect("analyze");
}

/// The hand-written handler's state: the feed server's pool and byte budget.
#[derive(Clone)]
struct Hand {
    pool: Pool<AsyncPgConnection>,
    max_bytes: i64,
}

#[derive(serde::Deserialize)]
struct After {
    after: Option<String>,
}

#[derive(QueryableByName)]
struct Member {
    #[diesel(sql_type = Text)]
    member: String,
}

#[derive(QueryableByName)]
struct Granted {
    #[diesel(sql_type = Text)]
    #[allow(dead_code)] // Read to check the membership exists.
    workspace_id: String,
}

#[derive(QueryableByName)]
struct Size {
    #[diesel(sql_type = Timestamp)]
    occurred_at: NaiveDateTime,
    #[diesel(sql_type = Text)]
    event_id: String,
    #[diesel(sql_type = BigInt)]
    size: i64,
}

#[derive(QueryableByName, serde::Serialize)]
struct Item {
    #[diesel(sql_type = Text)]
    event_id: String,
    #[diesel(sql_type = Text)]
    workspace_id: String,
    #[diesel(sql_type = Timestamp)]
    #[serde(serialize_with = "iso")]
    occurred_at: NaiveDateTime,
    #[diesel(sql_type = Text)]
    message: String,
    #[diesel(sql_type = Nullable<Text>)]
    attachment: Option<String>,
}

fn iso<S: serde::Serializer>(at: &NaiveDateTime, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&at.format("%Y-%m-%dT%H:%M:%S%.f"))
}

/// `GET /hand/workspaces/{workspace}/events?after=<microseconds>~<event id>`.
async fn hand_page(
    State(hand): State<Hand>,
    Path(workspace): Path<String>,
    Query(after): Query<After>,
    headers: HeaderMap,
) -> Response {
    match hand_answer(&hand, &workspace, after.after.as_deref(), &headers).await {
        Ok(response) => response,
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response(),
    }
}

async fn hand_answer(
    hand: &Hand,
    workspace: &str,
    after: Option<&str>,
    headers: &HeaderMap,
) -> Result<Response, BoxError> {
    let Some(token) = headers
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
    else {
        return Ok(StatusCode::UNAUTHORIZED.into_response());
    };
    let hash: String = Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let conn = &mut hand.pool.get().await?;
    let member: Option<Member> =
        diesel::sql_query("SELECT member FROM member_tokens WHERE token_sha256 = $1")
            .bind::<Text, _>(&hash)
            .get_result(conn)
            .await
            .optional()?;
    let Some(member) = member else {
        return Ok(StatusCode::UNAUTHORIZED.into_response());
    };
    let granted: Option<Granted> = diesel::sql_query(
        "SELECT workspace_id FROM memberships WHERE member = $1 AND workspace_id = $2",
    )
    .bind::<Text, _>(&member.member)
    .bind::<Text, _>(workspace)
    .get_result(conn)
    .await
    .optional()?;
    if granted.is_none() {
        return Ok(StatusCode::NOT_FOUND.into_response());
    }
    let after = match after {
        None => None,
        Some(text) => {
            let Some((micros, id)) = text.split_once('~') else {
                return Ok(StatusCode::BAD_REQUEST.into_response());
            };
            let Some(at) = micros
                .parse::<i64>()
                .ok()
                .and_then(chrono::DateTime::from_timestamp_micros)
            else {
                return Ok(StatusCode::BAD_REQUEST.into_response());
            };
            Some((at.naive_utc(), id.to_string()))
        }
    };
    let limit = i64::try_from(PAGE).unwrap_or(20) + 1;
    const SIZE: &str = "SELECT occurred_at, event_id, \
        CAST(octet_length(message) + COALESCE(octet_length(attachment), 0) AS BIGINT) AS size \
        FROM events";
    let sizes: Vec<Size> = match &after {
        None => {
            diesel::sql_query(format!(
                "{SIZE} WHERE workspace_id = $1 ORDER BY occurred_at, event_id LIMIT $2"
            ))
            .bind::<Text, _>(workspace)
            .bind::<BigInt, _>(limit)
            .load(conn)
            .await?
        }
        Some((at, id)) => {
            diesel::sql_query(format!(
                "{SIZE} WHERE workspace_id = $1 AND (occurred_at, event_id) > ($2, $3) \
                 ORDER BY occurred_at, event_id LIMIT $4"
            ))
            .bind::<Text, _>(workspace)
            .bind::<Timestamp, _>(*at)
            .bind::<Text, _>(id)
            .bind::<BigInt, _>(limit)
            .load(conn)
            .await?
        }
    };
    // The rows that fit in the budget: at least one, at most a page.
    let mut used = 0i64;
    let mut fit = 0usize;
    for size in sizes.iter().take(PAGE) {
        used += size.size;
        if used > hand.max_bytes && fit > 0 {
            break;
        }
        fit += 1;
    }
    let items: Vec<Item> = match (fit, &after) {
        (0, _) => Vec::new(),
        (_, None) => {
            let last = &sizes[fit - 1];
            diesel::sql_query(
                "SELECT event_id, workspace_id, occurred_at, message, attachment FROM events \
                 WHERE workspace_id = $1 AND (occurred_at, event_id) <= ($2, $3) \
                 ORDER BY occurred_at, event_id LIMIT $4",
            )
            .bind::<Text, _>(workspace)
            .bind::<Timestamp, _>(last.occurred_at)
            .bind::<Text, _>(&last.event_id)
            .bind::<BigInt, _>(fit as i64)
            .load(conn)
            .await?
        }
        (_, Some((at, id))) => {
            let last = &sizes[fit - 1];
            diesel::sql_query(
                "SELECT event_id, workspace_id, occurred_at, message, attachment FROM events \
                 WHERE workspace_id = $1 AND (occurred_at, event_id) > ($2, $3) \
                 AND (occurred_at, event_id) <= ($4, $5) \
                 ORDER BY occurred_at, event_id LIMIT $6",
            )
            .bind::<Text, _>(workspace)
            .bind::<Timestamp, _>(*at)
            .bind::<Text, _>(id)
            .bind::<Timestamp, _>(last.occurred_at)
            .bind::<Text, _>(&last.event_id)
            .bind::<BigInt, _>(fit as i64)
            .load(conn)
            .await?
        }
    };
    let next = (sizes.len() > fit).then(|| {
        let last = &sizes[fit - 1];
        format!(
            "{}~{}",
            last.occurred_at.and_utc().timestamp_micros(),
            last.event_id
        )
    });
    let body = serde_json::to_vec(&serde_json::json!({ "items": items, "next": next }))?;
    Ok((
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        body,
    )
        .into_response())
}

/// The `$field` of every item of one `GET url` (HTTP/1.1 on a new connection; status 200
/// required).
async fn item_ids(url: &str, token: &str, field: &str) -> Vec<String> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let rest = url.strip_prefix("http://").expect("http url");
    let (host, path) = rest.split_once('/').expect("path");
    let mut stream = tokio::net::TcpStream::connect(host).await.expect("connect");
    let request = format!(
        "GET /{path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.expect("read");
    let response = String::from_utf8(response).expect("utf-8");
    assert!(response.starts_with("HTTP/1.1 200"), "{url}: {response}");
    let (_, body) = response.split_once("\r\n\r\n").expect("body");
    let json: serde_json::Value = serde_json::from_str(body).expect("json body");
    json["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|item| item[field].as_str().expect("id").to_string())
        .collect()
}

/// One wrk run's figures.
#[derive(Clone, Copy)]
struct Load {
    per_second: f64,
    /// Seconds.
    p50: f64,
    p99: f64,
}

/// Runs wrk on `url` with `clients` connections (one thread per 16 clients) for `SECONDS`.
fn wrk(url: &str, token: &str, clients: u32) -> Load {
    let threads = clients.div_ceil(16).max(1);
    let out = Command::new("wrk")
        .args([
            format!("-t{threads}"),
            format!("-c{clients}"),
            format!("-d{SECONDS}s"),
            "--latency".into(),
            "-H".into(),
            format!("Authorization: Bearer {token}"),
            url.into(),
        ])
        .output()
        .expect("wrk (scripts/bench.sh installs it)");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "wrk failed: {text}");
    assert!(
        !text.contains("Non-2xx") && !text.contains("Socket errors"),
        "{url}: every response must be a 200: {text}"
    );
    let line = |prefix: &str| -> &str {
        text.lines()
            .map(str::trim)
            .find_map(|l| l.strip_prefix(prefix))
            .unwrap_or_else(|| panic!("no `{prefix}` in wrk's output: {text}"))
            .trim()
    };
    Load {
        per_second: line("Requests/sec:").parse().expect("requests/s"),
        p50: seconds(line("50%")),
        p99: seconds(line("99%")),
    }
}

/// wrk's duration (`512.00us`, `1.20ms`, `1.01s`) in seconds.
fn seconds(text: &str) -> f64 {
    let (number, scale) = if let Some(n) = text.strip_suffix("us") {
        (n, 1e-6)
    } else if let Some(n) = text.strip_suffix("ms") {
        (n, 1e-3)
    } else if let Some(n) = text.strip_suffix('s') {
        (n, 1.0)
    } else {
        panic!("a wrk duration: {text}")
    };
    number.parse::<f64>().expect("duration") * scale
}

/// The median of each figure over the runs.
fn median(runs: Vec<Load>) -> Load {
    let mid = |f: fn(&Load) -> f64| {
        let mut v: Vec<f64> = runs.iter().map(f).collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    Load {
        per_second: mid(|l| l.per_second),
        p50: mid(|l| l.p50),
        p99: mid(|l| l.p99),
    }
}

struct Row {
    page: &'static str,
    clients: u32,
    feed: Load,
    hand: Load,
}

fn ms(seconds: f64) -> String {
    format!("{:.2} ms", seconds * 1e3)
}

fn render(rows: &[Row], took: f64) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{}", section::HTTP.start);
    let _ = writeln!(
        s,
        "## 4e. The HTTP path: the feed server against a hand-written handler\n"
    );
    let _ = writeln!(
        s,
        "Written by `bash scripts/bench.sh http` (part of the full run; this part took {took:.0} s). \
         The example feed server (`examples/feed_server`, release build, its axum router in \
         the bench's process on two tokio worker threads, a deadpool pool of 16 \
         `AsyncPgConnection`s) serves `GET /workspaces/WB/events?page_size=20` (first page) \
         and the same with the signed token of the row 90,000 rows in (deep page), on a \
         workspace of 100,000 events (three per second). Beside it, on the same pool, a \
         minimal axum handler written by hand runs the same four statements as hand-written \
         SQL on one pooled connection (bearer token look-up, membership, the byte budget's \
         size probe, the page) and answers the items as JSON with an unsigned cursor. The \
         feed server also signs and checks the cursor token, writes the `Link` header and \
         takes a pooled connection per statement. Load: `wrk` over loopback, {SECONDS} s \
         per run, feed server and hand handler alternating, {ROUNDS} runs each, medians; the \
         run checks first that both answer the same 20 rows. wrk, the server and PostgreSQL \
         share the machine's two cores.\n"
    );
    let _ = writeln!(
        s,
        "| page | clients | feed server req/s | hand-written req/s | feed / hand (≥ 0.9) | p50 feed / hand | p99 feed | p99 hand | p99 feed / hand (≤ 1.2) |"
    );
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        let throughput = r.feed.per_second / r.hand.per_second;
        let p99 = r.feed.p99 / r.hand.p99;
        let mark = |ok: bool| if ok { "met" } else { "**missed**" };
        let _ = writeln!(
            s,
            "| {} | {} | {:.0} | {:.0} | {:.2} {} | {} / {} | {} | {} | {:.2} {} |",
            r.page,
            r.clients,
            r.feed.per_second,
            r.hand.per_second,
            throughput,
            mark(throughput >= 0.9),
            ms(r.feed.p50),
            ms(r.hand.p50),
            ms(r.feed.p99),
            ms(r.hand.p99),
            p99,
            mark(p99 <= 1.2),
        );
    }
    let _ = write!(s, "\n{}", section::HTTP.end);
    s
}
