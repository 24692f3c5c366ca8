//! A workspace activity feed (events ordered by time, ties broken by event id), paginated by
//! keyset.
//!
//! ```text
//! cargo run -p keyset-diesel --example activity_feed --features sqlite,postgres
//! cargo run -p keyset-diesel --example activity_feed --features sqlite,postgres -- --json
//! cargo run -p keyset-diesel --example activity_feed --features sqlite,postgres -- \
//!     --database-url postgres://postgres@127.0.0.1/test --page-size 2
//! ```
//!
//! With no `--database-url` (and no `DATABASE_URL`) it runs on an in-memory SQLite database
//! (bundled, no server). It applies the migrations in `migrations/<backend>`, writes the feed of
//! workspace W9 (e101 at 12:00:01; e102, e103, e104 at 12:00:02; e105 at 12:00:03; e106 at
//! 12:00:04, all on 2026-10-10 UTC) and of another workspace, W7, then walks one workspace page
//! by page, printing each page, the signed token of its next cursor and the end-of-results
//! signal. Each next page is read from the token alone, as an API would. Then it shows that a
//! tampered token and an expired token are refused with the "restart from the first page"
//! error. On a server database it replaces the rows of W9 and W7 in the table `events` on
//! every run.
//!
//! The token secret comes from `KEYSET_TOKEN_SECRET`, read as bytes (at least 32: a random
//! value from your secret store); a value that is set but too short (or, on Windows, not
//! Unicode) stops the example with a message. Unset, a fixed demo secret is used, with a
//! warning on standard error: anyone who reads this file can forge its tokens.

use std::error::Error;

use chrono::NaiveDateTime;
use clap::Parser;
use diesel::prelude::*;
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};
use keyset_diesel::prelude::*;
use keyset_diesel::{CursorCodec, SecretKey};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

diesel::table! {
    events (event_id) {
        event_id -> Text,
        workspace_id -> Text,
        occurred_at -> Timestamp,
        message -> Text,
    }
}

/// One feed event. The keyset: `occurred_at ASC, event_id ASC` (event_id is the primary key,
/// so it is the unique tie-breaker).
#[derive(Debug, Clone, Queryable, Selectable, Keyset)]
#[diesel(table_name = events)]
struct Event {
    workspace_id: String,
    #[keyset(asc)]
    occurred_at: NaiveDateTime,
    #[keyset(asc, unique)]
    event_id: String,
    message: String,
}

const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../migrations/sqlite");
const POSTGRES_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../migrations/postgres");

/// Paginate a workspace activity feed with keyset pagination.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// `postgres://user@host/db` for PostgreSQL (its `events` table is migrated and the rows
    /// of W9 and W7 replaced); anything else is a SQLite file path (created if missing).
    /// Default: an in-memory SQLite database.
    #[arg(long, env = "DATABASE_URL")]
    database_url: Option<String>,
    /// Rows per page (at least 1).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    page_size: u32,
    /// The workspace to walk.
    #[arg(long, default_value = "W9")]
    workspace: String,
    /// Print one JSON object per page instead of text (without the refused-token demo).
    #[arg(long)]
    json: bool,
}

/// Token time to live in the demo.
const TTL: Duration = Duration::from_secs(15 * 60);

/// The request's filters: what a token is bound to.
#[derive(serde::Serialize, Clone, Copy)]
struct Scope<'a> {
    workspace: &'a str,
    kind: &'a str,
}

/// The demo's fixed secret, used only when `KEYSET_TOKEN_SECRET` is unset. Public: it is in
/// this file.
const DEMO_SECRET: &[u8] = b"demo secret, public: set KEYSET_TOKEN_SECRET instead";

/// Where the token secret came from.
#[derive(Debug, PartialEq)]
enum Secret {
    /// `KEYSET_TOKEN_SECRET`, as bytes.
    FromEnv(Vec<u8>),
    /// Unset: [`DEMO_SECRET`].
    Demo,
}

/// The secret in `value` (the variable as the OS gives it): its bytes, at least
/// `MIN_SECRET_LEN` of them; the demo secret when it is unset.
fn secret_from(value: Option<std::ffi::OsString>) -> Result<Secret, String> {
    let Some(value) = value else {
        return Ok(Secret::Demo);
    };
    #[cfg(unix)]
    let bytes = std::os::unix::ffi::OsStringExt::into_vec(value);
    #[cfg(not(unix))]
    let bytes = value
        .into_string()
        .map_err(|_| "KEYSET_TOKEN_SECRET is not valid Unicode".to_string())?
        .into_bytes();
    if bytes.len() < keyset_diesel::MIN_SECRET_LEN {
        return Err(format!(
            "KEYSET_TOKEN_SECRET is {} bytes; at least {} are required (use a random value \
             from your secret store), or unset it to run the demo with its public secret",
            bytes.len(),
            keyset_diesel::MIN_SECRET_LEN
        ));
    }
    Ok(Secret::FromEnv(bytes))
}

/// A codec whose clock runs `skew` seconds ahead of the system clock, so the demo can show
/// an expired token without waiting.
fn codec(skew: Arc<AtomicU64>) -> Result<CursorCodec, Box<dyn Error + Send + Sync>> {
    let secret = match secret_from(std::env::var_os("KEYSET_TOKEN_SECRET"))? {
        Secret::FromEnv(bytes) => bytes,
        Secret::Demo => {
            eprintln!(
                "WARNING: KEYSET_TOKEN_SECRET is not set: tokens are signed with the example's \
                 PUBLIC demo secret, which anyone can read in its source and use to forge \
                 tokens. Never run it so outside this demo."
            );
            DEMO_SECRET.to_vec()
        }
    };
    Ok(CursorCodec::builder()
        .signing_key(SecretKey::new(1, &secret)?)
        .ttl(TTL)
        .clock(move || SystemTime::now() + Duration::from_secs(skew.load(Ordering::SeqCst)))
        .build()?)
}

/// (event id, workspace, time on 2026-10-10 UTC, message)
const FEED: &[(&str, &str, &str, &str)] = &[
    ("e101", "W9", "12:00:01", "Ada created the workspace"),
    ("e102", "W9", "12:00:02", "Ada invited Grace"),
    ("e103", "W9", "12:00:02", "Ada invited Linus"),
    ("e104", "W9", "12:00:02", "Ada invited Barbara"),
    ("e105", "W9", "12:00:03", "Grace joined"),
    ("e106", "W9", "12:00:04", "Grace uploaded report.pdf"),
    ("e201", "W7", "12:00:01", "Ken created the workspace"),
    ("e202", "W7", "12:00:02", "Ken invited Dennis"),
    ("e203", "W7", "12:00:03", "Dennis joined"),
];

fn feed_rows() -> Vec<(String, String, NaiveDateTime, String)> {
    FEED.iter()
        .map(|(id, ws, time, message)| {
            let at = NaiveDateTime::parse_from_str(&format!("2026-10-10 {time}"), "%F %T")
                .expect("the feed's times are valid");
            (id.to_string(), ws.to_string(), at, message.to_string())
        })
        .collect()
}

/// Writes the feed and walks one workspace. A macro, not a generic function, so that each
/// backend's Diesel query types stay concrete.
macro_rules! run_feed {
    ($conn:expr, $backend:ty, $migrations:expr, $args:expr, $label:expr) => {{
        let conn = $conn;
        let args: &Args = $args;
        conn.run_pending_migrations($migrations)?;
        let workspaces: Vec<&str> = FEED.iter().map(|row| row.1).collect();
        conn.transaction(|conn| {
            diesel::delete(events::table.filter(events::workspace_id.eq_any(&workspaces)))
                .execute(conn)?;
            for (id, ws, at, message) in feed_rows() {
                diesel::insert_into(events::table)
                    .values((
                        events::event_id.eq(id),
                        events::workspace_id.eq(ws),
                        events::occurred_at.eq(at),
                        events::message.eq(message),
                    ))
                    .execute(conn)?;
            }
            diesel::QueryResult::Ok(())
        })?;
        if !args.json {
            println!(
                "keyset activity feed on {}: workspace {}, page size {}",
                $label, args.workspace, args.page_size
            );
        }
        let skew = Arc::new(AtomicU64::new(0));
        let codec = codec(skew.clone())?;
        let scope = Scope {
            workspace: &args.workspace,
            kind: "all",
        };
        // The client's state between requests: only the token.
        let mut token: Option<String> = None;
        let mut last_token = None;
        let mut last_row = None;
        let mut number = 1;
        loop {
            let cursor = match &token {
                None => None,
                Some(t) => Some(codec.decode::<Event>(t, &scope)?),
            };
            let paginated = events::table
                .filter(events::workspace_id.eq(&args.workspace))
                .select(Event::as_select())
                .paginate_after(cursor)
                .page_size(args.page_size);
            let sql =
                diesel::debug_query::<$backend, _>(&paginated.clone().into_query::<$backend>()?)
                    .to_string();
            let page = paginated.load_page(conn)?;
            let next = codec.encode_page_cursor(&page, &scope)?;
            print_page(number, &page, next.as_deref(), &sql, args.json)?;
            if next.is_some() {
                last_token = next.clone();
            }
            if let Some(row) = page.items.last() {
                last_row = Some(Cursor::after_row(row));
            }
            token = next;
            if token.is_none() {
                break;
            }
            number += 1;
        }
        if !args.json {
            // A token to misuse: the last one issued, or (a single page) one after its last row.
            let valid = match (last_token, last_row) {
                (Some(token), _) => Some(token),
                (None, Some(cursor)) => Some(codec.encode(&cursor, &scope)?),
                (None, None) => None,
            };
            if let Some(valid) = valid {
                show_refusals(&codec, &skew, &valid, &scope);
            }
        }
        Ok::<(), Box<dyn Error + Send + Sync>>(())
    }};
}

/// One line of `--json` output (fields in this order).
#[derive(serde::Serialize)]
struct JsonPage<'a> {
    page: usize,
    items: Vec<&'a str>,
    has_more: bool,
    next_cursor: Option<&'a str>,
}

fn print_page(
    number: usize,
    page: &Page<Event>,
    token: Option<&str>,
    sql: &str,
    json: bool,
) -> Result<(), Box<dyn Error + Send + Sync>> {
    if json {
        let line = JsonPage {
            page: number,
            items: page.items.iter().map(|e| e.event_id.as_str()).collect(),
            has_more: page.has_more,
            next_cursor: token,
        };
        println!("{}", serde_json::to_string(&line)?);
        return Ok(());
    }
    println!("\npage {number}");
    println!("  sql: {sql}");
    for e in &page.items {
        println!(
            "  {}  {}  {}  {}",
            e.occurred_at.format("%F %T"),
            e.event_id,
            e.workspace_id,
            e.message
        );
    }
    match (&page.next_cursor, token) {
        (Some(c), Some(token)) => {
            println!(
                "  has_more: true; next cursor: after ({}, {})",
                c.key.0.format("%F %T%.f"),
                c.key.1
            );
            println!("  next token: {token}");
        }
        _ => println!("  has_more: false; no next cursor: end of results"),
    }
    Ok(())
}

/// A tampered token, an expired one and one used for another workspace, each refused with the
/// restart error.
fn show_refusals(codec: &CursorCodec, skew: &AtomicU64, valid: &str, scope: &Scope<'_>) {
    println!("\nrefused tokens (the API answers 400 and the client restarts from page 1):");
    let mut tampered: Vec<char> = valid.chars().collect();
    let middle = tampered.len() / 2;
    tampered[middle] = if tampered[middle] == 'A' { 'B' } else { 'A' };
    let tampered: String = tampered.into_iter().collect();
    let report =
        |label: &str, token: &str, scope: &Scope<'_>| match codec.decode::<Event>(token, scope) {
            Ok(_) => println!("  {label}: accepted (unexpected)"),
            Err(e) => println!(
                "  {label}: HTTP {} {{\"code\": \"{}\", \"message\": \"{}\"}} (server log: {e})",
                e.http_status(),
                e.code(),
                e.client_message()
            ),
        };
    report("tampered token (one character changed)", &tampered, scope);
    skew.store(TTL.as_secs() + 60, Ordering::SeqCst);
    report("the same valid token 16 minutes later", valid, scope);
    skew.store(0, Ordering::SeqCst);
    let other_workspace = if scope.workspace == "W7" { "W9" } else { "W7" };
    let other = Scope {
        workspace: other_workspace,
        ..*scope
    };
    report(
        &format!("the same valid token used for workspace {other_workspace}"),
        valid,
        &other,
    );
}

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> Result<(), Box<dyn Error + Send + Sync>> {
    match args.database_url.as_deref() {
        Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
            let conn = &mut PgConnection::establish(url)?;
            run_feed!(
                conn,
                diesel::pg::Pg,
                POSTGRES_MIGRATIONS,
                args,
                "PostgreSQL"
            )
        }
        Some(url) if url.starts_with("mysql://") => {
            Err("this example is built for SQLite and PostgreSQL; the tests cover MySQL".into())
        }
        url => {
            let path = url.unwrap_or(":memory:");
            let conn = &mut SqliteConnection::establish(path)?;
            let label = if path == ":memory:" {
                "SQLite (in memory)".to_string()
            } else {
                format!("SQLite ({path})")
            };
            run_feed!(conn, diesel::sqlite::Sqlite, SQLITE_MIGRATIONS, args, label)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    /// Issue 12 (7): a set but unusable secret stops the example; only an unset one falls back
    /// to the demo secret. Before, any `std::env::var` error (unset, or set but not UTF-8) gave
    /// the demo secret silently, and a short one failed with `SecretKey`'s bare message.
    #[test]
    fn the_secret_is_read_as_bytes_and_checked() {
        assert_eq!(secret_from(None), Ok(Secret::Demo));
        let good = OsString::from("a random 32-byte secret from a vault");
        assert_eq!(
            secret_from(Some(good)),
            Ok(Secret::FromEnv(
                b"a random 32-byte secret from a vault".to_vec()
            ))
        );
        for short in ["", "short"] {
            let error = secret_from(Some(OsString::from(short))).unwrap_err();
            assert!(error.contains("at least 32 are required"), "{error}");
        }
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStringExt;
            let bytes = vec![0xff; 40]; // not UTF-8, still 40 bytes of secret
            assert_eq!(
                secret_from(Some(OsString::from_vec(bytes.clone()))),
                Ok(Secret::FromEnv(bytes))
            );
        }
    }
}
