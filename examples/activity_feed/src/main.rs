//! A workspace activity feed (events ordered by time, ties broken by event id), paginated by
//! keyset.
//!
//! ```text
//! cargo run -p keyset-activity-feed
//! cargo run -p keyset-activity-feed -- --json
//! cargo run -p keyset-activity-feed --features postgres -- \
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
//! PostgreSQL needs the feature `postgres` (Diesel's libpq connection); the embedded SQLite
//! default builds with the bundled SQLite alone. The table, the model and the rows are shared
//! with the `feed_server` example (the `keyset-example-feed` crate).
//!
//! The token secret comes from `KEYSET_TOKEN_SECRET`, read as bytes (at least 32: a random
//! value from your secret store), or as `base64:...`; `KEYSET_TOKEN_KEY_IDS=2,1` with
//! `KEYSET_TOKEN_SECRET_2` and `KEYSET_TOKEN_SECRET_1` rotates keys
//! (`CursorCodecBuilder::keys_from_env`). A value that is set but unusable (too short, bad
//! base64) stops the example with a message. Unset, a fixed demo secret is used, with a
//! warning on standard error: anyone who reads the source can forge its tokens.

use std::error::Error;

use clap::{Arg, ArgAction, Command};
use diesel::prelude::*;
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};
use keyset_diesel::prelude::*;
use keyset_diesel::web::Problem;
use keyset_diesel::CursorCodec;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use keyset_example_feed::{self as feed, events, Event, FEED};

const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/sqlite");
#[cfg(feature = "postgres")]
const POSTGRES_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/postgres");

/// The command line.
#[derive(Debug)]
struct Args {
    /// `--database-url` (or `DATABASE_URL`): see [`command`].
    database_url: Option<String>,
    /// `--page-size`: rows per page, at least 1.
    page_size: u32,
    /// `--workspace`: the workspace to walk.
    workspace: String,
    /// `--json`: one JSON object per page.
    json: bool,
}

/// The command line's definition (clap's builder: the derive would add two crates to the
/// README's first command for four options).
fn command() -> Command {
    Command::new("keyset-activity-feed")
        .version(env!("CARGO_PKG_VERSION"))
        .about("Paginate a workspace activity feed with keyset pagination.")
        .arg(
            Arg::new("database-url")
                .long("database-url")
                .value_name("URL")
                .env("DATABASE_URL")
                .help(
                    "`postgres://user@host/db` for PostgreSQL (its `events` table is migrated \
                     and the rows of W9 and W7 replaced); anything else is a SQLite file path \
                     (created if missing). Default: an in-memory SQLite database.",
                ),
        )
        .arg(
            Arg::new("page-size")
                .long("page-size")
                .value_name("N")
                .default_value("3")
                .value_parser(clap::value_parser!(u32).range(1..))
                .help("Rows per page (at least 1)."),
        )
        .arg(
            Arg::new("workspace")
                .long("workspace")
                .value_name("ID")
                .default_value("W9")
                .help("The workspace to walk."),
        )
        .arg(
            Arg::new("json")
                .long("json")
                .action(ArgAction::SetTrue)
                .help(
                "Print one JSON object per page instead of text (without the refused-token demo).",
            ),
        )
}

impl Args {
    /// Parses the process's arguments; on a bad one clap prints the usage and exits.
    fn parse() -> Args {
        let matches = command().get_matches();
        Args {
            database_url: matches.get_one::<String>("database-url").cloned(),
            page_size: matches.get_one::<u32>("page-size").copied().unwrap_or(3),
            workspace: matches
                .get_one::<String>("workspace")
                .cloned()
                .unwrap_or_else(|| "W9".to_string()),
            json: matches.get_flag("json"),
        }
    }
}

/// Token time to live in the demo.
const TTL: Duration = Duration::from_secs(15 * 60);

/// The request's filters: what a token is bound to.
#[derive(serde::Serialize, Clone, Copy)]
struct Scope<'a> {
    workspace: &'a str,
    kind: &'a str,
}

/// A codec whose clock runs `skew` seconds ahead of the system clock, so the demo can show
/// an expired token without waiting.
fn codec(skew: Arc<AtomicU64>) -> Result<CursorCodec, Box<dyn Error + Send + Sync>> {
    Ok(feed::codec_keys(|name| std::env::var_os(name))?
        .ttl(TTL)
        .clock(move || SystemTime::now() + Duration::from_secs(skew.load(Ordering::SeqCst)))
        .build()?)
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
            for row in feed::feed_rows() {
                diesel::insert_into(events::table)
                    .values(row)
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
            let next = page
                .next_cursor()
                .map(|c| codec.encode_with_page_size(&c, page.page_size, &scope))
                .transpose()?;
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
            has_more: page.has_more(),
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
    match (&page.next_cursor(), token) {
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
            Err(e) => {
                let problem = Problem::from(&e);
                println!(
                "  {label}: HTTP {} {{\"code\": \"{}\", \"message\": \"{}\"}} (server log: {e})",
                problem.status, problem.code, problem.title
            )
            }
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
        #[cfg(feature = "postgres")]
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
        #[cfg(not(feature = "postgres"))]
        Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
            Err("PostgreSQL needs the feature `postgres` (it links libpq)".into())
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
